import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { connect, serve } from "../../adapters/websocket/index.js";
import { readConversation } from "../../src/index.js";
import { keeper, waitingDesk } from "./fixtures.js";

const keep = keeper();

const IDS = ["c1", "c2", "c3", "c4", "c5"];

describe("two companions racing to answer one approval", () => {
  it("exactly one answer is applied; the other gets approval-answered (one server)", async () => {
    const { served, store, REFUNDS } = await waitingDesk(IDS);
    const server = keep(await serve({ store, programs: [served], keys: ["k1"], port: 0 }));
    const a = keep(await connect(server.url, { key: "k1" }));
    const b = keep(await connect(server.url, { key: "k1" }));
    const waiting = await a.waiting();
    expect(waiting).toHaveLength(IDS.length);
    for (const w of waiting) {
      const ref = { conversation: w.conversation, turn: w.turn };
      // one says yes, the other no, at once: whichever is kept, only it may show
      const results = await Promise.allSettled([Promise.resolve(a.approve({ ...ref, by: "a" })), Promise.resolve(b.deny({ ...ref, by: "b", reason: "no" }))]);
      const fulfilled = results.filter((r) => r.status === "fulfilled");
      const rejected = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
      expect(fulfilled).toHaveLength(1);
      expect(rejected).toHaveLength(1);
      expect(rejected[0]!.reason).toMatchObject({ code: "approval-answered" });
      const turn = readConversation(await store.read(w.conversation), { now: Date.now() }).turns.get(w.turn)!;
      expect(turn.answers).toHaveLength(1);
      expect(turn.state).toBe("done");
      const kept = turn.answers[0]!.verdict;
      expect((fulfilled[0] as PromiseFulfilledResult<unknown>).value).toBe(
        kept === "yes" ? "The last tool said: refunded 39.00 for A-1042" : "The last tool said: The person did not allow this call. Reason: no",
      );
    }
    // a refund ran once for each yes kept, never twice
    const yes = (await Promise.all(IDS.map(async (id) => readConversation(await store.read(id), { now: Date.now() }))))
      .flatMap((s) => [...s.turns.values()].flatMap((t) => t.answers)).filter((x) => x.verdict === "yes").length;
    expect(REFUNDS).toHaveLength(yes);
  });

  it("exactly one is applied when two servers share a folder store", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-ws-race-"));
    const first = await waitingDesk(IDS, { store: fsStore(dir) });
    const second = await waitingDesk([], { store: fsStore(dir) }); // its own model, its own store handle: another process, as far as the store can tell
    const s1 = keep(await serve({ store: first.store, programs: [first.served], port: 0 }));
    const s2 = keep(await serve({ store: second.store, programs: [second.served], port: 0 }));
    const a = keep(await connect(s1.url));
    const b = keep(await connect(s2.url));
    for (const w of await a.waiting()) {
      const ref = { conversation: w.conversation, turn: w.turn };
      const results = await Promise.allSettled([Promise.resolve(a.approve(ref)), Promise.resolve(b.approve(ref))]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      const refused = results.find((r): r is PromiseRejectedResult => r.status === "rejected")!;
      expect(refused.reason).toMatchObject({ code: "approval-answered" });
    }
    expect(first.REFUNDS.length + second.REFUNDS.length).toBe(IDS.length); // once per turn, in whichever server won
  });
});
