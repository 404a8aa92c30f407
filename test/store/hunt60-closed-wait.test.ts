/**
 * A memory store's `close` ends the waits pending then (false), as the
 * contract says. A wait begun after the close answered false at once, and
 * without a single turn of the event loop (the memory store does no I/O): a
 * caller that waits in a loop, as a send queued behind a running turn does,
 * never let anything else run. Closing the store while a send was queued
 * (a server's shutdown, `closeStores()`) froze the whole process at full
 * CPU: no timer fired, the running turn never finished. A wait begun after
 * the close now waits as any wait does: for an append, or its timeout.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { memoryStore } from "../../src/index.js";
import { rec } from "./contract.js";
import { spawnScript } from "./fs-children.js";

const child = fileURLToPath(new URL("./fixtures/hunt60-closed-child.ts", import.meta.url));

describe("memory store: a wait begun after close", () => {
  it("waits for an append or its timeout, as before the close (never answering at once)", async () => {
    const store = memoryStore();
    const pending = store.wait!("c", 0, 60_000);
    await store.close!();
    expect(await pending).toBe(false); // pending at the close: ended

    let settled: boolean | undefined;
    const later = store.wait!("c", 0, 60_000).then((v) => (settled = v));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(settled).toBeUndefined();
    await store.append("c", [rec()]);
    expect(await later).toBe(true);
    // its timeout still ends it
    expect(await store.wait!("c", 1, 50)).toBe(false);
  });

  it("a send queued behind a running turn, the store closed under it: the process goes on, both turns answer", async () => {
    const c = spawnScript(child, []);
    const stopped = new Promise<"stopped">((resolve) => {
      // generous: a child starting under a loaded machine takes seconds; the scenario itself takes under a second
      const timer = setTimeout(() => {
        c.proc.kill("SIGKILL");
        resolve("stopped");
      }, 45_000);
      void c.exited.then(() => clearTimeout(timer));
    });
    const ended = await Promise.race([c.exited.then(() => "exited" as const), stopped]);
    expect(c.lines, "the child froze after the close (killed)").toContain("released");
    expect(ended).toBe("exited");
    expect(c.lines).toEqual(["closed", "released", "first It shipped.", "second You are welcome.", "done"]);
  });
});
