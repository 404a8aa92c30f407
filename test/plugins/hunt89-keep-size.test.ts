/**
 * Hunt 89: `keep(data)` takes "a small value" (README) but has no limit: a plugin that keeps a whole response
 * body, or a buffer it meant to summarise, writes megabytes into the turn's `plugin` record, and every later read
 * of the conversation (each send, `turns()`, a resume, each WebSocket listing) reads them again. Neither DESIGN nor
 * README named a limit, and no store refuses a large record (none has a record size limit): decided, 100,000
 * characters of its JSON, as a tool's error text.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { FunctaiError, ai, memoryStore, type Plugin } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const desk = ai("desk", { description: "Help.", input: { q: z.string() } });

function keeper(data: unknown, thrown: unknown[]): Plugin {
  return {
    name: "hoarder",
    version: "1",
    hooks: {
      turnStart: (t) => {
        try {
          t.keep(data);
        } catch (e) {
          thrown.push(e);
          throw e;
        }
      },
    },
  };
}

const pluginData = async (store: ReturnType<typeof memoryStore>, id: string): Promise<unknown[]> =>
  (await store.read(id)).filter((r) => r.kind === "plugin").map((r) => (r as { data?: unknown }).data);

describe("keep() and a large value", () => {
  it("a small value is kept, as before", async () => {
    const store = memoryStore();
    const chat = desk.conversation("c1", { store, lm: scripted(["ok"]), plugins: [keeper({ span: "a1" }, [])] });
    expect(await chat.send("hi")).toBe("ok");
    expect(await pluginData(store, "c1")).toEqual([{ span: "a1" }]);
  });

  // decided: as a tool's error text, 100,000 characters of the value's JSON (MAX_KEPT_CHARS); past it, keep throws
  // `plugin-failed` naming the plugin, the size and the limit, and nothing is written
  it("a 5 MB value is refused, plugin-failed naming the plugin, and nothing of it is written", async () => {
    const store = memoryStore();
    const thrown: unknown[] = [];
    const chat = desk.conversation("c1", { store, lm: scripted(["ok"]), plugins: [keeper({ body: "x".repeat(5_000_000) }, thrown)] });
    const err = await chat.send("hi").catch((e: unknown) => e);
    expect(thrown).toHaveLength(1);
    expect(thrown[0]).toBeInstanceOf(FunctaiError);
    expect((thrown[0] as FunctaiError).code).toBe("plugin-failed");
    expect((thrown[0] as FunctaiError).message).toContain("hoarder");
    expect((thrown[0] as FunctaiError).message).toContain("at most 100000");
    expect((err as FunctaiError).code).toBe("plugin-failed");
    expect(await pluginData(store, "c1")).toEqual([]);
  });

  it("a value of exactly the limit is kept", async () => {
    const store = memoryStore();
    const body = "x".repeat(100_000 - JSON.stringify({ body: "" }).length);
    const chat = desk.conversation("c1", { store, lm: scripted(["ok"]), plugins: [keeper({ body }, [])] });
    expect(await chat.send("hi")).toBe("ok");
    expect(await pluginData(store, "c1")).toEqual([{ body }]);
  });
});
