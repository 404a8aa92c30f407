/**
 * FunctAI's published tool vectors (`test/conformance/tools/asks-*.json` and
 * `denial-*.json`, vendored unchanged: see `test/conformance/SOURCE.md`)
 * through `asksApproval` and `refusalText`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { asksApproval, refusalText } from "../../src/approval/rule.js";
import type { ApproveSetting } from "../../src/approval/types.js";
import type { Effects } from "../../src/records/types.js";

const dir = fileURLToPath(new URL("../conformance/tools/", import.meta.url));
const cases = (pattern: RegExp): string[] => readdirSync(dir).filter((f) => pattern.test(f)).sort();
const read = <T>(file: string): T => JSON.parse(readFileSync(join(dir, file), "utf8")) as T;

interface AsksCase {
  rule: "function" | "changes" | "all" | string[] | null;
  approvals: { name: string; path: string; effects: Effects | null }[];
  expect: { asks: boolean[] };
}
interface DenialCase {
  reason: string | null;
  expect: { output: string };
}

/** `"function"` in a case means a function rule: a real approve function, never the string. */
const ruleOf = (rule: AsksCase["rule"]): ApproveSetting => (rule === "function" ? () => true : rule);

describe("tool conformance (asks-*.json, denial-*.json)", () => {
  const asks = cases(/^asks-.*\.json$/);
  const denials = cases(/^denial-.*\.json$/);

  it("finds the published cases", () => {
    expect(asks.length).toBeGreaterThan(0);
    expect(denials.length).toBeGreaterThan(0);
  });

  for (const file of asks) {
    it(file, () => {
      const c = read<AsksCase>(file);
      const rule = ruleOf(c.rule);
      expect(c.approvals.map((a) => asksApproval(rule, { name: a.name, path: a.path, effects: a.effects }))).toEqual(c.expect.asks);
    });
  }

  for (const file of denials) {
    it(file, () => {
      const c = read<DenialCase>(file);
      expect(refusalText(c.reason)).toBe(c.expect.output);
    });
  }
});
