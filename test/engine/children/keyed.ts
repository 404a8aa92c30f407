/**
 * The desk both sides of the idempotency-key test use: `pay` (changes) hands
 * its `ctx.idempotencyKey` to `onPay`. Run as a script (`keyed.ts <dir>`), a
 * child sends one turn whose `pay` prints "key <key>" and then never ends,
 * so the test can SIGKILL it inside the tool.
 */
import { z } from "zod";
import { fsStore } from "../../../adapters/node-fs/index.js";
import { ai, tool } from "../../../src/index.js";
import { scripted } from "../../../src/testing/index.js";

export const LEASE = { renewMs: 50, ttlMs: 300 };

/** The desk; `onPay(key)` is what `pay` does (what it returns, the model sees). */
export function keyedDesk(onPay: (key: string) => unknown) {
  const pay = tool("pay", { description: "Pay an amount.", input: { amount: z.number() }, effects: "changes" }, ({ amount: _ }, ctx) => onPay(ctx.idempotencyKey));
  return ai("desk", { description: "Pay what is asked.", input: { q: z.string() }, tools: [pay] });
}

/** The model's first reply: one call to `pay`. */
export const PAY_CALL = { toolCalls: [{ name: "pay", input: { amount: 5 } }] };

const [dir] = process.argv.slice(2);
if (dir !== undefined && process.argv[1]?.endsWith("keyed.ts")) {
  const desk = keyedDesk((key) => {
    process.stdout.write(`key ${key}\n`);
    return new Promise(() => setInterval(() => undefined, 1_000_000)); // never returns: killed here
  });
  await desk.conversation("keyed", { store: fsStore(dir, { lockStaleMs: 200 }), lm: scripted([PAY_CALL, "paid"]), lease: LEASE }).send("pay 5");
}
