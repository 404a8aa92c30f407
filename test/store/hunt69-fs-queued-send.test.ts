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
import { fsStore } from "../../adapters/node-fs/index.js";
import type { Store } from "../../src/store/types.js";
import { queuedSend } from "./fixtures/queued-send.js";

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

it("a send queued behind a running turn, the fs store closed under it: it waits, not spins; both turns answer", async () => {
  const dir = await mkdtemp(join(tmpdir(), "functai-hunt69-"));
  try {
    const fs = fsStore(dir, { pollMs: 10 });
    let waits = 0;
    const store: Store = { ...fs, wait: (c, after, ms) => (waits++, fs.wait!(c, after, ms)) };
    const { first, second, release } = await queuedSend(store, 300);
    await store.close!();
    const before = waits;
    await sleep(500);
    const during = waits - before;
    release();
    expect(await first).toBe("first It shipped.");
    expect(await second).toBe("second You are welcome.");
    // each wait of the queued send lasts a second (or until an append): in half a second, a few at most; spinning, hundreds
    expect(during, "the queued send spun on waits answered false at once").toBeLessThan(10);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
