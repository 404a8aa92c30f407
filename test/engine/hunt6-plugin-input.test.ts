/**
 * A plugin's `toolCall` hook is shown a call's input as the tool's schema
 * read it (transforms applied), and may hand back a changed input
 * (`{ input }`). README ("Plugins", "Tools that change things"): the approve
 * function is shown the input that runs ("it cannot change what runs"), and
 * a plugin changes the input; nothing says the changed input is read by the
 * schema a second time.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool, Waiting, type Approval, type Plugin, type Store } from "../../src/index.js";
import { scripted, type ScriptedReply } from "../../src/testing/index.js";

/** A refund tool whose schema turns the model's dollars into cents (a transform), keeping what it ran with. */
function setup() {
  const RAN: number[] = [];
  const SHOWN: unknown[] = [];
  const RESULT_INPUTS: unknown[] = [];
  const refund = tool(
    "refund",
    {
      description: "Refund an amount, in dollars.",
      input: { cents: z.number().transform((dollars) => Math.round(dollars * 100)), note: z.string().optional() },
      effects: "changes",
    },
    ({ cents }) => {
      RAN.push(cents);
      return `refunded ${cents} cents`;
    },
  );
  const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [refund] });
  const lm = scripted([{ toolCalls: [{ name: "refund", input: { cents: 39 } }] }, (r) => `saw: ${r.messages.at(-1)!.content}`]);
  const approve = (a: Approval) => {
    SHOWN.push(a.input);
    return true;
  };
  const watcher: Plugin = {
    name: "watcher",
    version: "1",
    hooks: {
      toolResult: (r) => {
        RESULT_INPUTS.push(r.input);
        return undefined;
      },
    },
  };
  return { desk, lm, approve, watcher, RAN, SHOWN, RESULT_INPUTS };
}

/** A plugin that adds a note to every call and keeps the rest of its input as it was shown. */
const noter = (seen: unknown[]): Plugin => ({
  name: "noter",
  version: "1",
  hooks: {
    toolCall: (call) => {
      seen.push(call.input);
      return { input: { ...(call.input as Record<string, unknown>), note: "checked" } };
    },
  },
});

describe("a plugin that changes a call's input, on a schema with a transform", () => {
  it("without a plugin: the approve function is shown the input the tool runs with (3900 cents)", async () => {
    const { desk, lm, approve, watcher, RAN, SHOWN, RESULT_INPUTS } = setup();
    expect(await desk("Refund 39 dollars.", { lm, approve, plugins: [watcher] })).toBe("saw: refunded 3900 cents");
    expect(SHOWN).toEqual([{ cents: 3900 }]);
    expect(RAN).toEqual([3900]);
    expect(RESULT_INPUTS).toEqual([{ cents: 3900 }]);
  });

  it("a plugin that hands back the very input it was shown (same object): it runs as shown", async () => {
    const { desk, lm, approve, RAN, SHOWN } = setup();
    const same: Plugin = { name: "same", version: "1", hooks: { toolCall: (call) => ({ input: call.input }) } };
    expect(await desk("Refund 39 dollars.", { lm, approve, plugins: [same] })).toBe("saw: refunded 3900 cents");
    expect(SHOWN).toEqual([{ cents: 3900 }]);
    expect(RAN).toEqual([3900]);
  });

  // FIXED (it was a bug): the plugin was shown the input as the schema read it (3900 cents), and the input it gave back was
  // read by the schema again (src/engine/tool-calls.ts `decided`: readWith(tool.inputSchema, decision.input)), so the
  // transform ran twice: the approve function approved 3900 cents (src/engine/approvals.ts decideFully showed the plugin's
  // object unread) and the tool refunded 390000. Now a changed input is checked by the schema where the plugin hands it
  // back (approvals.ts changedInput: one it refuses fails the call, plugin-failed, before any later plugin, approval or
  // run), and the call goes on with the plugin's value (a JSON copy), never the schema's reading of it: the approve function
  // is shown the input that runs, the journal keeps it, and the schema reads each input once.
  it("a plugin that adds a note keeps the amount: the tool refunds the 3900 cents the approve function approved", async () => {
    const { desk, lm, approve, watcher, RAN, SHOWN } = setup();
    const seen: unknown[] = [];
    await desk("Refund 39 dollars.", { lm, approve, plugins: [noter(seen), watcher] });
    expect(seen).toEqual([{ cents: 3900 }]);
    expect(SHOWN).toEqual([{ cents: 3900, note: "checked" }]);
    expect(RAN).toEqual([3900]);
  });
});

