/**
 * Settings layers at their edges. DESIGN ("Public API"): settings live in
 * layers, nearest wins (one call's options, the turn, the conversation,
 * `fn.using`, `withSettings` — taken at a call's synchronous start —,
 * `configure`); `maxSteps` is a count of model calls (default 8, then
 * `StepLimit`). src/settings.ts `check`: a maxSteps that is not a whole
 * number ≥ 1 is `settings-invalid`, wherever it is given.
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, configure, delegate, FunctaiError, program, resetConfiguration, StepLimit, tool, withSettings, type Approval } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

afterEach(() => resetConfiguration());

const codeOf = (e: unknown) => (e instanceof FunctaiError ? e.code : String(e));
const thrown = (f: () => unknown): unknown => {
  try {
    f();
  } catch (e) {
    return e;
  }
  return "nothing thrown";
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("maxSteps that is not a count", () => {
  const BAD: unknown[] = [0, -0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "2", null, true];
  for (const bad of BAD) {
    it(`${String(bad)} (${typeof bad}): refused where it is given, before anything is sent`, async () => {
      const lm = scripted(["ok", "ok", "ok"]);
      const s = { maxSteps: bad as number };
      const fn = ai("f", { description: "d", input: { q: z.string() } });
      expect(codeOf(thrown(() => configure(s)))).toBe("settings-invalid");
      expect(codeOf(thrown(() => ai("g", { description: "d", input: { q: z.string() }, ...s })))).toBe("settings-invalid");
      expect(codeOf(thrown(() => fn.using(s)))).toBe("settings-invalid");
      expect(codeOf(thrown(() => withSettings(s, () => fn("x", { lm }))))).toBe("settings-invalid");
      expect(codeOf(thrown(() => fn.conversation("c", { store: memoryStore(), ...s })))).toBe("settings-invalid");
      expect(codeOf(await fn("x", { lm, ...s }).catch((e: unknown) => e))).toBe("settings-invalid");
      expect(codeOf(await fn.conversation("c", { store: memoryStore(), lm }).send("x", s).catch((e: unknown) => e))).toBe("settings-invalid");
      expect(lm.requests).toHaveLength(0);
    });
  }
});

describe("maxSteps at its smallest", () => {
  it("1, and the one reply asks for a tool: the tool runs, then StepLimit (steps 1); one model call", async () => {
    const RAN: string[] = [];
    const look = tool("look", { description: "d", input: { id: z.string() }, effects: "reads" }, ({ id }) => {
      RAN.push(id);
      return id;
    });
    const fn = ai("f", { description: "d", input: { q: z.string() }, tools: [look] });
    const lm = scripted([{ toolCalls: [{ name: "look", input: { id: "A" } }] }, "never"]);
    const err = await fn("x", { lm, maxSteps: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StepLimit);
    expect((err as StepLimit).steps).toBe(1);
    expect(RAN).toEqual(["A"]);
    expect(lm.requests).toHaveLength(1);
  });

  it("the nearest layer's maxSteps wins, also when it is larger than a farther one", async () => {
    const fn = ai("f", { description: "d", input: { q: z.string() }, maxSteps: 1 });
    const again = () => scripted([{ toolCalls: [{ name: "nope", input: {} }] }, { toolCalls: [{ name: "nope", input: {} }] }, "ok"]);
    configure({ maxSteps: 1 });
    expect(codeOf(await fn("x", { lm: again() }).catch((e: unknown) => e))).toBe("step-limit");
    expect(await fn.using({ maxSteps: 3 })("x", { lm: again() })).toBe("ok");
    expect(await withSettings({ maxSteps: 3 }, () => fn.using({ maxSteps: 2 })("x", { lm: again(), maxSteps: 3 }))).toBe("ok");
    expect(codeOf(await fn.using({ maxSteps: 3 })("x", { lm: again(), maxSteps: 2 }).catch((e: unknown) => e))).toBe("step-limit");
    const chat = fn.conversation("c", { store: memoryStore(), maxSteps: 2 });
    expect(codeOf(await chat.send("x", { lm: again() }).catch((e: unknown) => e))).toBe("step-limit");
    expect(await chat.send("y", { lm: again(), maxSteps: 3 })).toBe("ok");
  });
});

/** An approve function that refuses with its layer's name, so the model's echo says which layer answered. */
const by = (layer: string) => (_a: Approval) => layer;
function refundDesk() {
  const refund = tool("refund", { description: "Refund.", input: { order_id: z.string() }, effects: "changes" }, () => "refunded");
  const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [refund] });
  const lm = () => scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1" } }] }, (r) => r.messages.at(-1)!.content]);
  return { desk, lm };
}
const refusal = (layer: string) => `The person did not allow this call. Reason: ${layer}`;

