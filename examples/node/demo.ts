/**
 * `npm start`: the spec's stories, end to end, in the terminal.
 *
 *   1. A first tool: a tool loop streamed with `for await`, then phistory().
 *   2. Tools that change things: the refund desk, asked at once (a function),
 *      refused (a plain call under a rule), and waiting in a conversation,
 *      answered from a second process.
 *   3. When the process dies: a child killed mid-tool; its turn found
 *      interrupted, and resumed with the unfinished tool settled by hand.
 *   4. Evaluate and optimize: a tool loop measured on ten rows, improved
 *      with worked examples that keep their tool calls, measured again.
 *   5. MCP tools and OpenTelemetry: the desk's tools from an MCP server (a
 *      child process over stdio), the turn's spans printed as a tree.
 *
 * With no API key it runs on the scripted model; with OPENAI_API_KEY,
 * ANTHROPIC_API_KEY or OPENAI_BASE_URL set, on that model (FUNCTAI_MODEL names
 * another model). Turns are kept in a fresh folder in the system's temp folder
 * (one per run; nothing is written into the repository).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ApprovalError, configure, ConversationError, phistory, Waiting, type Approval, type TurnEvent } from "functai";
import {
  answer, answerBrain, askedCount, bold, countRuns, cyan, deskBrain, dim, emailBrain, emailsIn, green, header, isScripted, json,
  makeAssistant, makeDesk, model, modelLabel, PROMPT_FILE, red, recordEmail, say, yellow,
} from "./shared.js";
import { evaluateAndImprove } from "./evaluate-story.js";
import { mcpAndTraces } from "./mcp-otel.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..", "..");
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const started = Date.now();

/** A fresh folder for this run's conversations, in the system's temp folder (never in the repository). */
const freshStore = (): string => mkdtempSync(join(tmpdir(), "functai-demo-"));

/** How long a person spent at the second process's prompt (it writes this down), so the total leaves it out. */
function promptMs(store: string): number {
  try {
    return Number(readFileSync(join(store, PROMPT_FILE), "utf8")) || 0;
  } catch {
    return 0; // no prompt was shown (stdin is not a terminal)
  }
}

/** Runs one of this folder's scripts in a new Node process (TypeScript through tsx's loader, functai from src/). */
function child(script: string, args: string[], stdin: "inherit" | "ignore"): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const argv = ["--import", "tsx", "--conditions=functai-source", join(here, script), ...args];
  return new Promise((done, fail) => {
    const proc = spawn(process.execPath, argv, { cwd: root, stdio: [stdin, "inherit", "inherit"] });
    proc.on("error", fail);
    proc.on("exit", (code, signal) => done({ code, signal }));
  });
}

/** A person stopped the demo (Ctrl-C at a prompt): said as it is, not as a failure. */
class Stopped extends Error {}

const label = (s: string): string => dim(s.padEnd(12));
const short = (v: unknown, max = 90): string => {
  const s = typeof v === "string" ? v : json(v);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
};

/**
 * One line per event, as it comes; text deltas are written as they stream, on
 * one line. Lines are numbered as printed (a run of text deltas is one line),
 * so the numbers do not jump where deltas were merged.
 */
