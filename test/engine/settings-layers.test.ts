import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, configure, program, resetConfiguration, withSettings, type Approval } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";
import { deskTools, echoLast } from "./fixtures.js";

afterEach(() => resetConfiguration());

/** An approve function that refuses with its layer's name, so the model's echo says which layer answered. */
const by = (layer: string) => (_a: Approval) => layer;
const refusedBy = (layer: string) => `saw: The person did not allow this call. Reason: ${layer}`;

function setup() {
  const t = deskTools();
  const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [t.refund] });
  const lm = () => scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1", amount: 5 } }] }, echoLast]);
  return { desk, t, lm };
}

describe("approve in every settings layer", () => {
  it("configure", async () => {
    const { desk, lm, t } = setup();
    configure({ approve: by("configure") });
    expect(await desk("go", { lm: lm() })).toBe(refusedBy("configure"));
    expect(t.REFUNDS).toEqual([]);
  });

  it("withSettings", async () => {
    const { desk, lm } = setup();
    expect(await withSettings({ approve: by("with") }, () => desk("go", { lm: lm() }))).toBe(refusedBy("with"));
  });

  it("using", async () => {
    const { desk, lm } = setup();
    expect(await desk.using({ approve: by("using") })("go", { lm: lm() })).toBe(refusedBy("using"));
  });

  it("the AI function's own spec", async () => {
    const t = deskTools();
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [t.refund], approve: by("spec") });
    expect(await desk("go", { lm: setup().lm() })).toBe(refusedBy("spec"));
  });

  it("a conversation", async () => {
    const { desk, lm } = setup();
    const chat = desk.conversation("c1", { store: memoryStore(), approve: by("conversation"), lm: lm() });
    expect(await chat.send("go")).toBe(refusedBy("conversation"));
  });

  it("one call", async () => {
    const { desk, lm } = setup();
    expect(await desk("go", { lm: lm(), approve: by("call") })).toBe(refusedBy("call"));
  });

  it("the nearest wins: call > using > withSettings > configure", async () => {
    const { desk, lm } = setup();
    configure({ approve: by("configure") });
    const run = (opts: { using?: boolean; call?: boolean }) =>
      withSettings({ approve: by("with") }, () => (opts.using ? desk.using({ approve: by("using") }) : desk)("go", { lm: lm(), ...(opts.call ? { approve: by("call") } : {}) }));
    expect(await run({ using: true, call: true })).toBe(refusedBy("call"));
    expect(await run({ using: true })).toBe(refusedBy("using"));
    expect(await run({})).toBe(refusedBy("with"));
    expect(await desk("go", { lm: lm() })).toBe(refusedBy("configure"));
  });

  it("a nearer layer may switch approval off (null)", async () => {
    const { desk, lm, t } = setup();
    configure({ approve: "changes" });
    expect(await desk("go", { lm: lm(), approve: null })).toBe("saw: refunded 5 for A-1");
    expect(t.REFUNDS).toEqual([["A-1", 5]]);
  });
});

describe("withSettings is taken at a call's synchronous start", () => {
  it("a call started synchronously in the block gets them; one started after an await does not", async () => {
    const { desk, lm } = setup();
    configure({ approve: by("configure") });
    const [sync, late] = await withSettings({ approve: by("with") }, async () => {
      const first = desk("go", { lm: lm() }); // started before any await: takes the block's settings
      await Promise.resolve();
      const second = desk("go", { lm: lm() }); // after an await the block is over (no AsyncLocalStorage is relied on)
      return [await first, await second];
    });
    expect(sync).toBe(refusedBy("with"));
    expect(late).toBe(refusedBy("configure"));
  });

  it("a block inside a program's body reaches the calls it starts", async () => {
    const { desk, lm } = setup();
    const lmOnce = lm();
    const support = program("support", { description: "Route.", input: { message: z.string() } }, ({ message }) =>
      withSettings({ approve: by("inner block") }, () => desk(message)));
    expect(await support("go", { lm: lmOnce, approve: by("call") })).toBe(refusedBy("inner block"));
  });
});

describe("settings are checked where they are given (deciders fail closed)", () => {
  it("a misspelt approve rule is refused, not read as 'ask nobody'", async () => {
    const { desk, lm, t } = setup();
    const l = lm();
    for (const approve of ["change", ["refund", 3], [""], 7, {}]) {
      expect(() => configure({ approve: approve as never })).toThrow(expect.objectContaining({ code: "settings-invalid" }));
      expect(() => desk.using({ approve: approve as never })).toThrow(expect.objectContaining({ code: "settings-invalid" }));
      await expect(desk("go", { lm: l, approve: approve as never })).rejects.toMatchObject({ code: "settings-invalid" });
    }
    expect(l.requests).toHaveLength(0);
    expect(t.REFUNDS).toEqual([]);
  });

  it("a rule entry no tool name or approval path can ever be is refused, not read as 'ask nobody'", async () => {
    const { desk, lm, t } = setup();
    const l = lm();
    for (const entry of ["/refund", "desk/refund/", "desk//refund", " refund", "desk/ refund", "desk\\refund", "desk#1/refund"]) {
      expect(() => desk.using({ approve: [entry] })).toThrow(expect.objectContaining({ code: "settings-invalid" }));
      await expect(desk("go", { lm: l, approve: [entry] })).rejects.toMatchObject({ code: "settings-invalid" });
    }
    expect(l.requests).toHaveLength(0);
    expect(t.REFUNDS).toEqual([]);
    // names, full paths and endings are taken, as they were
    for (const approve of [["refund"], ["desk/refund"], ["support/desk/refund", "answer/refund"]]) expect(() => desk.using({ approve })).not.toThrow();
  });

  it("a plugin without a name, version or function hooks is refused (plugin-invalid)", () => {
    const { desk } = setup();
    for (const plugin of [{ version: "1", hooks: {} }, { name: "p", hooks: {} }, { name: "p", version: "1", hooks: { toolCall: "no" } }, { name: "p", version: "1", hooks: { onCall: () => undefined } }])
      expect(() => desk.using({ plugins: [plugin as never] })).toThrow(expect.objectContaining({ code: "plugin-invalid" }));
    expect(() => desk.using({ plugins: [{ name: "p", version: "1", hooks: { toolCall: () => undefined } }] })).not.toThrow();
  });
});
