/**
 * Every error a user can see is a FunctaiError with a code, also when the
 * thing that failed is hostile or sloppy: an input whose getters throw, a
 * model that answers `{ text: null, toolCalls: null }` or throws a string,
 * a tool, approve function or plugin that throws what is not an Error.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { fsStore } from "../../adapters/node-fs/index.js";
import { ai, FunctaiError, LM_SPEC, tool, type LanguageModel, type Plugin } from "../../src/index.js";
import { scripted, type ScriptedReply } from "../../src/testing/index.js";
import { toolResults } from "./fixtures.js";

/** The code of what `fn` threw or rejected with; fails the test when it is not a FunctaiError. */
async function codeOf(fn: () => unknown): Promise<string> {
  let error: unknown;
  try {
    await fn();
  } catch (e) {
    error = e;
  }
  expect(error, String(error)).toBeInstanceOf(FunctaiError);
  return (error as FunctaiError).code;
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-errors-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("inputs that cannot be read", () => {
  const two = ai("two", { description: "d", input: { a: z.string(), b: z.unknown() } });
  const one = ai("one", { description: "d", input: { q: z.unknown() } }); // (its input may be given alone: it is looked into)
  const trap = (): never => {
    throw new Error("trap");
  };
  const hostile: [string, typeof two | typeof one, unknown][] = [
    ["a Proxy whose get trap throws", two, new Proxy({}, { get: trap })],
    ["a Proxy whose ownKeys trap throws", one, new Proxy({ q: 1 }, { ownKeys: trap })],
    ["a Proxy whose getPrototypeOf trap throws", one, new Proxy({ q: 1 }, { getPrototypeOf: trap })],
    ["a Proxy whose has trap throws", one, new Proxy({ q: 1 }, { has: trap })],
    ["an object with a throwing getter", two, { a: "x", get b() { return trap(); } }],
    ["thrown undefined from a getter", two, { a: "x", get b() { throw undefined; } }],
    ["a BigInt where JSON is kept", two, { a: "x", b: 10n }],
    ["a cycle where JSON is kept", two, (() => { const b: Record<string, unknown> = {}; b.b = b; return { a: "x", b }; })()],
    ["a nested Proxy that throws once kept", one, { q: new Proxy({}, { ownKeys: trap }) }],
  ];
  for (const [name, fn, input] of hostile) {
    it(`${name}: input-invalid, nothing sent, nothing written`, async () => {
      const lm = scripted(["never"]);
      expect(await codeOf(() => fn(input as never, { lm }))).toBe("input-invalid");
      const chat = fn.conversation("c", { store: fsStore(dir), lm });
      expect(await codeOf(() => chat.send(input as never))).toBe("input-invalid");
      expect(lm.requests).toHaveLength(0);
      expect(await fsStore(dir).read("c")).toEqual([]);
    });
  }
});

describe("models that give back nothing usable", () => {
  const answer = ai("answer", { description: "d", input: { q: z.string() } });
  const model = (generate: () => unknown): LanguageModel => ({
    specificationVersion: LM_SPEC, provider: "mine", model: "m", nativeTools: true,
    generate: async () => generate() as never,
  });
  const bad: [string, () => unknown][] = [
    ["{ text: null, toolCalls: null }", () => ({ text: null, toolCalls: null, finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } })],
    ["undefined", () => undefined],
    ["no usage", () => ({ text: "hi", toolCalls: [] })],
    ["a tool call without an id", () => ({ text: "", toolCalls: [{ name: "x", input: {} }], finishReason: "tool_calls", usage: { inputTokens: 1, outputTokens: 1 } })],
    ["a BigInt in a tool call", () => ({ text: "", toolCalls: [{ id: "1", name: "x", input: 1n }], finishReason: "tool_calls", usage: { inputTokens: 1, outputTokens: 1 } })],
  ];
  for (const [name, reply] of bad) {
    it(`a LanguageModel answering ${name}: provider-response (plain call and conversation), nothing half-written`, async () => {
      expect(await codeOf(() => answer("hi", { lm: model(reply) }))).toBe("provider-response");
      const chat = answer.conversation("c", { store: fsStore(dir), lm: model(reply) });
      expect(await codeOf(() => chat.send("hi"))).toBe("provider-response");
      const records = await fsStore(dir).read("c");
      expect(records.some((r) => r.kind === "reply")).toBe(false);
      const [turn] = await answer.conversation("c", { store: fsStore(dir) }).turns();
      expect(turn!.state).toBe("failed");
    });
  }

  for (const thrown of ["a string", undefined, 42]) {
    it(`a LanguageModel throwing ${String(thrown)}: provider-response, the thrown value kept as the cause`, async () => {
      const lm = model(() => {
        throw thrown;
      });
      const error = await answer("hi", { lm }).catch((e: unknown) => e);
      expect((error as FunctaiError).code).toBe("provider-response");
      expect((error as Error).cause).toBe(thrown);
    });
  }

  const scriptedBad: [string, ScriptedReply][] = [
    ["{ text: null, toolCalls: null }", { text: null, toolCalls: null } as never],
    ["a function returning null", (() => null) as never],
    ["a function returning undefined", (() => undefined) as never],
  ];
  for (const [name, reply] of scriptedBad) {
    it(`the scripted model given ${name}: provider-response`, async () => {
      expect(await codeOf(() => answer("hi", { lm: scripted([reply]) }))).toBe("provider-response");
    });
  }
});

