/**
 * The second process of "Tools that change things": it opens the refund
 * desk's conversation from the same store folder, shows what waits, and
 * answers: at the prompt when stdin is a terminal, "yes" otherwise.
 *
 *   node --import tsx --conditions=functai-source examples/node/approve.ts <store> <ledger>
 */
import { writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline/promises";
import { askedCount, bold, cyan, deskBrain, dim, json, makeDesk, model, PROMPT_FILE, say } from "./shared.js";

const [store, ledger] = process.argv.slice(2);
if (!store || !ledger) throw new Error("usage: approve.ts <store> <ledger>");

const tag = dim(`  [process ${process.pid}]`);
const lm = model(deskBrain);
const { desk, REFUNDS, LOOKUPS } = makeDesk(ledger);

// Opened as the spec opens it, without a rule: the turn keeps the rule it was sent with, and
// the answer given here stands.
const turn = (await desk.conversation("sam", { store, lm }).turns()).at(-1);
if (!turn) throw new Error(`no turn in conversation "sam" of ${store}`);
say(`${tag} opened conversation "sam": its last turn is ${bold(turn.state)}`);
for (const a of turn.waiting) say(`${tag}   waiting: ${a.name} ${json(a.input)}  (${a.path} #${a.invocation}, ${a.effects ?? "unknown effects"})`);

/**
 * Asks at the terminal. Ctrl-C and Ctrl-D are answers too, not crashes: a
 * pending question rejects on either (an AbortError), so each is caught and
 * said: "interrupt" (Ctrl-C: stop) or "eof" (Ctrl-D: no answer).
 */
async function ask(question: string): Promise<string | "interrupt" | "eof"> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  let ended: "interrupt" | "eof" = "eof";
  // with a listener, readline reports Ctrl-C here instead of rejecting the question
  rl.on("SIGINT", () => {
    ended = "interrupt";
    rl.close();
  });
  const closed = new Promise<null>((r) => rl.once("close", () => r(null)));
  try {
    const reply = await Promise.race([rl.question(question).catch(() => null), closed]);
    return reply ?? ended;
  } finally {
    rl.close();
  }
}

let yes = true;
let by = "auto-approver (stdin is not a terminal)";
if (process.stdin.isTTY) {
  const names = turn.waiting.map((a) => `${a.name} ${json(a.input)}`).join(", ");
  const asked = Date.now();
  const reply = await ask(`${tag}   ${bold(`Allow ${names}? [y/n] `)}`);
  // the demo's total time leaves out the time a person spent here
  writeFileSync(join(store, PROMPT_FILE), String(Date.now() - asked));
  if (reply === "interrupt" || reply === "eof") {
    say();
    say(`${tag} no answer (${reply === "eof" ? "the input ended" : "Ctrl-C"}): the turn stays waiting, saved`);
    // 130, as a shell reports Ctrl-C: the demo stops there; after Ctrl-D it goes on with the turn still waiting
    process.exit(reply === "interrupt" ? 130 : 0);
  }
  yes = /^\s*y/i.test(reply);
  by = (() => {
    try {
      return userInfo().username;
    } catch {
      return "you";
    }
  })();
} else {
  // FUNCTAI_DEMO_ANSWER=no makes the automatic answer a no (the test checks both)
  yes = !/^n/i.test(process.env.FUNCTAI_DEMO_ANSWER ?? "yes");
  say(`${tag}   stdin is not a terminal: answering ${yes ? "yes" : "no"}`);
}

const result = yes ? await turn.approve({ by }) : await turn.deny({ by, reason: "Not today: a manager will look at it." });
say(`${tag} ${yes ? "approved" : "denied"} by ${by}; the turn went on here and answered:`);
say(`${tag}   ${cyan(String(result))}`);
const asked = askedCount(lm);
say(`${tag}   in this process: find_order ran ${LOOKUPS.length}×, refund ran ${REFUNDS.length}×${asked === undefined ? "" : `, the model was asked ${asked}× (the replies before the wait came from the journal)`}`);
