/**
 * The scripted model given script entries of shapes a test writer gets
 * wrong (README "Testing your code": replies are strings,
 * `{ text, toolCalls, usage }` with calls `{ name, input, id? }`, or
 * functions of the request; DESIGN: every error a user can see is a
 * FunctaiError with a code). Each is refused with `provider-response`
 * saying what is wrong: never an unhandled rejection that ends a Node
 * process, a TypeError, "the script ended" while replies are left, or a
 * tool call run without the input it was given.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError, tool } from "../../src/index.js";
import { scripted, type ScriptedOptions, type ScriptedReply } from "../../src/testing/index.js";

const ask = { messages: [{ role: "user" as const, content: "<q>\nhi\n</q>" }], tools: [] };
const failure = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => "no error",
    (e: unknown) => e,
  );

describe("scripted: a reply function whose promise rejects", () => {
  const unhandled: unknown[] = [];
  const listen = (reason: unknown): void => void unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on("unhandledRejection", listen);
  });
  afterEach(() => void process.off("unhandledRejection", listen));
  /** Long enough for Node to report a rejection nobody handled (it does so after the microtasks of a macrotask). */
  const aWhile = () => new Promise((r) => setTimeout(r, 20));

  it("is refused (provider-response), and its rejection is handled: nothing is left to end the process", async () => {
    const lm = scripted([
      (async () => {
        throw new Error("the reply function failed");
      }) as unknown as ScriptedReply,
    ]);
    const failed = await failure(lm.generate(ask));
    expect(failed).toBeInstanceOf(FunctaiError);
    expect(failed).toMatchObject({ code: "provider-response", message: expect.stringContaining("promise") });
    await aWhile();
    expect(unhandled).toEqual([]);
  });

  it("in a call of an AI function: the call fails with provider-response, and no rejection is left unhandled", async () => {
    const fn = ai("f", { description: "d", input: { q: z.string() } });
    const lm = scripted([(() => Promise.reject(new Error("no reply"))) as unknown as ScriptedReply]);
    expect(await failure(fn("x", { lm }))).toMatchObject({ code: "provider-response" });
    await aWhile();
    expect(unhandled).toEqual([]);
  });
});

describe("scripted: an entry of the script left undefined", () => {
  it("is refused as a reply of no shape (provider-response), not as 'the script ended' while replies are left", async () => {
    const holey: ScriptedReply[] = [];
    holey[1] = "Second.";
    for (const script of [[undefined as unknown as ScriptedReply, "Second."], holey]) {
      const lm = scripted(script);
      const failed = await failure(lm.generate(ask));
      expect(failed).toBeInstanceOf(FunctaiError);
      expect(failed).toMatchObject({ code: "provider-response", message: expect.stringContaining("reply 1 is undefined") });
      expect(lm.remaining).toBe(1);
      expect((await lm.generate(ask)).text).toBe("Second.");
      expect(await failure(lm.generate(ask))).toMatchObject({ code: "lm-script-ended" });
    }
  });
});

describe("scripted: tool calls of odd shapes", () => {
  const odd: unknown[] = [
    null,
    "find",
    ["find", { id: "A" }],
    { nme: "find", input: { id: "A" } },
    { name: "find", inputs: { id: "A" } },
    { name: 42, input: { id: "A" } },
    { name: "find", input: { id: "A" }, id: 7 },
  ];

  it("are refused (provider-response) naming the reply and the call, never a TypeError or a call of another shape", async () => {
    for (const call of odd) {
      for (const nativeTools of [true, false]) {
        const lm = scripted([{ toolCalls: [{ name: "find", input: { id: "B" } }, call] } as unknown as ScriptedReply], { nativeTools });
        const failed = await failure(lm.generate(ask));
        expect(failed, JSON.stringify(call)).toBeInstanceOf(FunctaiError);
        expect(failed, JSON.stringify(call)).toMatchObject({ code: "provider-response", message: expect.stringContaining("reply 1, tool call 2") });
      }
    }
  });

  it("a call whose input key is misspelt does not run its tool without input: the AI function's call fails, saying why", async () => {
    const RAN: unknown[] = [];
    const find = tool("find", { description: "Finds an order.", input: { id: z.string() }, effects: "reads" }, (input) => {
      RAN.push(input);
      return "shipped";
    });
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [find] });
    const lm = scripted([{ toolCalls: [{ name: "find", inputs: { id: "A-1" } }] } as unknown as ScriptedReply, "It shipped."]);
    const failed = await failure(desk("Where is A-1?", { lm }));
    expect(failed).toMatchObject({ code: "provider-response", message: expect.stringContaining('"inputs"') });
    expect(RAN).toEqual([]);
  });

  it("calls as documented are taken: { name, input } and { name, input, id }", async () => {
    const lm = scripted([
      {
        toolCalls: [
          { name: "find", input: { id: "A" } },
          { name: "find", input: { id: "B" }, id: "c-2" },
        ],
      },
    ]);
    const reply = await lm.generate(ask);
    expect(reply.toolCalls).toEqual([
      { id: "call_1_1", name: "find", input: { id: "A" } },
      { id: "c-2", name: "find", input: { id: "B" } },
    ]);
  });
});

describe("scripted: an option whose key is misspelt", () => {
  it("is refused (settings-invalid) naming it, not dropped so the model runs with the default", () => {
    for (const options of [{ nativetools: false }, { chunk: 3 }, { form: "reply", Form: "plain" }, { native_tools: false, modle: "m" }])
      expect(() => scripted(["Hi."], options as ScriptedOptions), JSON.stringify(options)).toThrow(
        expect.objectContaining({ code: "settings-invalid", message: expect.stringContaining(Object.keys(options).at(-1)!) }),
      );
  });

  it("options as documented are still taken, and none at all", () => {
    expect(scripted(["Hi."], { nativeTools: false, model: "m", form: "reply", chunks: 2 }).nativeTools).toBe(false);
    expect(scripted(["Hi."], {}).nativeTools).toBe(true);
    expect(scripted(["Hi."]).model).toBe("scripted");
  });
});