describe("user code throwing what is not an Error", () => {
  const THROWN: unknown[] = ["a plain string", undefined, null, { odd: true }];
  const deskWith = (run: () => unknown, settings: Record<string, unknown> = {}) => {
    const pay = tool("pay", { description: "Pay.", input: { n: z.number() }, effects: "changes" }, run);
    return ai("desk", { description: "d", input: { q: z.string() }, tools: [pay], ...settings });
  };
  const calls = () => [{ toolCalls: [{ name: "pay", input: { n: 1 } }] }, "done"];

  for (const thrown of THROWN) {
    const shown = JSON.stringify(thrown) ?? "undefined";
    it(`a tool throwing ${shown}: the model is told; with toolErrors "raise", tool-failed`, async () => {
      const fn = deskWith(() => {
        throw thrown;
      });
      const lm = scripted(calls());
      expect(await fn("go", { lm })).toBe("done");
      const [, content] = toolResults(lm.requests[1])[0]!;
      expect(content.startsWith("Error: ")).toBe(true);
      expect(content.length).toBeGreaterThan("Error: ".length);
      expect(await codeOf(() => fn("go", { lm: scripted(calls()), toolErrors: "raise" }))).toBe("tool-failed");
    });

    it(`an approve function throwing ${shown}: plugin-failed, the tool never runs`, async () => {
      let ran = 0;
      const fn = deskWith(() => ran++);
      const approve = () => {
        throw thrown;
      };
      expect(await codeOf(() => fn("go", { lm: scripted(calls()), approve }))).toBe("plugin-failed");
      expect(ran).toBe(0);
    });

    it(`plugin hooks throwing ${shown}: plugin-failed (before the tool, and after it)`, async () => {
      let ran = 0;
      const fn = deskWith(() => ran++);
      const before: Plugin = { name: "before", version: "1", hooks: { toolCall: () => { throw thrown; } } };
      const after: Plugin = { name: "after", version: "1", hooks: { toolResult: () => { throw thrown; } } };
      expect(await codeOf(() => fn("go", { lm: scripted(calls()), plugins: [before] }))).toBe("plugin-failed");
      expect(ran).toBe(0);
      expect(await codeOf(() => fn("go", { lm: scripted(calls()), plugins: [after] }))).toBe("plugin-failed");
      expect(ran).toBe(1);
    });
  }
});
