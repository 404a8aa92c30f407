/**
 * Hunt: a deploy changes a program's input schema while one of its turns
 * waits for a person. The resumed body is user code of the new version: it
 * must get inputs its schema reads, or the turn must stop with a clear code;
 * never a body run with values its own schema refuses.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fsStore } from "../../adapters/node-fs/index.js";
import { ai, program, tool, Waiting } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

function versions() {
  const refunds: string[] = [];
  const refund = tool("refund", { description: "Refund.", input: { order: z.string() }, effects: "changes" }, ({ order }) => {
    refunds.push(order);
    return "refunded";
  });
  const agent = ai("agent", { description: "Refund the order.", input: { order: z.string() }, tools: [refund] });
  const old = program("support", { description: "Refunds.", input: { order: z.string() } }, async ({ order }) => agent(order));
  const seen: unknown[] = [];
  // the new code: a required input the old turn never had
  const next = program("support", { description: "Refunds.", input: { order: z.string(), amount: z.number() } }, async ({ order, amount }) => {
    seen.push(amount);
    return `${await agent(order)} (${amount.toFixed(2)})`;
  });
  return { refunds, old, next, seen };
}

describe("a program's input schema changed under a waiting turn", () => {
  it("unchanged (control): the approved refund runs once, the body gets its inputs", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-deploy-inputs-"));
    const { refunds, old } = versions();
    const lm = scripted([{ toolCalls: [{ id: "r1", name: "refund", input: { order: "A-1" } }] }, "Refunded."]);
    expect(await old.conversation("p", { store: fsStore(dir), approve: "changes", lm }).send({ order: "A-1" }).catch((e: unknown) => e)).toBeInstanceOf(Waiting);
    const [turn] = await old.conversation("p", { store: fsStore(dir), lm }).turns();
    expect(await turn!.approve({ by: "maria" })).toBe("Refunded.");
    expect(refunds).toEqual(["A-1"]);
    expect(lm.requests).toHaveLength(2);
  });

  // VIOLATION (a silent fallback): the new schema cannot read the kept inputs ({ order } lacks amount), and
  // keptInputs (src/functions/definition.ts) then hands the body the inputs as kept, unchecked: the body runs with
  // `amount` undefined, which its schema says is a number, and throws a plain TypeError (amount.toFixed) after the
  // approved refund ran: approve() rejects with that TypeError (no code, nothing saying why). The resume should refuse with a clear
  // code (input-invalid, naming `amount`) before the body runs, or at least never run the body with inputs its own
  // schema refuses.
  it.fails("a required input added: the body never runs with an input its schema refuses; the error names the input", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-deploy-inputs-"));
    const { refunds, old, next, seen } = versions();
    const lm = scripted([{ toolCalls: [{ id: "r1", name: "refund", input: { order: "A-1" } }] }, "Refunded."]);
    expect(await old.conversation("p", { store: fsStore(dir), approve: "changes", lm }).send({ order: "A-1" }).catch((e: unknown) => e)).toBeInstanceOf(Waiting);
    const [turn] = await next.conversation("p", { store: fsStore(dir), lm }).turns();
    const out = await turn!.approve({ by: "maria" }).then((v) => ({ v }), (e: unknown) => ({ e }));
    expect(seen).not.toContain(undefined);
    expect("e" in out && out.e).toMatchObject({ code: "input-invalid", message: expect.stringContaining("amount") });
    expect(refunds.length).toBeLessThanOrEqual(1);
  });
});