describe("a plugin's changed input: checked where it is handed back, kept as it runs", () => {
  it("one the schema refuses fails the call (plugin-failed) before the approve function is asked or the tool runs", async () => {
    const { desk, lm, approve, RAN, SHOWN } = setup();
    const bad: Plugin = { name: "bad", version: "1", hooks: { toolCall: () => ({ input: { cents: "all of it" } }) } };
    await expect(desk("Refund 39 dollars.", { lm, approve, plugins: [bad] })).rejects.toMatchObject({
      code: "plugin-failed",
      message: expect.stringMatching(/bad.*desk\/refund/),
    });
    expect(SHOWN).toEqual([]);
    expect(RAN).toEqual([]);
  });

  it("a later plugin is shown the checked input, a copy: the first plugin changing its own object afterwards changes nothing", async () => {
    const { desk, lm, approve, RAN, SHOWN } = setup();
    const given = { cents: 3900, note: "first" };
    const first: Plugin = { name: "first", version: "1", hooks: { toolCall: () => ({ input: given }) } };
    const seen: unknown[] = [];
    const second: Plugin = { name: "second", version: "1", hooks: { toolCall: (call) => void seen.push(call.input) } };
    const later: Plugin = { name: "later", version: "1", hooks: { toolCall: () => void (given.cents = 1) } };
    await desk("Refund 39 dollars.", { lm, approve, plugins: [first, second, later] });
    expect(seen).toEqual([{ cents: 3900, note: "first" }]);
    expect(SHOWN).toEqual([{ cents: 3900, note: "first" }]);
    expect(RAN).toEqual([3900]);
  });

  it("in a conversation under a rule: the person is shown what runs, the journal keeps it, and the resumed turn runs it once read", async () => {
    const { desk, lm, RAN } = setup();
    const store = memoryStore();
    const chat = desk.conversation("c", { store, lm, approve: "changes", plugins: [noter([])] });
    const waiting = await chat.send("Refund 39 dollars.").catch((e: unknown) => e);
    expect(waiting).toBeInstanceOf(Waiting);
    const turn = (waiting as Waiting).turn;
    expect(turn.waiting.map((a) => a.input)).toEqual([{ cents: 3900, note: "checked" }]);
    expect(await turn.approve({ by: "maria" })).toBe("saw: refunded 3900 cents");
    expect(RAN).toEqual([3900]);
    const started = (await store.read("c")).filter((r) => r.kind === "tool" && (r as { state?: string }).state === "started");
    expect(started.map((r) => (r as { input?: unknown }).input)).toEqual([{ cents: 3900, note: "checked" }]);
  });

  it("after a crash once the call started: the unfinished call shows the input it ran with, and a rerun runs that (3900) again, read once", async () => {
    const { desk, RAN } = setup();
    // the second process is asked only what the first did not record: the model's answer to the refund's result
    const reply: ScriptedReply = (r) =>
      r.messages.at(-1)!.role === "tool" ? `saw: ${r.messages.at(-1)!.content}` : { toolCalls: [{ name: "refund", input: { cents: 39 } }] };
    const model = () => scripted([reply, reply]);
    const store = memoryStore();
    // the first process dies once the refund's start is on the store: its body runs, and nothing after it is written
    let dead = false;
    const dying: Store = {
      durability: store.durability ?? "memory",
      async read(c, after) {
        if (dead) throw new Error("crash");
        return store.read(c, after);
      },
      async append(c, records, opts) {
        if (dead) throw new Error("crash");
        const done = await store.append(c, records, opts);
        if ((records as readonly { kind?: string; state?: string }[]).some((r) => r.kind === "tool" && r.state === "started")) dead = true;
        return done;
      },
    };
    const lease = { renewMs: 1000, ttlMs: 30 };
    await expect(desk.conversation("c", { store: dying, lm: model(), lease, plugins: [noter([])] }).send("Refund 39 dollars.")).rejects.toThrow();
    expect(RAN).toEqual([3900]);
    await new Promise((r) => setTimeout(r, 50)); // its lease runs out
    const [turn] = await desk.conversation("c", { store, lm: model(), lease, plugins: [noter([])] }).turns();
    expect(turn!.state).toBe("interrupted");
    expect(turn!.unfinished.map((u) => u.input)).toEqual([{ cents: 3900, note: "checked" }]);
    expect(await turn!.resume({ rerun: [turn!.unfinished[0]!.invocation] })).toBe("saw: refunded 3900 cents");
    expect(RAN).toEqual([3900, 3900]); // run again as asked, with the same input
  });
});
