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
import { ai, tool, type Approval, type Plugin } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

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

  // BUG: the plugin is shown the input as the schema read it (src/engine/tool-calls.ts prepare → decide with
  // parsed.data), and the input it gives back is read by the schema again (tool-calls.ts:152 in `decided`:
  // readWith(tool.inputSchema, decision.input)), so the transform runs twice: the approve function approved
  // 3900 cents (engine/approvals.ts:151-172, decideFully, shows the plugin's input unparsed) and the tool refunded 390000.
  // Fix: show the plugin the input the schema reads (the model's, before transforms) and parse what it gives back
  // once, or check a changed input against the schema without re-applying transforms; and show the approve
  // function the input as it will run (the parsed one), not the plugin's raw object.
  it.fails("a plugin that adds a note keeps the amount: the tool refunds the 3900 cents the approve function approved", async () => {
    const { desk, lm, approve, watcher, RAN, SHOWN } = setup();
    const seen: unknown[] = [];
    await desk("Refund 39 dollars.", { lm, approve, plugins: [noter(seen), watcher] });
    expect(seen).toEqual([{ cents: 3900 }]);
    expect(SHOWN).toEqual([{ cents: 3900, note: "checked" }]);
    expect(RAN).toEqual([3900]);
  });
});
