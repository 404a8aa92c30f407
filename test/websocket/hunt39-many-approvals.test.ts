/**
 * A companion that approves many turns at once (a person's "approve all" over
 * 150 waiting turns) sends each answer as a frame of its own. Past the
 * server's burst, the frames were refused as too many and each refusal was a
 * strike: past 20 the server closed the connection (4429) and the answers
 * that were running were told to the companion as `remote-closed`, though
 * they ran. An answer that ran is never told as failed or lost.
 */
import { describe, expect, it } from "vitest";
import { connect } from "../../adapters/websocket/index.js";
import { keeper } from "./fixtures.js";
import { servedMany } from "./fixtures/hunt39-kit.js";

const keep = keeper();

describe("approving 150 waiting turns at once", () => {
  it("never tells an answer that ran as failed, and the connection is not closed as abusive", async () => {
    const { d, server, app, closes } = await servedMany(150, keep);
    const list = await app.waiting();
    expect(list).toHaveLength(150);
    const results = await Promise.all(
      list.map((w) =>
        app.approve({ conversation: w.conversation, turn: w.turn, by: "maria" }).outcome.then(
          (o) => ({ conversation: w.conversation, turn: w.turn, ok: true as const, state: o.state, code: "" }),
          (e: { code: string }) => ({ conversation: w.conversation, turn: w.turn, ok: false as const, state: "", code: e.code }),
        ),
      ),
    );
    expect(closes).toEqual([]);
    // each turn as the store has it now: one that ran on (done) was answered, and its answer must say so
    const reader = await connect(server.url);
    keep(reader);
    const told: string[] = [];
    for (const r of results) {
      await new Promise((res) => setTimeout(res, 25)); // (this reader keeps under the server's rate by itself)
      const now = await reader.status({ conversation: r.conversation, turn: r.turn });
      if (now.state !== "waiting" && !r.ok) told.push(`${r.conversation}: ran (${now.state}) but told ${r.code}`);
    }
    expect(told).toEqual([]);
    expect(results.filter((r) => !r.ok).map((r) => r.code)).toEqual([]);
    expect(d.REFUNDS).toHaveLength(150);
  }, 60_000);
});
