/**
 * The `lease` setting of a conversation, checked before anything is
 * written or paid for: a lease that cannot work (a time of 0 or less, one
 * that is not a number, one past what a timer can wait) is refused
 * `settings-invalid`, never a RangeError from deep inside, nor a lease
 * renewed every millisecond.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, configure, FunctaiError, resetConfiguration, type LeaseSettings } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

const desk = ai("desk", { description: "Answer.", input: { ask: z.string() } });

const BAD: unknown[] = [
  { renewMs: 0, ttlMs: 30_000 },
  { renewMs: -1, ttlMs: 30_000 },
  { renewMs: Number.NaN, ttlMs: 30_000 },
  { renewMs: 10_000, ttlMs: Number.NaN },
  { renewMs: 10_000, ttlMs: 0 },
  { renewMs: 10_000, ttlMs: Number.POSITIVE_INFINITY },
  { renewMs: 3_000_000_000, ttlMs: 9_000_000_000 }, // past what a timer waits: it would fire every millisecond
  { renewMs: "10" },
  5_000,
];

const refused = { code: "settings-invalid" };
/** A setting as a test's name shows it (NaN and Infinity as themselves). */
const named = (lease: unknown): string => JSON.stringify(lease, (_k, v: unknown) => (typeof v === "number" && !Number.isFinite(v) ? String(v) : v));

describe("lease settings", () => {
  for (const lease of BAD) {
    it(`send refuses lease ${named(lease)} before any record or model call`, async () => {
      const store = memoryStore();
      const lm = scripted(["hi"]);
      const sent = desk.conversation("c", { store, lm }).send("hello", { lease: lease as LeaseSettings });
      await expect(sent).rejects.toBeInstanceOf(FunctaiError);
      await expect(sent).rejects.toMatchObject(refused);
      expect(lm.requests).toHaveLength(0);
      expect(await store.read("c")).toEqual([]);
    });
  }

  it("a stream refuses it too, before any record or model call (when called, as for any other setting)", async () => {
    const store = memoryStore();
    const lm = scripted(["hi"]);
    expect(() => desk.conversation("c", { store, lm }).stream("hello", { lease: { renewMs: 0 } })).toThrow(expect.objectContaining(refused));
    expect(lm.requests).toHaveLength(0);
    expect(await store.read("c")).toEqual([]);
  });

  it("configure() and fn.using() refuse it at once, as every other setting", () => {
    try {
      expect(() => configure({ lease: { renewMs: 0 } })).toThrow(expect.objectContaining(refused));
    } finally {
      resetConfiguration();
    }
    expect(() => desk.using({ lease: { ttlMs: Number.NaN } })).toThrow(expect.objectContaining(refused));
  });

  it("a conversation opened with one is refused when opened", () => {
    expect(() => desk.conversation("c", { store: memoryStore(), lease: { ttlMs: -5 } })).toThrow(expect.objectContaining(refused));
  });

  it("a lease renewed more slowly than it lasts is allowed (tests of interrupted turns rely on it); partial settings take the defaults", async () => {
    const store = memoryStore();
    expect(await desk.conversation("c", { store, lm: scripted(["hi"]), lease: { renewMs: 1_000, ttlMs: 30 } }).send("hello")).toBe("hi");
    expect(await desk.conversation("c", { store, lm: scripted(["ho"]), lease: { ttlMs: 60_000 } }).send("again")).toBe("ho");
    const leases = (await store.read("c")).filter((r) => r.kind === "lease") as unknown as { turn: string; at: string; until: string }[];
    const turns = [...new Set(leases.map((l) => l.turn))];
    expect(turns).toHaveLength(2);
    // each turn's leases by its own settings: its first (the claim) lasts the ttl from when it is written. A loaded
    // machine may renew the first turn's 30 ms lease (a send slower than renewMs): a renewal's `until` is taken as
    // its write starts and its `at` when it is written, so it lasts the ttl or a little less, never more
    const lasts = turns.map((t) => leases.filter((l) => l.turn === t).map((l) => Date.parse(l.until) - Date.parse(l.at)));
    expect(lasts.map((l) => l[0])).toEqual([30, 60_000]);
    for (const [i, ttl] of [30, 60_000].entries()) for (const last of lasts[i]!) expect(last).toBeLessThanOrEqual(ttl);
  });
});
