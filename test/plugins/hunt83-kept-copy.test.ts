/**
 * A plugin's `turnStart` was handed the journal's own `kept` list (and the very `data` objects of the turn's
 * `plugin` records), protected only by its `readonly` type. A plugin that edited an entry in place (a logger
 * redacting what it shows) changed what a later run of the same turn in this process was shown as kept: a
 * stream resumed after each answer from those very records, and a conversation resumed in the same process from
 * its log's copy of them, while another process, reading the store, was shown what was really kept. Each plugin is
 * now shown its own copy.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool, Waiting, type Plugin } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

/** A plugin that keeps `{ n }` at each run, and then scribbles on what it was shown as kept (in place, and by push). */
function scribbler(seen: unknown[]): Plugin {
  let run = 0;
  return {
    name: "scribbler",
    version: "1",
    hooks: {
      turnStart: (t) => {
        run += 1;
        seen.push(JSON.parse(JSON.stringify(t.kept)));
        t.keep({ n: run });
        const kept = t.kept as unknown[];
        for (const entry of kept) if (typeof entry === "object" && entry !== null) (entry as { n: unknown }).n = "(scribbled)";
        kept.push("forged");
        kept.splice(0, 0, "forged first");
      },
    },
  };
}

const pay = () => tool("pay", { description: "Pays.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => `paid ${amount}`);

const twoPayments = () =>
  scripted([{ toolCalls: [{ name: "pay", input: { amount: 1 } }] }, { toolCalls: [{ name: "pay", input: { amount: 2 } }] }, "done"]);

describe("a plugin that edits the kept list it is shown", () => {
  it("a stream answered twice: each run is shown what earlier runs kept, as they kept it", async () => {
    const seen: unknown[] = [];
    const desk = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [pay()] });
    const s = desk.using({ lm: twoPayments(), approve: "changes", plugins: [scribbler(seen)] }).stream("Pay twice.");
    for await (const e of s) if (e.type === "approval") await s.approve({ by: "maria" });
    expect(await s).toBe("done");
    expect(seen).toEqual([[], [{ n: 1 }], [{ n: 1 }, { n: 2 }]]);
  });

  it("a conversation resumed twice in one process is shown what the store keeps", async () => {
    const seen: unknown[] = [];
    const store = memoryStore();
    const desk = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [pay()] });
    const plugins = [scribbler(seen)];
    const lm = twoPayments();
    const chat = desk.conversation("c1", { store, lm, plugins, approve: "changes" });
    await expect(chat.send("Pay twice.")).rejects.toBeInstanceOf(Waiting);
    let turn = (await chat.turns()).at(-1)!;
    await expect(turn.approve({ by: "maria" })).rejects.toBeInstanceOf(Waiting);
    turn = (await chat.turns()).at(-1)!;
    expect(await turn.approve({ by: "maria" })).toBe("done");
    expect(seen).toEqual([[], [{ n: 1 }], [{ n: 1 }, { n: 2 }]]);
    const kept = (await store.read("c1")).filter((r) => r.kind === "plugin").map((r) => (r as { data?: unknown }).data);
    expect(kept).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });
});
