/**
 * `keep()` called once the run of the turn it was given to had ended (a plugin that holds on to it and keeps
 * from a timer, an exporter's callback, a later turn) was silently ignored: the value went into a journal nobody
 * flushes any more, and the plugin believed it kept. Decided: it is refused, `plugin-failed`, naming the plugin and
 * saying the turn had ended, thrown to its caller; nothing is recorded.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { FunctaiError, ai, memoryStore, tool, Waiting, type Plugin, type PluginTurn } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

function holder(keeps: PluginTurn["keep"][], seen: unknown[][]): Plugin {
  return {
    name: "late-keeper",
    version: "1",
    hooks: {
      turnStart: (t) => {
        seen.push([...t.kept]);
        keeps.push(t.keep);
      },
      // keeping while the turn is told it ended is still in time
      turnEnd: (end) => void end.keep({ at: "turnEnd", state: end.state }),
    },
  };
}

const pluginData = async (store: ReturnType<typeof memoryStore>, id: string): Promise<unknown[]> =>
  (await store.read(id)).filter((r) => r.kind === "plugin").map((r) => (r as { data?: unknown }).data);

function refused(keep: PluginTurn["keep"], data: unknown): FunctaiError {
  try {
    keep(data);
  } catch (e) {
    return e as FunctaiError;
  }
  throw new Error("keep after the turn ended was taken without a word");
}

describe("keep() once the turn's run has ended", () => {
  it("after a conversation's turn ended: plugin-failed, naming the plugin, and nothing recorded", async () => {
    const keeps: PluginTurn["keep"][] = [];
    const store = memoryStore();
    const desk = ai("desk", { description: "Help.", input: { q: z.string() } });
    const chat = desk.conversation("c1", { store, lm: scripted(["first", "second"]), plugins: [holder(keeps, [])] });
    expect(await chat.send("one")).toBe("first");
    const e = refused(keeps[0]!, { late: 1 });
    expect(e).toBeInstanceOf(FunctaiError);
    expect(e.code).toBe("plugin-failed");
    expect(e.message).toContain("late-keeper");
    expect(e.message).toContain("ended");
    // the next turn writes and flushes its own records: the late value is not among them
    expect(await chat.send("two")).toBe("second");
    expect(await pluginData(store, "c1")).toEqual([
      { at: "turnEnd", state: "done" },
      { at: "turnEnd", state: "done" },
    ]);
  });

  it("after a run that waits for a person: refused, and the resumed run is not shown it", async () => {
    const keeps: PluginTurn["keep"][] = [];
    const seen: unknown[][] = [];
    const store = memoryStore();
    const pay = tool("pay", { description: "Pays.", input: { amount: z.number() }, effects: "changes" }, () => "paid");
    const desk = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [pay] });
    const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "done"]);
    const chat = desk.conversation("c2", { store, lm, plugins: [holder(keeps, seen)], approve: "changes" });
    await expect(chat.send("pay")).rejects.toBeInstanceOf(Waiting);
    expect(refused(keeps[0]!, { late: 2 }).code).toBe("plugin-failed");
    const turn = (await chat.turns()).at(-1)!;
    expect(await turn.approve({ by: "maria" })).toBe("done");
    expect(seen).toEqual([[], [{ at: "turnEnd", state: "waiting" }]]);
    expect(await pluginData(store, "c2")).toEqual([
      { at: "turnEnd", state: "waiting" },
      { at: "turnEnd", state: "done" },
    ]);
  });

  it("after a plain call: refused as well (not only when something records)", async () => {
    const keeps: PluginTurn["keep"][] = [];
    const desk = ai("desk", { description: "Help.", input: { q: z.string() } });
    expect(await desk.using({ lm: scripted(["ok"]), plugins: [holder(keeps, [])] })("hi")).toBe("ok");
    expect(refused(keeps[0]!, { late: 3 }).code).toBe("plugin-failed");
  });
});
