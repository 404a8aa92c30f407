/** `serve` refused: a FunctaiError with a code, and nothing of the refused server left running. */
import { afterEach, describe, expect, it } from "vitest";
import { serve } from "../../adapters/websocket/index.js";
import { FunctaiError, type Store } from "../../src/index.js";
import { waitingDesk } from "./fixtures.js";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

describe("serve where it cannot listen", () => {
  it("a port in use or out of range rejects with settings-invalid, and the refused server stops looking at the store", async () => {
    const d = await waitingDesk(["sam"]);
    const first = await serve({ store: d.store, programs: [d.served], port: 0 });
    open.push(first);
    let lists = 0;
    const counted: Store = { ...d.store, list: () => (lists++, d.store.list!()) };
    for (const port of [first.port, 70_000]) {
      const e = await serve({ store: counted, programs: [d.served], port, pollMs: 10 }).then(() => null, (x: unknown) => x);
      expect(e).toBeInstanceOf(FunctaiError);
      expect(e).toMatchObject({ code: "settings-invalid" });
    }
    const after = lists;
    await new Promise((r) => setTimeout(r, 200));
    expect(lists).toBe(after); // no polling left behind
  });
});
