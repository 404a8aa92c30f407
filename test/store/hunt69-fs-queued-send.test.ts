/**
 * A send queued behind a running turn on an fs store, the store closed under
 * it (a server's shutdown): the queued send waits on the store in a loop
 * (wait, read again, wait …). The fs store answered every wait begun after
 * its close false after one look at the file, so the loop spun, thousands of
 * waits and reads a second, until the running turn ended. Now each wait
 * waits (for an append, or its second): a few waits, and both turns answer.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { z } from "zod";
import { fsStore } from "../../adapters/node-fs/index.js";
import { ai, isFunctaiError, tool } from "../../src/index.js";
import type { Store } from "../../src/store/types.js";
import { scripted } from "../../src/testing/index.js";

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

it("a send queued behind a running turn, the fs store closed under it: it waits, not spins; both turns answer", async () => {
  const dir = await mkdtemp(join(tmpdir(), "functai-hunt69-"));
  try {
    const fs = fsStore(dir, { pollMs: 10 });
    let waits = 0;
    const store: Store = { ...fs, wait: (c, after, ms) => (waits++, fs.wait!(c, after, ms)) };
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const lookup = tool("lookup", { description: "Look the order up.", input: {}, effects: "reads" }, async () => {
      await gate;
      return "shipped";
    });
    const desk = ai("desk", { description: "Help the customer.", input: { message: z.string() }, tools: [lookup] });
    const chat = desk.conversation("sam", {
      store,
      lm: scripted([{ toolCalls: [{ name: "lookup", input: {} }] }, "It shipped.", "You are welcome."]),
    });

    const first = chat.send("Where is my order?");
    await sleep(300); // the first turn runs its tool
    const second = chat.send("Thanks!").then(
      (answer) => `second ${answer}`,
      (e: unknown) => `second ${isFunctaiError(e) ? e.code : String(e)}`,
    );
    await sleep(300); // the second waits in line behind it
    await store.close!();
    const before = waits;
    await sleep(500);
    const during = waits - before;
    release();
    expect(`first ${await first}`).toBe("first It shipped.");
    expect(await second).toBe("second You are welcome.");
    // each wait of the queued send lasts a second (or until an append): in half a second, a few at most; spinning, hundreds
    expect(during, "the queued send spun on waits answered false at once").toBeLessThan(10);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
