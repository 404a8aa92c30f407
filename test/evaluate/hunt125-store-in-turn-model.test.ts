/**
 * `evaluate` made in a program's turn: without `store` each row's call joins the turn and runs on the turn's
 * settings (its model, its temperature); with `store` each row is a one-turn conversation of its own, which takes
 * the turn's approve and plugins (hunts 120, 125) but took not its model or temperature. A function with no model
 * of its own, measured in a turn whose conversation gives the model, answered every row without a store, and failed
 * every row `lm-missing` with one; a turn's temperature reached the rows only without a store.
 *
 * Decided by the lead: a row's conversation takes the settings a call made in the turn would take (all but the
 * turn's lease and store), as rows without a store do.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, evaluate, program } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

const echo = ai("echo", { description: "Say the word back.", input: { q: z.string() } });

describe("evaluate with a store, in a turn whose conversation gives the model", () => {
  it("the rows run on the turn's model and temperature, as they do without a store", async () => {
    const lm = scripted(Array.from({ length: 4 }, () => "<result>alpha</result>"));
    const nightly = program(
      "nightly",
      { description: "Measures echo.", input: { n: z.number() }, output: z.array(z.string().nullable()) },
      async () => {
        const ev = await evaluate(echo, [{ q: "alpha", result: "alpha" }], { store: memoryStore() });
        return ev.rows.map((r) => r.error);
      },
    );
    const errors = await nightly.conversation("n-1", { store: memoryStore(), lm, temperature: 0.3 }).send({ n: 1 });
    expect(errors).toEqual([null]);
    expect(lm.requests.map((r) => r.temperature)).toEqual([0.3]);
  });
});
