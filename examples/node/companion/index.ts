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

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const url = args.find((a) => /^wss?:\/\//.test(a));
if (!url) throw new Error("usage: index.ts <ws://host:port> [--key K] [--by NAME] [--yes] [--watch]");
const yes = args.includes("--yes");
const by = flag("--by") ?? process.env.USER ?? "companion";
const key = flag("--key") ?? process.env.FUNCTAI_KEY;
const say = (line: string): void => void process.stdout.write(`${line}\n`);

const app: Companion = await connect(url, { ...(key ? { key } : {}), client: "terminal companion" });
const rl: Interface | null = yes || !process.stdin.isTTY ? null : createInterface({ input: process.stdin, output: process.stdout });
if (!yes && !rl) say("stdin is not a terminal: give --yes to approve without asking");

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
    say(`  answer: ${String(await s)}`);
  } catch (e) {
    const err = e as { code?: string; message?: string };
    say(`  ${err.code === "turn-waiting" ? "it waits again" : `refused: ${err.code}`} (${err.message})`);
  }
}

/** Answers what waits; an approval answered elsewhere meanwhile says so (approval-answered). */
async function handle(list: readonly WaitingEntry[], done: Set<string>): Promise<void> {
  for (const w of list) {
    if (done.has(w.turn)) continue;
    done.add(w.turn);
    const where = `${w.conversation} / turn ${w.turn.slice(0, 13)}… (${w.program ?? "unknown program"})`;
    if (w.state === "interrupted") {
      const open = w.unfinished.map((u) => `${u.name} #${u.invocation} ${JSON.stringify(u.input)}`).join(", ");
      say(`${where}: interrupted${open ? `; may have run: ${open}` : ""} (resume it with app.resume({ results | rerun }); not guessed here)`);
      continue;
    }
    for (const a of w.approvals) {
      say(`${where}: ${a.path} wants ${a.name} ${JSON.stringify(a.input)} (${a.effects ?? "unknown effects"})`);
      const ref = { conversation: w.conversation, turn: w.turn, id: a.id, by };
      if (yes) {
        await follow(app.approve(ref));
        continue;
      }
      if (!rl) continue;
      const reply = (await rl.question("  allow? [y/n/s(kip)] ")).trim().toLowerCase();
      if (reply.startsWith("y")) await follow(app.approve(ref));
      else if (reply.startsWith("n")) await follow(app.deny({ ...ref, reason: (await rl.question("  reason (the model sees it): ")).trim() || "no" }));
      else say("  skipped");
    }
  }
}

/**
 * One Ctrl-C ends the companion: as a signal, and as the ^C a terminal's
 * readline reads (it would only pause itself). Closing the connection is
 * given a moment; the process exits either way.
 */
function stopOnCtrlC(): void {
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    say("stopped");
    rl?.close();
    const closed = app.close().catch(() => undefined);
    void Promise.race([closed, new Promise((r) => setTimeout(r, 1000))]).then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  rl?.on("SIGINT", stop);
}

stopOnCtrlC();
const done = new Set<string>();
const list = await app.waiting();
say(list.length === 0 ? "nothing waits for a person" : `${list.length} turn(s) wait for a person`);
await handle(list, done);

if (args.includes("--watch")) {
  say("watching (Ctrl-C to stop)…");
  let busy = Promise.resolve();
  app.on("waiting", (next) => (busy = busy.then(() => handle(next, done))));
  app.on("reconnect", () => say("reconnected"));
} else {
  rl?.close();
  await app.close();
}
