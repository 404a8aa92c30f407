/**
 * `configure` adds to one layer (configure's): a second `configure` merges
 * into what the first set, and plugins add up. Two plugins of one name are
 * refused (`plugin-invalid`, src/plugins/names.ts: "asked of each settings
 * layer as it is given"), but `configure` asked it of the plugins it was
 * given alone, never of configure's layer as it would stand: a second
 * `configure({ plugins: [audit()] })` (a setup run twice, a dev server's
 * reload, two modules each setting their plugin up) was taken without a word,
 * and from then on every call of every function in the process failed
 * `plugin-invalid`, with nothing a caller could do but forget all
 * configuration (`resetConfiguration`, for tests). It is refused by the
 * `configure` that gives it, and configure's layer stays as it was. A
 * `withSettings` block whose plugin has the name of a configured one is
 * refused as the block opens, before its body runs (not at each call in it).
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, configure, resetConfiguration, withSettings, type Plugin } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { refusal } from "../fixtures/refused.js";

afterEach(() => resetConfiguration());

/** A plugin named "audit" that counts the turns it saw start: a new one each time, as a setup run twice makes. */
function audit(): Plugin & { started: number } {
  const plugin = {
    name: "audit",
    version: "1",
    started: 0,
    hooks: {
      turnStart: () => {
        plugin.started++;
      },
    },
  };
  return plugin;
}

const desk = ai("desk", { description: "Help.", input: { message: z.string() } });
const lm = () => scripted(["<result>\nhello\n</result>"]);

describe("configure given a plugin of a name it already holds", () => {
  it("is refused by that configure (plugin-invalid), and the calls after it go on with what was configured", async () => {
    const first = audit();
    configure({ plugins: [first], temperature: 0 });
    const second = audit();
    const e = refusal(() => configure({ plugins: [second], temperature: 1 }));
    expect(e.code).toBe("plugin-invalid");
    expect(e.message).toMatch(/two plugins are named "audit"/);
    // before: taken, and every call after it failed plugin-invalid
    const model = lm();
    expect(await desk("hi", { lm: model })).toBe("hello");
    expect({ first: first.started, second: second.started }).toEqual({ first: 1, second: 0 });
    expect(model.requests[0]?.temperature).toBe(0); // the refused configure set nothing
  });

  it("the same plugin configured again is still one plugin", async () => {
    const only = audit();
    configure({ plugins: [only] });
    configure({ plugins: [only] });
    expect(await desk("hi", { lm: lm() })).toBe("hello");
    expect(only.started).toBe(1);
  });

  it("a withSettings block with a plugin of a configured name is refused as it opens, its body not run", async () => {
    configure({ plugins: [audit()] });
    let ran = false;
    const e = refusal(() =>
      withSettings({ plugins: [audit()] }, () => {
        ran = true;
        return desk("hi", { lm: lm() });
      }),
    );
    expect(e.code).toBe("plugin-invalid");
    expect(ran).toBe(false);
  });
});
