/**
 * Hunt 150: a key named like a property every object inherits
 * (`constructor`, `toString`, `valueOf`, …) inside a nested object. zod
 * reads a key with `value[key]`, so one the value leaves out finds
 * Object.prototype's function. Hunt 20 mended this for an object schema's
 * top-level keys only: nested (`{ race: { constructor? } }`, an array's
 * items, a record's values), an optional key the model left out was refused
 * as "received function" at every call (the model, told it had sent a
 * function, could only ever write the key), a default there never applied,
 * and an AI function's answer so written was output-invalid after a second,
 * paid, reply. Now it is read as left out, at any depth; what the tool is
 * given is a plain object, as before.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

describe("an inherited name, left out, inside a nested object", () => {
  it("a tool's optional race.constructor and items[].valueOf the model leaves out: the tool runs, defaults applied", async () => {
    const seen: unknown[] = [];
    const record = tool(
      "record_race",
      {
        description: "Record a race result.",
        input: {
          race: z.object({ winner: z.string(), constructor: z.string().optional(), toString: z.string().default("plain") }),
          laps: z.array(z.object({ n: z.number(), valueOf: z.number().optional() })),
          notes: z.record(z.string(), z.object({ hasOwnProperty: z.boolean().optional() })),
        },
        effects: "changes",
      },
      (input) => (seen.push(input), "recorded"),
    );
    const desk = ai("desk", { description: "Record it.", input: { ask: z.string() }, tools: [record] });
    const lm = scripted([
      { toolCalls: [{ name: "record_race", input: { race: { winner: "Ana" }, laps: [{ n: 1 }, { n: 2, valueOf: 7 }], notes: { a: {} } } }] },
      "Done.",
    ]);
    expect(await desk("Ana won.", { lm })).toBe("Done.");
    expect(lm.requests[1]!.messages.at(-1)).toMatchObject({ role: "tool", content: "recorded" });
    expect(seen).toEqual([{ race: { winner: "Ana", toString: "plain" }, laps: [{ n: 1 }, { n: 2, valueOf: 7 }], notes: { a: {} } }] as unknown[]);
    const given = seen[0] as { race: object; laps: object[] };
    // what the body is given are plain objects, as zod makes them (never the copies read without a prototype)
    expect(Object.getPrototypeOf(given.race)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(given.laps[0])).toBe(Object.prototype);
    expect(Object.keys(given.race)).toEqual(["winner", "toString"]);
  });

  it("a required one left out is refused as missing (received undefined, never function), and the model is told so", async () => {
    const record = tool(
      "record_race",
      { description: "Record.", input: { race: z.object({ constructor: z.string() }) }, effects: "changes" },
      () => "recorded",
    );
    const desk = ai("desk", { description: "Record it.", input: { ask: z.string() }, tools: [record] });
    const lm = scripted([{ toolCalls: [{ name: "record_race", input: { race: {} } }] }, "Gave up."]);
    expect(await desk("go", { lm })).toBe("Gave up.");
    const told = lm.requests[1]!.messages.at(-1)!;
    expect(told.content).toContain("race.constructor: Invalid input: expected string, received undefined");
    expect(told.content).not.toContain("received function");
  });

  it("an AI function's answer leaving one out is taken at the first reply, not paid for again", async () => {
    const lm = scripted(['<result>\n{"car": {"team": "Red"}, "stints": [{"laps": 3}]}\n</result>']);
    const plan = ai("plan", {
      description: "Plan.",
      input: { q: z.string() },
      output: z.object({
        car: z.object({ team: z.string(), constructor: z.string().optional() }),
        stints: z.array(z.object({ laps: z.number(), toString: z.string().optional() })),
      }),
    });
    expect(await plan("go", { lm })).toEqual({ car: { team: "Red" }, stints: [{ laps: 3 }] });
    expect(lm.requests).toHaveLength(1);
  });

  it("an input given from code with the same object twice: each is read alike", async () => {
    const lm = scripted(["ok"]);
    const pair = ai("pair", {
      description: "Compare.",
      input: { cars: z.array(z.object({ team: z.string(), constructor: z.string().optional() })) },
    });
    const car = { team: "Red" };
    // (typed as TypeScript sees a plain object: its constructor is inherited)
    expect(await pair({ cars: [car, car] } as never, { lm })).toBe("ok");
    expect(lm.requests[0]!.messages.at(-1)!.content).toContain('[{"team":"Red"},{"team":"Red"}]');
  });

  it("a frozen input from code, the object to read deep inside it: read, the input left as it was", async () => {
    const lm = scripted(["ok"]);
    const pick = ai("pick", {
      description: "Pick.",
      input: { race: z.object({ cars: z.array(z.object({ team: z.string(), constructor: z.string().optional() })) }), season: z.number() },
    });
    const race = Object.freeze({ cars: Object.freeze([Object.freeze({ team: "Red" })]) });
    expect(await pick({ race, season: 2026 } as never, { lm })).toBe("ok");
    expect(lm.requests[0]!.messages.at(-1)!.content).toContain('{"cars":[{"team":"Red"}]}');
    expect(Object.keys(race.cars[0]!)).toEqual(["team"]);
  });
});
