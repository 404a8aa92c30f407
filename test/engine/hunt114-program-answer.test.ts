/**
 * A program's answer, in a conversation, is kept in its turn's `ended`
 * record as JSON: a keyed retry, `turn.value` and the next turn's history
 * (in this process or another) read it back from there. The caller of the
 * live `send` is handed the body's own value.
 *
 * Found by hunt 114: an answer holding NaN was handed to the live caller as
 * NaN and read back as null by every later reader. Decided (the lead): such
 * an answer is refused (`output-invalid`, naming where), as a tool's output
 * holding one is; nothing is kept as the turn's answer. An answer the
 * program goes on changing is its own object for the live caller, and what
 * was kept for later readers (pinned here; the README says so).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { fsStore } from "../../adapters/node-fs/index.js";
import { type FunctaiError, program } from "../../src/index.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-h114-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("a program's answer: the live caller and a keyed retry from a fresh conversation", () => {
  it("an answer holding NaN is refused (output-invalid), and a keyed retry is refused the same way", async () => {
    const quote = program("quote", { description: "A quote.", input: { id: z.string() }, output: z.any() }, () => ({ price: Number.NaN }));
    const failed = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: unknown) => e as FunctaiError,
      );
    const live = await failed(quote.conversation("c", { store: fsStore(dir) }).send({ id: "A" }, { key: "k" }));
    expect(live?.code).toBe("output-invalid");
    expect(live?.message).toContain("price is NaN");
    const again = await failed(quote.conversation("c", { store: fsStore(dir) }).send({ id: "A" }, { key: "k" }));
    expect(again?.code).toBe("output-invalid");
    const turns = await quote.conversation("c", { store: fsStore(dir) }).turns();
    expect(turns.map((t) => t.state)).toEqual(["failed"]);
  });

  it("an answer the program goes on changing: the live caller has the program's own object, a keyed retry what was kept", async () => {
    const cache = { status: "open" };
    const look = program("look", { description: "Look.", input: { id: z.string() }, output: z.any() }, () => cache);
    const live = await look.conversation("c", { store: fsStore(dir) }).send({ id: "A" }, { key: "k" });
    cache.status = "closed";
    const again = await look.conversation("c", { store: fsStore(dir) }).send({ id: "A" }, { key: "k" });
    expect(again).toEqual({ status: "open" });
    expect(live).toBe(cache);
  });
});
