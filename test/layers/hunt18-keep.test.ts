/**
 * A turn hook's `keep(data)` takes a small JSON value, kept in a `plugin`
 * record. One that is not JSON was queued as it was: a BigInt (or a cycle,
 * a throwing toJSON) had the store refuse the whole batch it rode in
 * (`input-invalid`, the turn's own records with it); a function or a
 * symbol, which JSON leaves out, was written as a `plugin` record without
 * `data`, which every later read refuses as damage (`store-corrupt`): the
 * conversation could not be read, sent to or resumed again. Now `keep`
 * refuses it at once (the hook fails: `plugin-failed`), before anything is
 * queued, and keeps what it takes as its JSON.
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, type Plugin } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { codeOf } from "../store/contract.js";
import { localStores } from "../store/fixtures/local-stores.js";

const desk = ai("desk", { description: "Help.", input: { message: z.string() } });
const keeping = (data: unknown): Plugin => ({ name: "keeper", version: "1", hooks: { turnStart: (t) => t.keep(data) } });

const { stores, cleanUp } = localStores("functai-hunt18-");
afterEach(cleanUp);

const cycle: { self?: unknown } = {};
cycle.self = cycle;

describe.each(stores)("keep on a %s", (_name, make) => {
  for (const [what, data] of [
    ["a function", () => 1],
    ["a symbol", Symbol("s")],
    ["a BigInt", 10n],
    ["a cycle", cycle],
    [
      "an object whose toJSON throws",
      {
        toJSON: () => {
          throw new Error("no");
        },
      },
    ],
    ["a Map", new Map([["a", 1]])],
  ] as [string, unknown][]) {
    it(`of ${what}: the call fails with plugin-failed, and the conversation goes on`, async () => {
      const store = await make();
      const chat = desk.conversation("sam", { store, lm: scripted(["First."]), plugins: [keeping(data)] });
      expect(await codeOf(() => chat.send("hi"))).toBe("plugin-failed");
      // the conversation is still readable, and takes the next turn
      const again = desk.conversation("sam", { store, lm: scripted(["Second."]) });
      expect(await again.send("again")).toBe("Second.");
      for (const r of await store.read("sam")) if (r.kind === "plugin") expect(Object.hasOwn(r, "data")).toBe(true);
    });
  }

  it("of JSON: kept as its JSON, shown as such to later runs", async () => {
    const store = await make();
    const data = { at: new Date(0), list: [1, Number.NaN], gone: undefined };
    const chat = desk.conversation("sam", { store, lm: scripted(["First."]), plugins: [keeping(data)] });
    expect(await chat.send("hi")).toBe("First.");
    const kept = (await store.read("sam")).filter((r) => r.kind === "plugin").map((r) => (r as unknown as { data: unknown }).data);
    expect(kept).toEqual([{ at: "1970-01-01T00:00:00.000Z", list: [1, null] }]);
  });
});

describe("keep in a plain call (no conversation)", () => {
  it("refuses what it is not JSON as a conversation does: plugin-failed", async () => {
    expect(await codeOf(() => desk("hi", { lm: scripted(["First."]), plugins: [keeping(10n)] }))).toBe("plugin-failed");
    expect(await codeOf(() => desk("hi", { lm: scripted(["First."]), plugins: [keeping(() => 1)] }))).toBe("plugin-failed");
    expect(await desk("hi", { lm: scripted(["First."]), plugins: [keeping({ fine: true })] })).toBe("First.");
  });
});
