/**
 * What a plugin's tool hooks give back is checked: `toolCall` answers
 * undefined (go on), `{ input }`, `{ block }` or `{ ask }`; `toolResult`
 * undefined or `{ output }`. Anything else (a JavaScript plugin returning
 * `false` to block a call, the redacted output itself instead of
 * `{ output }`, a key misspelt) is `plugin-failed`, saying what to return.
 * Before, `false` or `{ blok: … }` let the tool run as if nothing was said,
 * a redacted output given bare reached the model unredacted, and `true` or
 * a string failed the call with a raw TypeError.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError, tool, type Plugin } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

function setup() {
  const paid: number[] = [];
  const pay = tool("pay", { description: "Pay.", input: { n: z.number() }, effects: "reads" }, ({ n }) => (paid.push(n), { n, email: "sam@example.com" }));
  const fn = ai("desk", { description: "d", input: { q: z.string() }, tools: [pay] });
  const lm = scripted([{ toolCalls: [{ name: "pay", input: { n: 1 } }] }, (r) => `saw: ${r.messages.at(-1)!.content}`]);
  return { fn, lm, paid };
}

async function failure(run: () => Promise<unknown>): Promise<FunctaiError> {
  const e = await run().then(
    (v) => v,
    (e: unknown) => e,
  );
  expect(e).toBeInstanceOf(FunctaiError);
  return e as FunctaiError;
}

describe("a toolCall hook's answer", () => {
  for (const [name, answer] of [
    ["false", false],
    ["true", true],
    ["a string", "no"],
    ["an object with no known key", { blok: "closed" }],
    ["an array", []],
  ] as [string, unknown][]) {
    it(`${name}: plugin-failed, the tool does not run`, async () => {
      const { fn, lm, paid } = setup();
      const p: Plugin = { name: "guard", version: "1", hooks: { toolCall: (() => answer) as never } };
      const e = await failure(() => fn("go", { lm, plugins: [p] }));
      expect(e.code).toBe("plugin-failed");
      expect(e.message).toMatch(/guard.*desk\/pay.*\{ block: reason \}/);
      expect(paid).toEqual([]);
    });
  }

  it("undefined and null go on", async () => {
    for (const answer of [undefined, null]) {
      const { fn, lm, paid } = setup();
      const p: Plugin = { name: "guard", version: "1", hooks: { toolCall: (() => answer) as never } };
      expect(await fn("go", { lm, plugins: [p] })).toMatch(/^saw: /);
      expect(paid).toEqual([1]);
    }
  });
});

describe("a toolResult hook's answer", () => {
  for (const [name, answer] of [
    ["the output itself, not { output }", { n: 1, email: "(hidden)" }],
    ["a string", "(hidden)"],
    ["true", true],
  ] as [string, unknown][]) {
    it(`${name}: plugin-failed, the model is not shown the output`, async () => {
      const { fn, lm, paid } = setup();
      const p: Plugin = { name: "redact", version: "1", hooks: { toolResult: (() => answer) as never } };
      const e = await failure(() => fn("go", { lm, plugins: [p] }));
      expect(e.code).toBe("plugin-failed");
      expect(e.message).toMatch(/redact.*desk\/pay.*\{ output \}/);
      expect(paid).toEqual([1]);
      expect(lm.requests).toHaveLength(1);
    });
  }
});
