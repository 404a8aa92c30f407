/**
 * A key narrowed by `setKeys` while one of its requests waits on the store
 * (the waiting list's scan, a turn's records): the reply is made under the
 * key's limits as they are when it is sent, never as they were when the
 * request came in. Before, a `waiting()` in flight across a `setKeys` that
 * limited its key to "sam" was answered with every conversation's turns,
 * after the companion had been pushed the list it may see now.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import type { Store } from "../../src/store/types.js";
import { keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

/** `store`, whose listing (the waiting list's scan) and reads wait for `open()` while `hold()` is in force. */
function gated(store: Store) {
  let gate: Promise<void> | null = null;
  let release = (): void => undefined;
  let held = 0;
  const wait = async (): Promise<void> => {
    if (gate) {
      held++;
      await gate;
    }
  };
  const wrapped: Store = {
    ...store,
    list: async () => (await wait(), store.list!()),
    read: async (id, after) => (await wait(), store.read(id, after)),
  };
  delete (wrapped as { lengths?: unknown }).lengths; // (scans list, then read: both held)
  return {
    store: wrapped,
    hold: () => (gate = new Promise<void>((r) => (release = r))),
    open: () => ((gate = null), release()),
    get held() {
      return held;
    },
  };
}

describe("a key narrowed while its request waits on the store", () => {
  it("waiting(): answered under the new limits, not the ones the request came in with", async () => {
    const d = await waitingDesk(["ana", "sam"]);
    const g = gated(d.store);
    const server = keep(await serve({ store: g.store, programs: [d.served], keys: ["admin", "k2"], port: 0, pollMs: 60_000 }));
    const app = keep(await connect(server.url, { key: "k2" }));
    expect((await app.waiting()).map((w) => w.conversation)).toEqual(["ana", "sam"]);

    g.hold();
    const asked = app.waiting(); // its scan waits on the store
    await until(() => g.held > 0);
    const pushed: string[][] = [];
    app.on("waiting", (list) => pushed.push(list.map((w) => w.conversation)));
    server.setKeys(["admin", { key: "k2", conversations: ["sam"] }]);
    await until(() => pushed.length > 0);
    expect(pushed.at(-1)).toEqual(["sam"]); // told what it may see now
    g.open();
    expect((await asked).map((w) => w.conversation)).toEqual(["sam"]); // before: ["ana", "sam"]
  });

  it("status(): a turn of a conversation the key lost meanwhile is refused (remote-forbidden), its state not sent", async () => {
    const d = await waitingDesk(["ana", "sam"]);
    const g = gated(d.store);
    const server = keep(await serve({ store: g.store, programs: [d.served], keys: ["admin", "k2"], port: 0, pollMs: 60_000 }));
    const app = keep(await connect(server.url, { key: "k2" }));
    const ana = (await app.waiting()).find((w) => w.conversation === "ana")!;

    g.hold();
    const asked = app.status({ conversation: "ana", turn: ana.turn }); // status reads ana's records: held
    await until(() => g.held > 0);
    server.setKeys(["admin", { key: "k2", conversations: ["sam"] }]);
    g.open();
    await expect(asked).rejects.toMatchObject({ code: "remote-forbidden" }); // before: ana's turn, as it stands
    await expect(app.status({ conversation: "ana", turn: ana.turn })).rejects.toMatchObject({ code: "remote-forbidden" });
  });

  it("status() of a turn not listed (done): the read of its records held, the key narrowed, then refused (remote-forbidden)", async () => {
    const d = await waitingDesk(["ana", "sam"]);
    const g = gated(d.store);
    const server = keep(await serve({ store: g.store, programs: [d.served], keys: ["admin", "k2"], port: 0, pollMs: 60_000 }));
    const app = keep(await connect(server.url, { key: "k2" }));
    const ana = (await app.waiting()).find((w) => w.conversation === "ana")!;
    expect(await app.approve({ conversation: "ana", turn: ana.turn })).toBe("The last tool said: refunded 39.00 for A-1042");
    await until(async () => (await app.waiting()).length === 1); // ana's turn is done: no longer listed

    g.hold();
    const asked = app.status({ conversation: "ana", turn: ana.turn });
    await until(() => g.held > 0);
    server.setKeys(["admin", { key: "k2", conversations: ["sam"] }]);
    g.open();
    await expect(asked).rejects.toMatchObject({ code: "remote-forbidden" }); // before: its state and value
  });

  it("an owner call into a conversation: the key's programs narrowed while the conversation is read, the call is refused and never runs", async () => {
    const d = await waitingDesk(["ana"]);
    const g = gated(d.store);
    const server = keep(
      await serve({ store: g.store, programs: [d.served], keys: ["admin", { key: "k2", programs: ["desk"] }], port: 0, pollMs: 60_000 }),
    );
    const app = keep(await connect(server.url, { key: "k2" }));
    const lookups = d.LOOKUPS.length;

    g.hold();
    const called = app.call("desk", { message: "Where is A-1042?" }, { conversation: "bo" }); // may it join bo? bo is read: held
    await until(() => g.held > 0);
    server.setKeys(["admin", { key: "k2", programs: ["other"] }]);
    await until(() => app.programs.length === 0);
    g.open();
    await expect(called.outcome).rejects.toMatchObject({ code: "remote-forbidden" }); // before: it ran, under a key that may no longer call desk
    expect(d.LOOKUPS).toHaveLength(lookups);
    expect(await d.store.read("bo")).toEqual([]);
  });
});
