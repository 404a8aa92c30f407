/**
 * Settings whose values cannot work are refused where they are given
 * (`configure`, `withSettings`, a conversation's options), with
 * `settings-invalid`, before any record is written or model paid: a
 * `maxTokens` of -1 or "500" would reach the provider (a 400, or a request
 * the fingerprint reads differently), an infinite temperature is sent as
 * `null`, and a `store` that is not a Store fails later with a TypeError.
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, configure, isFunctaiError, resetConfiguration, withSettings } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

afterEach(() => resetConfiguration());

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    return isFunctaiError(e) ? e.code : `not a FunctaiError: ${String(e)}`;
  }
  return "no error";
};

describe("settings values", () => {
  it.each([
    ["maxTokens", -1],
    ["maxTokens", 0],
    ["maxTokens", 1.5],
    ["maxTokens", Number.NaN],
    ["maxTokens", "500"],
    ["temperature", Number.POSITIVE_INFINITY],
    ["store", 42],
    ["store", ""],
    ["store", {}],
    ["store", { append: () => 1 }],
  ])("refuses %s: %s", (key, value) => {
    expect(codeOf(() => configure({ [key]: value } as never))).toBe("settings-invalid");
    expect(codeOf(() => withSettings({ [key]: value } as never, () => 1))).toBe("settings-invalid");
  });

  it("refuses a conversation's store that is not a Store before anything is asked", () => {
    const lm = scripted(["hi"]);
    const desk = ai("desk", { description: "Help.", input: { message: z.string() } });
    expect(codeOf(() => desk.conversation("sam", { store: 42 as never, lm }))).toBe("settings-invalid");
    expect(lm.requests).toHaveLength(0);
  });

  it("takes what works", () => {
    for (const s of [{ maxTokens: 1 }, { maxTokens: 4096 }, { temperature: 0 }, { temperature: 1.5 }, { store: "chats/" }, { store: memoryStore() }]) {
      expect(codeOf(() => configure(s))).toBe("no error");
    }
  });

  it("refuses settings that are not an object, where a text would have read as no settings at all", () => {
    for (const value of ["gpt-4.1-mini", 42, null, ["lm"]]) {
      expect(codeOf(() => configure(value as never)), String(value)).toBe("settings-invalid");
      expect(codeOf(() => withSettings(value as never, () => 1)), String(value)).toBe("settings-invalid");
    }
  });

  it("withSettings refuses a block that is not a function, with a FunctaiError", () => {
    expect(codeOf(() => withSettings({ temperature: 0 }, "desk" as never))).toBe("input-invalid");
  });
});
