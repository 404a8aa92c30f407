/**
 * A terminal companion: lists the turns a functai server's conversations
 * hold for a person, and answers them. The server runs each turn on.
 *
 *   node --import tsx --conditions=functai-source examples/node/companion/index.ts <url> [--key K] [--by NAME] [--yes] [--watch]
 *
 * Interactive (a terminal): asks about each approval (y / n / skip; a no
 * asks for a reason the model will see). `--yes`: approves every approval
 * without asking. `--watch`: stays connected and answers new ones as they
 * come; otherwise it exits once the list is handled.
 */
import { createInterface, type Interface } from "node:readline/promises";
import { connect, type Companion, type RemoteStream, type WaitingEntry } from "functai/websocket";

const USAGE = "usage: index.ts <ws://host:port> [--key K] [--by NAME] [--yes] [--watch]";
const say = (line: string): void => void process.stdout.write(`${line}\n`);
/** Ends the process with one line on stderr: a person reads it, so no stack trace. */
const fail = (line: string, code: number): never => {
  process.stderr.write(`${line}\n`);
  process.exit(code);
};

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const value = args[i + 1];
  // `--key` with nothing after it would otherwise connect without the key the person meant to give
  return value === undefined || value.startsWith("--") ? fail(`${name} needs a value\n${USAGE}`, 2) : value;
};
const url = args.find((a) => /^wss?:\/\//.test(a)) ?? fail(USAGE, 2);
const yes = args.includes("--yes");
const watch = args.includes("--watch");
const by = flag("--by") ?? process.env.USER ?? "companion";
const key = flag("--key") ?? process.env.FUNCTAI_KEY;

/** A server that is down or a key it refuses: said in one line (with the error's code), exit code 1. */
const app: Companion = await connect(url, { ...(key ? { key } : {}), client: "terminal companion" }).catch((e: unknown) => {
  const err = e as { code?: string; message?: string };
  return fail(`cannot connect to ${url}: ${err.message ?? String(e)} (${err.code ?? "error"})`, 1);
});
const rl: Interface | null = yes || !process.stdin.isTTY ? null : createInterface({ input: process.stdin, output: process.stdout });
if (!yes && !rl) say("stdin is not a terminal: give --yes to approve without asking");

/**
 * Asks at the terminal; null when the input ended (Ctrl-D, or the terminal
 * went away). A pending question rejects then (an AbortError): caught here,
 * never a crash. Ctrl-C does not come here: it stops the companion (see stopOnCtrlC).
 */
async function ask(question: string): Promise<string | null> {
  if (!rl) return null;
  const closed = new Promise<null>((r) => rl.once("close", () => r(null)));
  return Promise.race([rl.question(question).catch(() => null), closed]);
}

/** A turn's answer as text: a program's output may be any JSON value, not only a string. */
const shown = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v));

/**
 * Shows a continued turn's events as they come, then its answer. A denied
 * call did not run: it is shown as denied, never as a call and its result.
 */
async function follow(s: RemoteStream): Promise<void> {
  const denied = new Set<number>();
  try {
    for await (const e of s) {
      if (e.type === "approved") {
        const { name, invocation } = e.approval;
        if (e.verdict === "no") denied.add(invocation);
        const who = e.by ? ` by ${e.by}` : "";
        say(e.verdict === "yes" ? `    ${name} allowed${who}` : `    ${name} denied${who}${e.reason ? ` (${e.reason})` : ""}: it did not run`);
      }
      if (e.type === "tool_call" && !denied.has(e.invocation)) say(`    ${e.name} ${JSON.stringify(e.input)}`);
      if (e.type === "tool_result" && !denied.has(e.invocation)) say(`    → ${JSON.stringify(e.output ?? e.error)}`);
    }
    say(`  answer: ${shown(await s)}`);
  } catch (e) {
    const err = e as { code?: string; message?: string };
    say(`  ${err.code === "turn-waiting" ? "it waits again" : `refused: ${err.code}`} (${err.message})`);
  }
}

/**
 * What was handled, by approval (not by turn: a turn answered here may go on
 * and wait again, for another approval, which must be asked about too), and
 * by interrupted turn.
 */
