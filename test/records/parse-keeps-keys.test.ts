/**
 * parseRecord and checkNewRecord give back the record they were given, every
 * key kept: a key named `__proto__` (JSON.parse makes one, as any key) is
 * data, and a copy made through zod would drop it (a host that reads records
 * and writes them elsewhere would lose it).
 */
import { describe, expect, it } from "vitest";
import { checkNewRecord, parseRecord } from "../../src/index.js";

const text =
  '{"functai_conversation":1,"at":"2026-09-30T10:00:00.000Z","kind":"turn","turn":"t1","parent":null,"program":"v1",' +
  '"inputs":{"__proto__":{"admin":true},"question":"hi"},"__proto__":{"note":"kept"}}';

describe("records keep every key", () => {
  it("parseRecord keeps own __proto__ keys (top level and in inputs) as keys", () => {
    const raw = { ...JSON.parse(text), seq: 1 } as Record<string, unknown>;
    const parsed = parseRecord(JSON.parse(JSON.stringify(raw)));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const record = parsed.record as unknown as Record<string, unknown>;
    expect(Object.hasOwn(record, "__proto__")).toBe(true);
    expect(Object.keys(record.inputs as object)).toEqual(["__proto__", "question"]);
    expect(JSON.stringify(record)).toBe(JSON.stringify(raw));
    expect((record.inputs as { admin?: unknown }).admin).toBeUndefined(); // a key, never a prototype
  });

  it("checkNewRecord does the same for a record about to be written", () => {
    const checked = checkNewRecord(JSON.parse(text));
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(JSON.stringify(checked.record)).toBe(JSON.stringify(JSON.parse(text)));
  });
});
