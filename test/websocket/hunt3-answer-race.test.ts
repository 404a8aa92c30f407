/**
 * Three companions answering the same waiting turns at the same instant,
 * round after round, over a folder store, while one of their keys is
 * revoked (`setKeys`) in the middle: each turn keeps exactly one answer,
 * the refund runs once for each yes kept, and every request settles with an
 * outcome or a coded error.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { connect, serve } from "../../adapters/websocket/index.js";
import { isFunctaiError, readConversation } from "../../src/index.js";
import { keeper, waitingDesk } from "./fixtures.js";

const keep = keeper();

const IDS = Array.from({ length: 12 }, (_, i) => `c${i}`);
const deadline = <T>(p: PromiseLike<T>): Promise<T | "hang"> => Promise.race([Promise.resolve(p), new Promise<"hang">((r) => setTimeout(() => r("hang"), 8000))]);

describe("companions racing to answer while a key is revoked", () => {
  it("12 rounds of yes / no / yes at once, the third key revoked at round 6: one answer per turn, one refund per yes kept, nothing left unsettled", async () => {
    const d = await waitingDesk(IDS, { store: fsStore(mkdtempSync(join(tmpdir(), "functai-hunt3-race-"))) });
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["k1", "k2"], port: 0 }));
    const a = keep(await connect(server.url, { key: "k1" }));
    const b = keep(await connect(server.url, { key: "k1" }));
    const c = keep(await connect(server.url, { key: "k2" }));
    const closes: number[] = [];
    c.on("close", (e) => closes.push(e.code));
    const waiting = await a.waiting();
    expect(waiting).toHaveLength(IDS.length);
    const codes: string[] = [];
    for (const [round, w] of waiting.entries()) {
      const ref = { conversation: w.conversation, turn: w.turn };
      const answers = [a.approve({ ...ref, by: "a" }), b.deny({ ...ref, by: "b", reason: "no" }), c.approve({ ...ref, by: "c" })];
      if (round === 6) server.setKeys(["k1"]); // while the three are on their way
      const settled = await Promise.all(answers.map((s) => deadline(Promise.resolve(s).then((v) => ({ v }), (e: unknown) => ({ e })))));
      expect(settled).not.toContain("hang");
      const outcomes = settled as ({ v: unknown } | { e: unknown })[];
      for (const o of outcomes) if ("e" in o) {
        expect(isFunctaiError(o.e)).toBe(true);
        codes.push((o.e as { code: string }).code);
      }
      const turn = readConversation(await d.store.read(w.conversation), { now: Date.now() }).turns.get(w.turn)!;
      expect(turn.answers).toHaveLength(1); // exactly one of the three was kept
      expect(turn.state).toBe("done");
      const kept = turn.answers[0]!;
      const winner = outcomes[["a", "b", "c"].indexOf(kept.by!)]!;
      // the one kept, if its companion was still connected to hear it, was told the turn's real answer
      if ("v" in winner) expect(winner.v).toBe(kept.verdict === "yes" ? "The last tool said: refunded 39.00 for A-1042" : "The last tool said: The person did not allow this call. Reason: no");
      else expect(kept.by).toBe("c"); // only the revoked companion may miss its reply (closed under it)
      expect(outcomes.filter((o) => "v" in o).length).toBeLessThanOrEqual(1);
      if (round > 6) expect(outcomes[2]).toMatchObject({ e: { code: expect.stringMatching(/^remote-(closed|auth)$/) } });
    }
    expect(closes).toEqual([4401]); // closed as revoked, and it did not come back
    for (const code of codes) expect(["approval-answered", "remote-closed", "remote-auth"]).toContain(code);
    const states = await Promise.all(IDS.map(async (id) => readConversation(await d.store.read(id), { now: Date.now() })));
    const yes = states.flatMap((s) => [...s.turns.values()].flatMap((t) => t.answers)).filter((x) => x.verdict === "yes").length;
    expect(d.REFUNDS).toHaveLength(yes);
    expect(await a.waiting()).toEqual([]);
  }, 30_000);
});
