/**
 * Settings given with a key that is not one (DESIGN "Public API": wrong
 * inputs are refused with a FunctaiError with a stable code before any
 * model call; settings are `lm`, `temperature`, `maxSteps`, `toolErrors`,
 * `approve`, `plugins`, `lease`, …; `lease: { renewMs, ttlMs }`).
 * `configure` and `withSettings` take settings and nothing else, so a
 * misspelt key (`aprove: "changes"`) is refused (`settings-invalid`), where
 * it was dropped: every approval silently off. So is a misspelt key of
 * `lease` (`{ ttl: 3_000 }` ran with the default 30 s lease), wherever a
 * lease is given.
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, configure, FunctaiError, resetConfiguration, tool, withSettings, type Settings } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";
import { errorOf } from "../fixtures/refused.js";

afterEach(() => resetConfiguration());

function refundDesk() {
  const REFUNDS: string[] = [];
  const refund = tool("refund", { description: "Refund.", input: { order_id: z.string() }, effects: "changes" }, ({ order_id }) => {
    REFUNDS.push(order_id);
    return "refunded";
  });
  const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [refund] });
  const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1" } }] }, "Done."]);
  return { desk, lm, REFUNDS };
}

describe("configure and withSettings: a key that is not a setting", () => {
  const slips: Record<string, unknown>[] = [{ aprove: "changes" }, { maxStep: 2 }, { temperature: 0, Temperature: 1 }, { model: "gpt-4.1-mini" }];

  it("configure refuses it (settings-invalid, naming the key) and keeps what was configured before", async () => {
    const { desk, lm, REFUNDS } = refundDesk();
    configure({ approve: () => "configured before" });
    for (const slip of slips) {
      const e = errorOf(() => configure(slip as Settings));
      expect(e, JSON.stringify(slip)).toBeInstanceOf(FunctaiError);
      expect(e).toMatchObject({ code: "settings-invalid", message: expect.stringContaining(Object.keys(slip).at(-1)!) });
    }
    // the temperature of { temperature: 0, Temperature: 1 } was not taken either: all or nothing
    expect(await desk("Refund A-1.", { lm })).toBe("Done.");
    expect(REFUNDS).toEqual([]);
    expect(lm.requests[0]!.temperature).toBeUndefined();
  });

  it("withSettings refuses it (settings-invalid) before its block runs: nothing is asked or run", () => {
    const { desk, lm, REFUNDS } = refundDesk();
    for (const slip of slips) {
      let ran = false;
      const e = errorOf(() =>
        withSettings(slip as Settings, () => {
          ran = true;
          return desk("Refund A-1.", { lm });
        }),
      );
      expect(e, JSON.stringify(slip)).toMatchObject({ code: "settings-invalid", message: expect.stringContaining(Object.keys(slip).at(-1)!) });
      expect(ran).toBe(false);
    }
    expect(lm.requests).toHaveLength(0);
    expect(REFUNDS).toEqual([]);
  });

  it("every setting as documented is still taken", () => {
    const all: Settings = {
      lm: scripted([]),
      temperature: 0,
      maxTokens: 100,
      maxSteps: 3,
      toolErrors: "raise",
      approve: "changes",
      plugins: [],
      lease: { renewMs: 1_000, ttlMs: 3_000 },
      store: memoryStore(),
    };
    expect(errorOf(() => configure(all))).toBe("no error");
    expect(errorOf(() => withSettings(all, () => 1))).toBe("no error");
    expect(errorOf(() => configure({ lm: undefined } as unknown as Settings))).toBe("no error");
  });
});

describe("lease: a key that is not renewMs or ttlMs", () => {
  const slips: unknown[] = [{ ttl: 3_000 }, { renewMs: 1_000, ttlms: 3_000 }, [1_000, 3_000]];

  it("is refused (settings-invalid) wherever a lease is given, before anything is written or asked", async () => {
    for (const lease of slips) {
      const s = { lease } as Settings;
      const what = JSON.stringify(lease);
      const { desk, lm } = refundDesk();
      const store = memoryStore();
      expect(
        errorOf(() => configure(s)),
        what,
      ).toMatchObject({ code: "settings-invalid" });
      expect(
        errorOf(() => withSettings(s, () => 1)),
        what,
      ).toMatchObject({ code: "settings-invalid" });
      expect(
        errorOf(() => desk.using(s)),
        what,
      ).toMatchObject({ code: "settings-invalid" });
      expect(
        errorOf(() => desk.conversation("c", { store, lm, ...s })),
        what,
      ).toMatchObject({ code: "settings-invalid" });
      const sent = await desk
        .conversation("c", { store, lm })
        .send("Refund A-1.", s)
        .catch((e: unknown) => e);
      expect(sent, what).toMatchObject({ code: "settings-invalid" });
      expect(lm.requests, what).toHaveLength(0);
      expect(await store.read("c"), what).toEqual([]);
    }
  });

  it("a lease as documented is still taken, each key or both", () => {
    for (const lease of [{}, { renewMs: 1_000 }, { ttlMs: 3_000 }, { renewMs: 1_000, ttlMs: 3_000 }])
      expect(errorOf(() => configure({ lease }))).toBe("no error");
  });
});
