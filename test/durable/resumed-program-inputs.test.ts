/**
 * A program's body is user code that runs again when its turn is resumed:
 * it must get the same inputs both times. The first run gets them as zod
 * parsed them; a resumed run reads them back from the turn record (JSON),
 * where a Date is a string. Parsed again by the program's input schema, it
 * gets what the first run got.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fsStore } from "../../adapters/node-fs/index.js";
import { ai, program, tool, Waiting } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

describe("a resumed program's inputs", () => {
  it("are what its first run got (a coerced Date stays a Date): the approved refund runs once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-dated-"));
    const refunds: string[] = [];
    const refund = tool("refund", { description: "Refund.", input: { order: z.string() }, effects: "changes" }, ({ order }) => {
      refunds.push(order);
      return "refunded";
    });
    const agent = ai("agent", { description: "Refund the order.", input: { order: z.string() }, tools: [refund] });
    const seen: string[] = [];
    const support = program("support", { description: "Refunds, dated.", input: { order: z.string(), since: z.coerce.date() } }, async ({ order, since }) => {
      seen.push(typeof since === "object" ? "Date" : typeof since);
      return `${await agent(order)} (since ${since.toISOString().slice(0, 10)})`;
    });
    const lm = scripted([{ toolCalls: [{ id: "r1", name: "refund", input: { order: "A-1042" } }] }, "Refunded A-1042."]);
    const chat = support.conversation("dated", { store: fsStore(dir), approve: "changes", lm });
    const waited = await chat.send({ order: "A-1042", since: "2026-11-30" }).catch((e: unknown) => e);
    expect(waited).toBeInstanceOf(Waiting);

    // another process: a fresh store and handle
    const [turn] = await support.conversation("dated", { store: fsStore(dir), lm }).turns();
    expect(await turn!.approve({ by: "maria" })).toBe("Refunded A-1042. (since 2026-11-30)");
    expect(seen).toEqual(["Date", "Date"]);
    expect(refunds).toEqual(["A-1042"]);
    expect(lm.requests).toHaveLength(2);
  });

  it("a transform that is not idempotent is not applied twice: the resumed body gets the kept value", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-marked-"));
    const refund = tool("refund", { description: "Refund.", input: { order: z.string() }, effects: "changes" }, () => "refunded");
    const agent = ai("agent", { description: "Refund the order.", input: { order: z.string() }, tools: [refund] });
    const seen: string[] = [];
    const support = program("support", { description: "Refunds.", input: { order: z.string().transform((o) => `${o}!`) } }, async ({ order }) => {
      seen.push(order);
      return agent(order);
    });
    const lm = scripted([{ toolCalls: [{ id: "r1", name: "refund", input: { order: "A-1042!" } }] }, "Refunded."]);
    const waited = await support.conversation("marked", { store: fsStore(dir), approve: "changes", lm }).send("A-1042").catch((e: unknown) => e);
    expect(waited).toBeInstanceOf(Waiting);
    const [turn] = await support.conversation("marked", { store: fsStore(dir), lm }).turns();
    expect(await turn!.approve({ by: "maria" })).toBe("Refunded.");
    expect(seen).toEqual(["A-1042!", "A-1042!"]);
    expect(lm.requests).toHaveLength(2);
  });
});
