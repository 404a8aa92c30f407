/**
 * The browser example's log (examples/browser/src/log.ts) lives in
 * localStorage, which is the user's: an entry of another shape (an older
 * page's, one edited by hand) is left out, not drawn. Before, `drawLog()`
 * threw on it at page load and the page never came to life.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readLog } from "../../examples/browser/src/log.js";

const KEY = "functai-desk:log";
let kept: Map<string, string>;

beforeEach(() => {
  kept = new Map();
  (globalThis as { localStorage?: unknown }).localStorage = { getItem: (k: string) => kept.get(k) ?? null, setItem: (k: string, v: string) => void kept.set(k, v) };
});
afterEach(() => {
  delete (globalThis as { localStorage?: unknown }).localStorage;
});

describe("the browser example's log", () => {
  it("keeps the entries it can draw and leaves out the others", () => {
    const refund = { kind: "refund", order_id: "A-1", amount: 5, tab: "t1", at: "2026-12-03T10:00:00.000Z" };
    const run = { kind: "tool", name: "refund", invocation: 1, phase: "start", tab: "t1", at: "2026-12-03T10:00:00.000Z" };
    kept.set(KEY, JSON.stringify([null, refund, { kind: "refund", order_id: "A-2", tab: "t1", at: "x" }, 3, run, { kind: "tool", name: "x", phase: "middle", tab: "t", at: "x", invocation: 1 }]));
    expect(readLog()).toEqual([refund, run]);
  });

  it("a log that is not a list, or not JSON, is empty", () => {
    kept.set(KEY, "{}");
    expect(readLog()).toEqual([]);
    kept.set(KEY, "{not json");
    expect(readLog()).toEqual([]);
  });
});