describe("withSettings blocks that run at the same time", () => {
  it("two interleaved blocks: each call takes the block open at its start, a call after an await neither", async () => {
    const { desk, lm } = refundDesk();
    configure({ approve: by("configure") });
    const block = (name: string, ms: number) =>
      withSettings({ approve: by(name) }, async () => {
        const first = desk("go", { lm: lm() });
        await sleep(ms);
        const late = desk("go", { lm: lm() });
        return [await first, await late];
      });
    const [a, b] = await Promise.all([block("A", 10), block("B", 1)]);
    expect(a).toEqual([refusal("A"), refusal("configure")]);
    expect(b).toEqual([refusal("B"), refusal("configure")]);
  });

  it("a block whose body throws is closed: a call after it takes configure; a nested block is nearer than its outer one", async () => {
    const { desk, lm } = refundDesk();
    configure({ approve: by("configure") });
    expect(
      String(
        thrown(() =>
          withSettings({ approve: by("broken") }, () => {
            throw new Error("body failed");
          }),
        ),
      ),
    ).toBe("Error: body failed");
    expect(await desk("go", { lm: lm() })).toBe(refusal("configure"));
    const inner = await withSettings({ approve: by("outer") }, () => withSettings({ approve: by("inner") }, () => desk("go", { lm: lm() })));
    expect(inner).toBe(refusal("inner"));
    const outer = await withSettings({ approve: by("outer") }, () => {
      void withSettings({ approve: by("inner") }, () => undefined);
      return desk("go", { lm: lm() });
    });
    expect(outer).toBe(refusal("outer"));
  });

  it("calls a program starts at once (Promise.all) in a block inside its body, and one after: each as its block says", async () => {
    const { desk } = refundDesk();
    const support = program("support", { description: "Route.", input: { message: z.string() } }, async ({ message }) => {
      const both = await withSettings({ approve: by("block") }, () => Promise.all([desk(message), desk(message)]));
      const after = await desk(message);
      return [...both, after].join(" | ");
    });
    const replies = scripted([
      { toolCalls: [{ name: "refund", input: { order_id: "A-1" } }] },
      { toolCalls: [{ name: "refund", input: { order_id: "A-1" } }] },
      (r) => r.messages.at(-1)!.content,
      (r) => r.messages.at(-1)!.content,
      { toolCalls: [{ name: "refund", input: { order_id: "A-1" } }] },
      (r) => r.messages.at(-1)!.content,
    ]);
    expect(await support("go", { lm: replies, approve: by("call") })).toBe([refusal("block"), refusal("block"), refusal("call")].join(" | "));
  });
});

describe("delegate() in a plain call", () => {
  it("is a plain call of its program: the caller's model answers it, and its answer is the tool's result", async () => {
    const billing = ai("billing", { description: "Answer billing questions.", input: { question: z.string() } });
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [delegate(billing, { name: "ask_billing" })] });
    const lm = scripted([{ toolCalls: [{ name: "ask_billing", input: { question: "Was A-1 paid?" } }] }, "It was paid.", (r) => `billing said: ${r.messages.at(-1)!.content}`]);
    expect(await desk("Was A-1 paid?", { lm })).toBe("billing said: It was paid.");
    expect(lm.requests).toHaveLength(3);
    expect(lm.requests[1]!.messages.at(-1)!.content).toContain("Was A-1 paid?");
  });
});
