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
import { postgresStore } from "../../adapters/postgres/index.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "../postgres/server.js";
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

  // FIXED (it was a violation, a silent fallback): the new schema cannot read the kept inputs ({ order } lacks amount),
  // and keptInputs (src/functions/definition.ts) handed the body the inputs as kept, unchecked: the body ran with
  // `amount` undefined, which its schema says is a number, and threw a plain TypeError (amount.toFixed) after the
  // approved refund ran. A program's kept inputs its schema no longer reads are now refused (input-invalid, naming
  // them) before the answer is written: the turn still waits, and the code it began with can go on with it.
  it("a required input added: the body never runs with an input its schema refuses; the error names the input; nothing is written", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-deploy-inputs-"));
    const { refunds, old, next, seen } = versions();
    const lm = scripted([{ toolCalls: [{ id: "r1", name: "refund", input: { order: "A-1" } }] }, "Refunded."]);
    expect(await old.conversation("p", { store: fsStore(dir), approve: "changes", lm }).send({ order: "A-1" }).catch((e: unknown) => e)).toBeInstanceOf(Waiting);
    const [turn] = await next.conversation("p", { store: fsStore(dir), lm }).turns();
    const out = await turn!.approve({ by: "maria" }).then((v) => ({ v }), (e: unknown) => ({ e }));
    expect(seen).not.toContain(undefined);
    expect("e" in out && out.e).toMatchObject({ code: "input-invalid", message: expect.stringContaining("amount") });
    expect(refunds).toEqual([]);
    expect(lm.requests).toHaveLength(1);
    // refused with nothing written: the turn still waits, and the code it began with goes on with it
    const [still] = await old.conversation("p", { store: fsStore(dir), lm }).turns();
    expect(still!.state).toBe("waiting");
    expect(await still!.approve({ by: "maria" })).toBe("Refunded.");
    expect(refunds).toEqual(["A-1"]);
    expect(seen).toEqual([]);
  });

  it("a required input added: resume() and stream() are refused the same way, with nothing written", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-deploy-inputs-"));
    const { old, next, seen } = versions();
    const lm = scripted([{ toolCalls: [{ id: "r1", name: "refund", input: { order: "A-1" } }] }, "Refunded."]);
    expect(await old.conversation("p", { store: fsStore(dir), approve: "changes", lm }).send({ order: "A-1" }).catch((e: unknown) => e)).toBeInstanceOf(Waiting);
    const [turn] = await next.conversation("p", { store: fsStore(dir), lm }).turns();
    await expect(turn!.resume()).rejects.toMatchObject({ code: "input-invalid", message: expect.stringContaining("amount") });
    expect(() => turn!.stream()).toThrow(expect.objectContaining({ code: "input-invalid" }));
    const [still] = await old.conversation("p", { store: fsStore(dir), lm }).turns();
    expect(still!.state).toBe("waiting");
    expect(seen).toEqual([]);
  });
});

describe.skipIf(NO_SERVER !== null)("a program's input schema changed under a waiting turn, on PostgreSQL (an answer is written before the turn is claimed)", () => {
  it("a required input added: approve() is refused before its answer is written; the code the turn began with goes on with it", async () => {
    const schema = freshSchema();
    const store = postgresStore({ connectionString: SERVER_URL! }, { schema });
    try {
      const { refunds, old, next, seen } = versions();
      const lm = scripted([{ toolCalls: [{ id: "r1", name: "refund", input: { order: "A-1" } }] }, "Refunded."]);
      expect(await old.conversation("p", { store, approve: "changes", lm }).send({ order: "A-1" }).catch((e: unknown) => e)).toBeInstanceOf(Waiting);
      const before = (await store.read("p")).length;
      const [turn] = await next.conversation("p", { store, lm }).turns();
      await expect(turn!.approve({ by: "maria" })).rejects.toMatchObject({ code: "input-invalid", message: expect.stringContaining("amount") });
      expect((await store.read("p")).length).toBe(before);
      const [still] = await old.conversation("p", { store, lm }).turns();
      expect(await still!.approve({ by: "maria" })).toBe("Refunded.");
      expect(refunds).toEqual(["A-1"]);
      expect(seen).toEqual([]);
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  });
});
