/**
 * Hunt: evaluate's bad arguments against the real `openai` client and the local mock server: what is
 * refused up front is refused before any request reaches the server (its request count stays 0), and the
 * refusal is a FunctaiError (input-invalid) naming the row, whatever the input schema does when it reads a row.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, evaluate, FunctaiError, labeledFewShot, openai } from "../../src/index.js";
import { eachTestServer, fixtureJson, type MockServer } from "../providers/server.js";
import { rows, status } from "./desk.js";

let server: MockServer;
eachTestServer((s) => (server = s));

const lmOf = () => openai({ model: "gpt-4.1-mini", apiKey: "test-key", baseURL: `${server.url}/v1` });

describe("refused up front, nothing sent to the server", () => {
  it("rows with neither an expected column nor a metric: input-invalid naming the row; the server got no request", async () => {
    server.reply(...Array.from({ length: 20 }, () => ({ json: fixtureJson("openai/text.json") })));
    const fn = status.using({ lm: lmOf() });
    const bad = [rows[0]!, rows[1]!, { question: "What is the status of C-3301?" }, rows[3]!];
    await expect(evaluate(fn, bad, { concurrency: 8 })).rejects.toMatchObject({ code: "input-invalid", message: expect.stringMatching(/row 3 has no expected column/) });
    await expect(evaluate(fn, bad, { expected: "answer" })).rejects.toMatchObject({ code: "input-invalid", message: expect.stringMatching(/row 1 has no expected column \(answer\)/) });
    await expect(bootstrapFewShot(fn, bad)).rejects.toMatchObject({ code: "input-invalid" });
    expect(server.requests).toHaveLength(0);
    // the same rows with a metric are called: the server sees them
    const ev = await evaluate(fn, bad, { metric: () => 1, concurrency: 8 });
    expect(ev.rows.map((r) => r.error)).toEqual([null, null, null, null]);
    expect(server.requests).toHaveLength(4);
  });

  it("a row the input schema refuses: the run is refused (input-invalid, naming the row) before any row is sent", async () => {
    server.reply(...Array.from({ length: 20 }, () => ({ json: fixtureJson("openai/text.json") })));
    const fn = status.using({ lm: lmOf() });
    const typed = [rows[0]!, rows[1]!, { question: ["not", "text"], result: "x" }, rows[3]!];
    await expect(evaluate(fn, typed, { concurrency: 8 })).rejects.toMatchObject({ code: "input-invalid", message: expect.stringMatching(/row 3 has wrong inputs .*question/) });
    const limited = ai("limited", { description: "Answer.", input: { question: z.string().max(20) }, tools: [] });
    const long = [{ question: "short", result: "a" }, { question: "x".repeat(21), result: "b" }];
    await expect(evaluate(limited.using({ lm: lmOf() }), long)).rejects.toMatchObject({ code: "input-invalid", message: expect.stringMatching(/row 2 /) });
    expect(server.requests).toHaveLength(0);
  });
});

/**
 * An input schema that throws while it reads a row (a transform or refinement that throws, an async
 * refinement zod cannot run synchronously) refuses the run of evaluate, bootstrapFewShot and labeledFewShot
 * as a FunctaiError input-invalid naming the row, the thrown error kept as its cause, before anything is
 * sent: as a plain call of the same function says `input-invalid: … the input could not be read (…)`
 * (src/functions/definition.ts, parseInput). DESIGN: "Every error a user can see is a FunctaiError with a
 * code" and evaluate "only throws for bad arguments". (It threw the bare error: checkInputs in
 * src/evaluate/rows.ts called `schema.safeParse` with no try/catch, and safeParse only catches zod issues.)
 */
describe("an input schema that throws while reading a row", () => {
  const picky = ai("picky", {
    description: "Answer.",
    input: {
      question: z.string().transform((v) => {
        if (v.includes("bad")) throw new Error("transform threw on a bad row");
        return v;
      }),
    },
  });
  const data = [{ question: "good", result: "a" }, { question: "bad one", result: "b" }];

  it("a plain call of that function refuses the input as input-invalid (the promise evaluate's rows should keep)", async () => {
    await expect(picky("bad one", { lm: lmOf() })).rejects.toMatchObject({ code: "input-invalid", message: expect.stringContaining("transform threw") });
    expect(server.requests).toHaveLength(0);
  });

  it("evaluate refuses the run as input-invalid naming row 2 (a FunctaiError, the thrown error its cause), nothing sent", async () => {
    const e = await evaluate(picky.using({ lm: lmOf() }), data).then(() => null, (x: unknown) => x);
    expect(server.requests).toHaveLength(0);
    expect(e).toBeInstanceOf(FunctaiError);
    expect(e).toMatchObject({ code: "input-invalid", message: expect.stringMatching(/row 2's inputs could not be read \(transform threw on a bad row\)/) });
    expect((e as FunctaiError).cause).toMatchObject({ message: "transform threw on a bad row" });
  });

  it("bootstrapFewShot and labeledFewShot likewise (FunctaiError input-invalid naming row 2)", async () => {
    const boot = await bootstrapFewShot(picky, data, { teacher: lmOf() }).then(() => null, (x: unknown) => x);
    expect(boot).toBeInstanceOf(FunctaiError);
    expect(boot).toMatchObject({ code: "input-invalid", message: expect.stringMatching(/row 2/) });
    let labeled: unknown = null;
    try {
      labeledFewShot(picky, data);
    } catch (x) {
      labeled = x;
    }
    expect(labeled).toBeInstanceOf(FunctaiError);
    expect(labeled).toMatchObject({ code: "input-invalid", message: expect.stringMatching(/row 2/) });
    expect(server.requests).toHaveLength(0);
  });

  it("an async refinement: evaluate refuses input-invalid naming the row (a FunctaiError), as a plain call does", async () => {
    const checked = ai("checked", { description: "Answer.", input: { question: z.string().refine(async (v) => v.length > 0) } });
    await expect(checked("q", { lm: lmOf() })).rejects.toMatchObject({ code: "input-invalid" });
    const e = await evaluate(checked.using({ lm: lmOf() }), [{ question: "q", result: "a" }]).then(() => null, (x: unknown) => x);
    expect(e).toBeInstanceOf(FunctaiError);
    expect(e).toMatchObject({ code: "input-invalid", message: expect.stringMatching(/row 1's inputs could not be read/) });
    expect(server.requests).toHaveLength(0);
  });

  it("an optional input whose schema throws reading undefined: counted as required, the run refused input-invalid", async () => {
    // rowShape asks each input's schema whether it may be left out (parsing undefined): that threw before any row was read
    const optional = ai("optional", { description: "Answer.", input: { question: z.string().optional().refine(async () => true) } });
    const e = await evaluate(optional.using({ lm: lmOf() }), [{ question: "q", result: "a" }]).then(() => null, (x: unknown) => x);
    expect(e).toBeInstanceOf(FunctaiError);
    expect(e).toMatchObject({ code: "input-invalid", message: expect.stringMatching(/row 1's inputs could not be read/) });
    let labeled: unknown = null;
    try {
      labeledFewShot(optional, [{ question: "q", result: "a" }]);
    } catch (x) {
      labeled = x;
    }
    expect(labeled).toMatchObject({ code: "input-invalid", message: expect.stringMatching(/row 1/) });
    expect(server.requests).toHaveLength(0);
  });
});
