/**
 * Hunt 6, on a real PostgreSQL server: several Node processes (hosts, as in
 * hosts.test.ts, with its host fixture) act on the same waiting turn at the
 * same moment, some approving it and some resuming it. README ("Many hosts":
 * a claim takes the turn's lock with one try, which refuses at once,
 * `turn-claimed`, while another host holds it; "an approval through any of
 * them runs the turn once") says: the refund and the notify run once, the
 * model is never paid twice for a step, and each host gets an answer or an
 * error with a code (never a hang, never a crash).
 */
import { afterAll, describe, expect, it } from "vitest";
import { fileLog } from "../durable/fixtures/world.js";
import { removeBundles } from "../durable/fixtures/spawn.js";
import { DESK, effectsDir, recordsOf, startHost } from "./fixtures/hosts.js";
import { NO_SERVER, dropSchema, freshSchema } from "./server.js";

afterAll(removeBundles);
const LONG_LEASE = { renewMs: 20_000, ttlMs: 60_000 };

/** Each tool's runs, from the side-effect log. */
const runs = (effects: string): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const [k, n] of fileLog(effects).all()) out[k.split("|")[0]!] = (out[k.split("|")[0]!] ?? 0) + n;
  return out;
};

describe.skipIf(NO_SERVER !== null)("hosts approving and resuming one waiting turn at once", () => {
  it("two approve and two resume at the same moment: the refund and notify run once, one host finishes it, every host is answered with a code", async () => {
    const schema = freshSchema();
    const effects = effectsDir();
    const spec = { ...DESK, approve: ["refund"] };
    const base = { schema, conversation: "both", spec, input: "Refund A-9", effects, lease: LONG_LEASE };
    try {
      const first = await (await startHost({ ...base, app: "h6-sender", action: "send" })).done;
      expect(first.out, first.stderr).toMatchObject({ waiting: ["refund"], state: "waiting" });
      const goAt = Date.now() + 3_500;
      const actions = ["approve", "resume", "approve", "resume"] as const;
      const racers = await Promise.all(actions.map((action, i) => startHost({ ...base, app: `h6-${action}-${i}`, action, goAt }, 30_000)));
      const outs = (await Promise.all(racers.map((r) => r.done))).map((e, i) => ({ action: actions[i], out: e.out, stderr: e.stderr }));
      const shown = JSON.stringify(outs.map((o) => ({ action: o.action, out: o.out })));
      for (const o of outs) {
        expect(o.out, o.stderr).not.toBeNull();
        expect(o.out!.violations, shown).toEqual([]);
        // a resume of a turn still waiting for its person waits again (Waiting); an approval never does
        if (o.out!.waiting !== undefined) expect(o.action, shown).toBe("resume");
        if (o.out!.error !== undefined) expect(["turn-claimed", "turn-state", "lease-lost", "approval-answered"], shown).toContain(o.out!.error);
      }
      const won = outs.filter((o) => o.out && "ok" in o.out);
      expect(won.length, shown).toBe(1);
      // most often an approver runs it on; a resume that reads the turn between an approval's record and its
      // approver's claim may take it on instead (the person's yes is kept, nothing waits), and the approver is then
      // told turn-claimed: either way, one host runs it
      expect(["approve", "resume"], shown).toContain(won[0]!.action);
      expect(runs(effects), shown).toEqual({ find: 1, refund: 1, notify: 1 });
      const records = await recordsOf(schema, "both");
      expect(records.filter((r) => r.kind === "approval" && r.verdict === "yes").length, shown).toBe(1);
      expect(records.filter((r) => r.kind === "ended").map((r) => r.state), shown).toEqual(["done"]);
    } finally {
      await dropSchema(schema);
    }
  }, 60_000);
});
