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
 * BUG: an input schema that throws while it reads a row (a transform or refinement that throws, an async
 * refinement zod cannot run synchronously) makes evaluate, bootstrapFewShot and labeledFewShot throw that bare
 * error (an Error, a $ZodAsyncError) instead of a FunctaiError. DESIGN: "Every error a user can see is a
 * FunctaiError with a code" and evaluate "only throws for bad arguments" (input-invalid). A plain call of the
 * same function says `input-invalid: … the input could not be read (…)` (src/functions/definition.ts, readInput's
 * caller). Cause: checkInputs (src/evaluate/rows.ts:85) calls `schema.safeParse` with no try/catch, so what the
 * schema throws escapes (safeParse only catches zod issues). Fix: catch it there and refuse the row as
 * input-invalid ("row N: the input could not be read (…)"), as the call path does.
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

  it.fails("evaluate refuses the run as input-invalid naming row 2 (a FunctaiError), nothing sent", async () => {
    const e = await evaluate(picky.using({ lm: lmOf() }), data).then(() => null, (x: unknown) => x);
    expect(server.requests).toHaveLength(0);
    expect(e).toBeInstanceOf(FunctaiError);
    expect(e).toMatchObject({ code: "input-invalid", message: expect.stringMatching(/row 2/) });
  });

  it.fails("bootstrapFewShot and labeledFewShot likewise (FunctaiError input-invalid)", async () => {
    const boot = await bootstrapFewShot(picky, data, { teacher: lmOf() }).then(() => null, (x: unknown) => x);
    expect(boot).toBeInstanceOf(FunctaiError);
    let labeled: unknown = null;
    try {
      labeledFewShot(picky, data);
    } catch (x) {
      labeled = x;
    }
    expect(labeled).toBeInstanceOf(FunctaiError);
    expect(server.requests).toHaveLength(0);
  });

  it.fails("an async refinement: evaluate refuses input-invalid (a FunctaiError), as a plain call does", async () => {
    const checked = ai("checked", { description: "Answer.", input: { question: z.string().refine(async (v) => v.length > 0) } });
    await expect(checked("q", { lm: lmOf() })).rejects.toMatchObject({ code: "input-invalid" });
    const e = await evaluate(checked.using({ lm: lmOf() }), [{ question: "q", result: "a" }]).then(() => null, (x: unknown) => x);
    expect(e).toBeInstanceOf(FunctaiError);
    expect(server.requests).toHaveLength(0);
  });
});