const done = new Set<string>();
const keysOf = (w: WaitingEntry): string[] => (w.state === "interrupted" ? [`${w.turn} interrupted`] : w.approvals.map((a) => `${w.turn} ${a.id}`));
const anythingNew = (list: readonly WaitingEntry[]): boolean => list.some((w) => keysOf(w).some((k) => !done.has(k)));

/** Answers what waits; an approval answered elsewhere meanwhile says so (approval-answered). */
async function handle(list: readonly WaitingEntry[]): Promise<void> {
  for (const w of list) {
    const where = `${w.conversation} / turn ${w.turn.slice(0, 13)}… (${w.program ?? "unknown program"})`;
    if (w.state === "interrupted") {
      if (done.has(`${w.turn} interrupted`)) continue;
      done.add(`${w.turn} interrupted`);
      const open = w.unfinished.map((u) => `${u.name} #${u.invocation} ${JSON.stringify(u.input)}`).join(", ");
      say(`${where}: interrupted${open ? `; may have run: ${open}` : ""} (resume it with app.resume({ results | rerun }); not guessed here)`);
      continue;
    }
    for (const a of w.approvals) {
      if (done.has(`${w.turn} ${a.id}`) || stopping) continue;
      done.add(`${w.turn} ${a.id}`);
      say(`${where}: ${a.path} wants ${a.name} ${JSON.stringify(a.input)} (${a.effects ?? "unknown effects"})`);
      const ref = { conversation: w.conversation, turn: w.turn, id: a.id, by };
      if (yes) {
        await follow(app.approve(ref));
        continue;
      }
      if (!rl) continue;
      const reply = await ask("  allow? [y/n/s(kip)] ");
      const reason = reply?.trim().toLowerCase().startsWith("n") ? await ask("  reason (the model sees it): ") : "";
      if (reply === null || reason === null) {
        // Ctrl-D: nothing more can be asked; this approval and the rest stay waiting, for another companion or later
        say("");
        say("no more input: what was not answered still waits");
        return stop();
      }
      if (reply.trim().toLowerCase().startsWith("y")) await follow(app.approve(ref));
      else if (reply.trim().toLowerCase().startsWith("n")) await follow(app.deny({ ...ref, reason: reason.trim() || "no" }));
      else say("  skipped");
    }
  }
}

/**
 * One Ctrl-C ends the companion: as a signal, and as the ^C a terminal's
 * readline reads (it would only pause itself). Closing the connection is
 * given a moment; the process exits either way.
 */
let stopping = false;
/** Closes the connection (given a moment) and exits 0; never settles, so nothing runs after it. */
function stop(): Promise<never> {
  if (!stopping) {
    stopping = true;
    rl?.close();
    const closed = app.close().catch(() => undefined);
    void Promise.race([closed, new Promise((r) => setTimeout(r, 1000))]).then(() => process.exit(0));
  }
  return new Promise<never>(() => undefined);
}
function stopOnCtrlC(): void {
  const onCtrlC = (): void => {
    if (!stopping) say("stopped");
    void stop();
  };
  process.on("SIGINT", onCtrlC);
  rl?.on("SIGINT", onCtrlC);
}

stopOnCtrlC();
// One list at a time, in order; a failure is said and the next list is still handled.
let busy: Promise<void> = Promise.resolve();
const queue = (list: readonly WaitingEntry[]): Promise<void> =>
  (busy = busy.then(() => handle(list)).catch((e: unknown) => say(`  failed: ${(e as Error).message ?? String(e)}`)));
// listening before the first list is asked for: a turn that starts waiting meanwhile is not missed
if (watch) app.on("waiting", (next) => void queue(next));
const list = await app.waiting();
say(list.length === 0 ? "nothing waits for a person" : `${list.length} turn(s) wait for a person`);
await queue(list);
if (!watch) {
  // a turn answered here may go on and wait again (another approval): that is part of the list too
  for (let next = await app.waiting(); anythingNew(next) && !stopping; next = await app.waiting()) await queue(next);
}

if (stopping) await stop();
if (watch) {
  say("watching (Ctrl-C to stop)…");
  app.on("reconnect", () => say("reconnected"));
} else {
  rl?.close();
  await app.close();
}
