/**
 * `lease: { renewMs?, ttlMs? }`: two settings in one, each with its default
 * (renew every 10 s, last 30 s). Layered, a nearer `lease` replaced a farther
 * one as a whole, so a key the nearer one left out went back to its default,
 * not to what the farther layer set: `configure({ lease: { ttlMs: 120_000 } })`
 * (slow hosts) and a conversation's `lease: { renewMs: 60_000 }` ran its turns
 * with leases of 30 s renewed every 60 s, so each running turn read
 * `interrupted` for half of every minute (a turn another process may claim
 * and run again) although no layer asked for a lease shorter than its renewal.
 * Each key now comes from the nearest layer that gives it; a layer's lease
 * that gives both is taken as it is.
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, configure, resetConfiguration, withSettings } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";
import { mergeSettings } from "../../src/settings.js";

afterEach(() => resetConfiguration());

const desk = ai("desk", { description: "Answer.", input: { ask: z.string() } });

/** How long the first lease of each turn in `c` lasts (its claim: `until` − `at`), in ms. */
async function firstLeases(store: ReturnType<typeof memoryStore>): Promise<number[]> {
  const leases = (await store.read("c")).filter((r) => r.kind === "lease") as unknown as { turn: string; at: string; until: string }[];
  const turns = [...new Set(leases.map((l) => l.turn))];
  return turns.map((t) => {
    const first = leases.find((l) => l.turn === t)!;
    return Date.parse(first.until) - Date.parse(first.at);
  });
}

describe("a lease given in two layers", () => {
  it("configure's ttlMs holds when a conversation gives only renewMs (it went back to 30 s)", async () => {
    configure({ lease: { ttlMs: 120_000 } });
    const store = memoryStore();
    expect(await desk.conversation("c", { store, lm: scripted(["hi"]), lease: { renewMs: 60_000 } }).send("hello")).toBe("hi");
    expect(await firstLeases(store)).toEqual([120_000]);
  });

  it("withSettings' ttlMs holds when the call gives only renewMs", async () => {
    const store = memoryStore();
    const chat = desk.conversation("c", { store, lm: scripted(["hi"]) });
    expect(await withSettings({ lease: { ttlMs: 90_000 } }, () => chat.send("hello", { lease: { renewMs: 45_000 } }))).toBe("hi");
    expect(await firstLeases(store)).toEqual([90_000]);
  });

  it("each key from the nearest layer that gives it", () => {
    expect(mergeSettings({ lease: { renewMs: 5_000, ttlMs: 120_000 } }, { lease: { renewMs: 60_000 } }).lease).toEqual({
      renewMs: 60_000,
      ttlMs: 120_000,
    });
    expect(mergeSettings({ lease: { ttlMs: 120_000 } }, { lease: { renewMs: 1_000, ttlMs: 3_000 } }).lease).toEqual({
      renewMs: 1_000,
      ttlMs: 3_000,
    });
    expect(mergeSettings({ lease: { ttlMs: 120_000 } }).lease).toEqual({ ttlMs: 120_000 });
  });
});
