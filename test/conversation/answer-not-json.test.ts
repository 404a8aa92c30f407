/**
 * A turn whose answer JSON cannot say (a program whose output is a BigInt)
 * cannot be kept in its conversation: it fails with `output-invalid` and is
 * recorded failed, on every store. Before, the `ended` record failed when
 * written (the file store's input-invalid, "record 1 of the batch is not
 * JSON"), and the turn was left without its end.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fsStore } from "../../adapters/node-fs/index.js";
import { memoryStore, program, type Store } from "../../src/index.js";

const count = program("count", { description: "Counts the words, exactly.", input: { text: z.string() }, output: z.bigint() }, ({ text }) => BigInt(text.split(/\s+/).length));

describe("an answer JSON cannot say", () => {
  for (const [name, make] of [["memory", () => ({ store: memoryStore(), done: () => undefined })], ["files", () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-answer-"));
    return { store: fsStore(dir) as Store, done: () => rmSync(dir, { recursive: true, force: true }) };
  }]] as const) {
    it(`is output-invalid, and the turn is recorded failed (${name} store)`, async () => {
      const { store, done } = make();
      try {
        expect(await count("a b c")).toBe(3n); // a plain call keeps nothing: its answer is as it is
        const chat = count.conversation("c", { store });
        await expect(chat.send("a b c")).rejects.toMatchObject({ code: "output-invalid", message: expect.stringMatching(/cannot be kept in the conversation/) });
        const [turn] = await chat.turns();
        expect(turn!.state).toBe("failed");
        expect(turn!.error).toMatchObject({ code: "output-invalid" });
      } finally {
        done();
      }
    });
  }
});