function eventPrinter(): (e: TurnEvent) => void {
  let inText = false;
  let n = 0;
  const number = (): string => String(++n).padStart(3);
  return (e) => {
    if (e.type === "text") {
      if (!inText) process.stdout.write(`  ${number()} ${label("text")}`);
      inText = true;
      // a delta may hold line breaks (a real model's <result> block): keep the column
      process.stdout.write(e.delta.split("\n").map(cyan).join(`\n${" ".repeat(18)}`));
      return;
    }
    if (inText) process.stdout.write("\n");
    inText = false;
    const line = (what: string): void => say(`  ${number()} ${label(e.type)}${what}`);
    switch (e.type) {
      case "started": return line(`${e.path} ${json(e.input)}`);
      case "state": return line(dim(e.state));
      case "request": return line(dim(`step ${e.step}: asking the model`));
      case "reply": return line(dim(`step ${e.step}: ${e.toolCalls.length > 0 ? e.toolCalls.map((c) => c.name).join(", ") : "an answer"} (finish: ${e.finishReason})`));
      case "tool_call": return line(`${bold(e.name)}(${json(e.input)})  ${dim(`#${e.invocation}, ${e.effects ?? "effects unknown"}`)}`);
      case "tool_result": return line(e.error !== undefined ? red(`${e.name} failed: ${e.error}`) : `${e.name} → ${short(e.output)}`);
      case "approval": return line(yellow(`${e.approval.path} ${json(e.approval.input)}`));
      case "approved": return line(`${e.verdict} by ${e.by ?? "someone"}`);
      case "waiting": return line(yellow(e.approvals.map((a) => a.path).join(", ")));
      case "interrupted": return line(red(e.reason));
      case "done": return line(green(`tokens in ${e.usage.inputTokens}, out ${e.usage.outputTokens}`));
      case "failed": return line(red(`${e.error.code ?? "error"}: ${e.error.message}`));
    }
  };
}

// ------------------------------------------------------------------------------------------------

async function aFirstTool(): Promise<void> {
  header("1. A first tool");
  say(dim("answer(question) may call lookup_order (it reads). The call is streamed: each event is printed as it comes."));
  configure({ lm: model(answerBrain) }); // temperature 0 is configured in shared.ts, for every process
  say();
  const s = answer.stream("Where is my order A-1042?");
  const show = eventPrinter();
  for await (const e of s) show(e);
  const result = await s;
  say();
  say(`${bold("result:")} ${cyan(result)}`);
  say();
  say(dim("phistory() shows the whole loop: the tool call, its result, the answer."));
  say();
  say(phistory().replace(/^/gm, "  "));
}

async function toolsThatChangeThings(store: string): Promise<void> {
  header("2. Tools that change things");
  say(dim("The refund desk: find_order reads, refund changes. approve says who decides before refund runs."));
  const message = "Order A-1042 never arrived. Refund it, please.";

  say();
  say(bold("(a) A function, asked at once: refunds over 20.00 need a manager"));
  {
    const { desk, REFUNDS } = makeDesk();
    const manager = (call: Approval): true | string => {
      say(`  asked: ${call.name} ${json(call.input)}`);
      const amount = (call.input as { amount?: unknown }).amount;
      if (typeof amount !== "number" || amount <= 20) return true;
      const why = "Refunds over 20.00 need a manager. Offer a replacement instead.";
      say(`  the manager says no, and tells the model: ${yellow(why)}`);
      return why;
    };
    const reply = await desk.using({ approve: manager })(message, { lm: model(deskBrain) });
    say(`  answer: ${cyan(reply)}`);
    say(`  REFUNDS: ${json(REFUNDS)}`);
  }

  say();
  say(bold(`(b) A rule, approve: "changes", on a plain call: nobody to ask, so it refuses before the tool runs`));
  {
    const { desk, REFUNDS } = makeDesk();
    try {
      const reply = await desk.using({ approve: "changes" })(message, { lm: model(deskBrain) });
      say(`  the model answered without asking to refund: ${cyan(reply)}`);
    } catch (e) {
      if (!(e instanceof ApprovalError)) throw e;
      say(`  ${red("ApprovalError")} ${bold(e.code)} · ${e.message}`);
    }
    say(`  REFUNDS: ${json(REFUNDS)}`);
  }

  say();
  say(bold("(c) In a conversation the turn waits, saved, and another process answers it"));
  const ledger = join(store, "desk-ledger.txt");
  const { desk } = makeDesk(ledger);
  const chat = desk.conversation("sam", { store, approve: "changes", lm: model(deskBrain) });
  say(`  store: ${store} (conversation "sam")`);
  try {
    const reply = await chat.send(message);
    say(`  the model answered without asking to refund: ${cyan(reply)}`);
    return;
  } catch (e) {
    if (!(e instanceof Waiting)) throw e;
    say(`  send threw ${yellow("Waiting")} (${e.code}): the turn is ${bold(e.turn.state)}, saved; what waits:`);
    for (const a of e.approvals) say(`    ${a.name} ${json(a.input)}  ${dim(`(${a.path} #${a.invocation}, ${a.effects ?? "effects unknown"})`)}`);
  }
  try {
    await chat.send("Hello? Anyone there?");
  } catch (e) {
    if (!(e instanceof ConversationError)) throw e;
    say(`  meanwhile another send is refused: ${e.code}`);
  }

  say();
  say(`  A second process opens the same folder and answers${process.stdin.isTTY ? " (you, at the prompt)" : " (automatically: stdin is not a terminal)"}:`);
  const approver = await child("approve.ts", [store, ledger], process.stdin.isTTY ? "inherit" : "ignore");
  // Ctrl-C at the prompt (the terminal gives it to the prompt, not to this process): stop here, as asked
  if (approver.code === 130) throw new Stopped(`stopped at the prompt (Ctrl-C): the turn still waits, saved, in ${store} (conversation "sam")`);
  if (approver.code !== 0) throw new Error(`the approving process failed (exit ${approver.code ?? approver.signal})`);

  const turn = (await chat.turns()).at(-1)!;
  const runs = countRuns(ledger);
  say();
  if (turn.state === "waiting") say(`  back here: the turn is ${bold("waiting")}, saved: nobody answered it`);
  else say(`  back here: the turn is ${bold(turn.state)}; its answer: ${cyan(String(turn.value))}`);
  say(`  across both processes: find_order ran ${runs.find_order ?? 0}× (before the wait), refund ran ${runs.refund ?? 0}×`);
  const kinds = readFileSync(join(store, "conversations", "sam.jsonl"), "utf8").trim().split("\n").map((l) => (JSON.parse(l) as { kind: string; state?: string }))
    .map((r) => (r.kind === "tool" || r.kind === "ended" ? `${r.kind}:${r.state}` : r.kind));
  say(dim(`  the journal (conversations/sam.jsonl): ${kinds.join(" ")}`));
}

async function whenTheProcessDies(store: string): Promise<void> {
  header("3. When the process dies");
  say(dim("A child process asks the assistant to send an email (lease: renewed every 100 ms, lasting 500 ms),"));
  say(dim("and dies with SIGKILL right after the email goes out, before send_email returns."));
  say();
  const sent = join(store, "sent.jsonl");
  const crashed = await child("crash.ts", [store, sent], "ignore");
  say(`  the child ended: ${crashed.signal ? red(`killed by ${crashed.signal}`) : `exit code ${crashed.code}`}`);
  say(`  emails sent so far: ${emailsIn(sent).length}`);
  if (!crashed.signal) {
    say(yellow("  the child did not die in send_email (the model sent nothing), so there is nothing to resume."));
    return;
  }

  const assistant = makeAssistant((to, text) => {
    recordEmail(sent, to, text);
    return "sent";
  });
  const lm = model(emailBrain);
  const conversation = assistant.conversation("crash", { store, lm });
  const turn = (await conversation.turns()).at(-1)!;
  say(`  this process opens conversation "crash": its turn is ${bold(turn.state)}${turn.state === "running" ? " (its lease has not run out yet)" : ""}`);
  const waitFrom = Date.now();
  while (turn.state === "running" && Date.now() - waitFrom < 10_000) {
    await sleep(100);
    await turn.refresh();
  }
  say(`  after waiting out the lease (${Date.now() - waitFrom} ms): ${bold(turn.state)}`);
  say(`  turn.unfinished: ${json(turn.unfinished.map((u) => ({ invocation: u.invocation, name: u.name, input: u.input })))}`);

  try {
    await turn.resume();
    say(red("  resume() went on without asking: that is not what should happen"));
  } catch (e) {
    if (!(e instanceof ConversationError)) throw e;
    say(`  turn.resume() refuses: ${red(e.code)} · ${e.message}`);
  }

  say(dim(`  The email did go out, so: turn.resume({ results: { ${turn.unfinished.map((u) => `${u.invocation}: "sent"`).join(", ")} } })`));
  const results = Object.fromEntries(turn.unfinished.map((u) => [u.invocation, "sent"]));
  const reply = await turn.resume({ results });
  say(`  answer: ${cyan(String(reply))}`);
  const asked = askedCount(lm);
  if (asked !== undefined) say(`  the model was asked ${asked}× here: its first reply (the send_email call) came from the journal the child kept`);
  const emails = emailsIn(sent);
  const n = emails.length;
  say(`  ${n === 1 ? green("exactly one email was sent") : red(`${n} emails were sent`)} (sent.jsonl: ${emails.map((m) => json(m)).join(", ")})`);
}

// ------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  say(bold("functai demo"));
  say(`model: ${modelLabel}`);
  const store = freshStore();
  say(`store: ${store} ${dim("(a fresh temp folder each run; the conversations are JSONL files you can read)")}`);
  await aFirstTool();
  await toolsThatChangeThings(store);
  await whenTheProcessDies(store);
  await evaluateAndImprove();
  await mcpAndTraces(store);
  say();
  const atPrompt = promptMs(store);
  const took = ((Date.now() - started - atPrompt) / 1000).toFixed(1);
  say(green(`All five stories ran in ${took} s${isScripted ? " on the scripted model" : ""}${atPrompt > 0 ? ", not counting your time at the prompt" : ""}.`));
}

main().catch((e: unknown) => {
  say();
  if (e instanceof Stopped) {
    say(yellow(e.message));
    process.exitCode = 130;
    return;
  }
  say(red(`the demo failed: ${e instanceof Error ? `${e.name}${"code" in e ? ` (${String(e.code)})` : ""}: ${e.message}` : String(e)}`));
  if (e instanceof Error && e.stack) say(dim(e.stack));
  process.exitCode = 1;
});
