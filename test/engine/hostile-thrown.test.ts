/**
 * A value that cannot even be asked what it is, thrown by user code: a
 * Proxy whose traps throw, or a revoked one (`instanceof`, `String()` and
 * `Object.prototype.toString` all throw on it). A tool throwing one is a
 * tool error the model is told of, as any other thrown value; an approve
 * function or a tool hook throwing one is `plugin-failed`. Before, the
 * engine's own `instanceof` checks and descriptions threw the trap's error,
 * and the call failed with that raw error, no code.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError, tool, type Plugin } from "../../src/index.js";
import { describeError } from "../../src/errors.js";
import { LM_SPEC } from "../../src/lm/types.js";
import { scripted } from "../../src/testing/index.js";
import { toolResults } from "./fixtures.js";

const trap = (): never => {
  throw new Error("trap");
};
const HOSTILE: [string, () => unknown][] = [
  ["a Proxy whose traps throw", () => new Proxy({}, { get: trap, getPrototypeOf: trap, ownKeys: trap, has: trap })],
  [
    "a revoked Proxy",
    () => {
      const r = Proxy.revocable({}, {});
      r.revoke();
      return r.proxy;
    },
  ],
];

async function codeOf(fn: () => unknown): Promise<string | undefined> {
  try {
    await fn();
  } catch (e) {
    expect(e instanceof FunctaiError, "a FunctaiError").toBe(true);
    return (e as FunctaiError).code;
  }
  return undefined;
}

const deskWith = (run: () => unknown) => {
  const pay = tool("pay", { description: "Pay.", input: { n: z.number() }, effects: "changes" }, run);
  return ai("desk", { description: "d", input: { q: z.string() }, tools: [pay] });
};
const calls = () => [{ toolCalls: [{ name: "pay", input: { n: 1 } }] }, "done"];

describe("user code throwing a value that cannot be asked what it is", () => {
  for (const [name, make] of HOSTILE) {
    it(`a tool throwing ${name}: the model is told; with toolErrors "raise", tool-failed`, async () => {
      const fn = deskWith(() => {
        throw make();
      });
      const lm = scripted(calls());
      expect(await fn("go", { lm })).toBe("done");
      const [, content] = toolResults(lm.requests[1])[0]!;
      expect(content).toMatch(/^Error: .+/);
      expect(await codeOf(() => fn("go", { lm: scripted(calls()), toolErrors: "raise" }))).toBe("tool-failed");
    });

    it(`an approve function throwing ${name}: plugin-failed, the tool never runs`, async () => {
      let ran = 0;
      const fn = deskWith(() => ran++);
      expect(await codeOf(() => fn("go", { lm: scripted(calls()), approve: () => { throw make(); } }))).toBe("plugin-failed");
      expect(ran).toBe(0);
    });

    it(`tool hooks throwing ${name}: plugin-failed (before the tool, and after it)`, async () => {
      let ran = 0;
      const fn = deskWith(() => ran++);
      const before: Plugin = { name: "before", version: "1", hooks: { toolCall: () => { throw make(); } } };
      const after: Plugin = { name: "after", version: "1", hooks: { toolResult: () => { throw make(); } } };
      expect(await codeOf(() => fn("go", { lm: scripted(calls()), plugins: [before] }))).toBe("plugin-failed");
      expect(ran).toBe(0);
      expect(await codeOf(() => fn("go", { lm: scripted(calls()), plugins: [after] }))).toBe("plugin-failed");
      expect(ran).toBe(1);
    });

    it(`a model throwing ${name}: provider-response, its text said plainly`, async () => {
      const lm = { specificationVersion: LM_SPEC, provider: "custom", model: "m", nativeTools: true, generate: () => Promise.reject(make()) };
      const e = await deskWith(() => 1)("go", { lm }).then(() => null, (err: unknown) => err);
      expect(e).toBeInstanceOf(FunctaiError);
      expect((e as FunctaiError).code).toBe("provider-response");
      expect((e as FunctaiError).message).toContain("cannot be read");
    });

    it(`a tool throwing ${name} under toolErrors "raise", with a turnEnd hook: the hook is told the turn failed`, async () => {
      const ends: unknown[] = [];
      const watch: Plugin = { name: "watch", version: "1", hooks: { turnEnd: (end) => void ends.push(end.state) } };
      const fn = deskWith(() => {
        throw make();
      });
      expect(await codeOf(() => fn("go", { lm: scripted(calls()), toolErrors: "raise", plugins: [watch] }))).toBe("tool-failed");
      expect(ends).toEqual(["failed"]);
    });
  }
});

describe("describeError never throws", () => {
  for (const [name, make] of HOSTILE)
    it(`on ${name}`, () => {
      expect(describeError(make())).toBe("a value that cannot be read (a Proxy?)");
    });
});
