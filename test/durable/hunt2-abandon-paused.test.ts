/**
 * Hunt: a holder on this host that stops dead (its event loop blocked) at an
 * exact moment, past its lease, so its turn reads `running` with
 * `stalled: true`; a person abandons it here. Woken, the holder must stop
 * before its next record or side effect: no refund runs, nothing is
 * written after the abandon, the turn reads abandoned.
 */
import { existsSync, writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { scripted } from "../../src/testing/index.js";
import { hereDesk, paths, refunds, startBlockChild, until } from "./fixtures/hunt-block.js";
import { removeBundles } from "./fixtures/spawn.js";

afterAll(removeBundles);
const LEASE = { renewMs: 50, ttlMs: 300 };

describe("a stalled turn abandoned here while its holder (alive, this host) is stopped dead", () => {
  for (const blockAt of ["started", "reply"] as const) {
    const where = blockAt === "started" ? "just after its refund's started record was kept" : "in its model call, the refund call's reply in hand (not yet kept)";
    it(`stopped ${where}: woken, it runs no refund and writes nothing; the turn reads abandoned`, async () => {
      const p = paths();
      const child = await startBlockChild({ dir: p.dir, conversation: "a", blockAt, blocked: p.blocked, go: p.go, effects: p.effects, lease: LEASE }, false);
      try {
        await until("the child stopped", () => existsSync(p.blocked));
        const store = fsStore(p.dir);
        const lm = scripted([]);
        const chat = hereDesk(p.effects).conversation("a", { store, lm, lease: LEASE });
        await until("the turn reads stalled (its lease ran out, its pid runs)", async () => (await chat.turns())[0]?.stalled === true);
        const [turn] = await chat.turns();
        expect(turn!.state).toBe("running");
        await expect(turn!.resume({ rerun: [1] })).rejects.toMatchObject({ code: "turn-state" });
        await turn!.abandon();
        const length = (await store.read("a")).length;
        writeFileSync(p.go, "");
        const end = await child.done;
        expect(end.out, end.stderr).toMatchObject({ error: "lease-lost", requests: 1 });
        expect(refunds(p.effects)).toEqual([]); // the refund never ran, before or after the abandon
        expect((await store.read("a")).length).toBe(length); // nothing written after the abandon
        const [after] = await chat.turns();
        expect(after!.state).toBe("abandoned");
        expect(lm.requests).toHaveLength(0);
      } finally {
        child.proc.kill("SIGKILL");
      }
    });
  }
});
