/**
 * A function with one input that may be left out and that also takes `{}`
 * as its value (an object of optional fields, a record): a call given `{}`
 * could mean either, and the two are different calls (no block for the
 * input, or `{}` as its value). It was read as the value, so a call (or an
 * evaluate row) meant to leave the input out sent the model `{}`. It is
 * refused before any model call, saying how to write each; `fn()` leaves it
 * out, `fn({ filter: {} })` gives `{}`.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, evaluate, FunctaiError, memoryStore, program } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const filterInput = { filter: z.object({ status: z.string().optional() }).optional() };

describe("{} for a single input that may be absent and may be {}", () => {
  it("is refused before any model call, naming both ways to write it", async () => {
    const f = ai("f", { description: "d", input: filterInput });
    const lm = scripted(["never"]);
    const err = await f({}, { lm }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FunctaiError);
    expect((err as FunctaiError).code).toBe("input-invalid");
    expect((err as FunctaiError).message).toContain("{ filter: {} }");
    expect(lm.requests).toHaveLength(0);
  });

  it("predict, stream and a conversation refuse it too", async () => {
    const f = ai("f", { description: "d", input: filterInput });
    const lm = scripted(["never"]);
    const p = await f.predict({}, { lm }).catch((e: unknown) => e);
    expect((p as FunctaiError).code).toBe("input-invalid");
    expect(() => f.stream({}, { lm })).toThrow(/filter/);
    const sent = await f
      .conversation("c1", { lm, store: memoryStore() })
      .send({})
      .catch((e: unknown) => e);
    expect((sent as FunctaiError).code).toBe("input-invalid");
    expect(lm.requests).toHaveLength(0);
  });

  it("a program's body is never handed {} for an input left out", async () => {
    const seen: unknown[] = [];
    const p = program("p", { description: "d", input: filterInput, effects: "reads" }, ({ filter }) => {
      seen.push(filter);
      return "ok";
    });
    const err = await p({}).catch((e: unknown) => e);
    expect((err as FunctaiError).code).toBe("input-invalid");
    expect(seen).toEqual([]);
    expect(await p(undefined as never)).toBe("ok");
    expect(await p({ filter: {} })).toBe("ok");
    expect(seen).toEqual([undefined, {}]);
  });

  it("left out with fn() or { filter: undefined }, given as { filter: {} }: each sent as meant", async () => {
    const f = ai("f", { description: "d", input: filterInput });
    const lm = scripted(["a", "b", "c"]);
    await f(undefined as never, { lm });
    await f({ filter: undefined }, { lm });
    await f({ filter: {} }, { lm });
    expect(lm.requests.map((r) => r.messages[1]!.content)).toEqual(["", "", "<filter>\n{}\n</filter>"]);
  });

  it("a record input that may be absent: {} refused the same way", async () => {
    const f = ai("f", { description: "d", input: { tags: z.record(z.string(), z.string()).optional() } });
    const lm = scripted(["never"]);
    const err = await f({}, { lm }).catch((e: unknown) => e);
    expect((err as FunctaiError).code).toBe("input-invalid");
    expect(lm.requests).toHaveLength(0);
  });

  it("where both readings give the same input (a default of {}), {} is taken", async () => {
    const f = ai("f", { description: "d", input: { filter: z.object({ status: z.string().optional() }).default({}) } });
    const lm = scripted(["ok"]);
    expect(await f({}, { lm })).toBe("ok");
    expect(lm.requests[0]!.messages[1]!.content).toBe("<filter>\n{}\n</filter>");
  });

  it("where only one reading fits, it is taken as before", async () => {
    // the value alone: a required object input
    const f = ai("f", { description: "d", input: { filter: z.object({ status: z.string().optional() }) } });
    // left out: an optional string input
    const g = ai("g", { description: "d", input: { note: z.string().optional() } });
    const lm = scripted(["one", "two"]);
    expect(await f({}, { lm })).toBe("one");
    expect(await g({}, { lm })).toBe("two");
    expect(lm.requests.map((r) => r.messages[1]!.content)).toEqual(["<filter>\n{}\n</filter>", ""]);
  });

  it("a reading the schema throws on does not fit: the other is taken, as before", async () => {
    const f = ai("f", { description: "d", input: { q: z.any().transform((v: { length?: number }) => v.length ?? 0) } });
    const lm = scripted(["ok"]);
    expect(await f({}, { lm })).toBe("ok");
    expect(lm.requests[0]!.messages[1]!.content).toBe("<q>\n0\n</q>");
  });
});

describe("an evaluate row without the optional input", () => {
  it("never sends the model {} for it", async () => {
    const f = ai("f", { description: "d", input: filterInput });
    const lm = scripted(["ok", "ok"]);
    const ev = await evaluate(f.using({ lm }), [{ result: "ok" }, { filter: { status: "open" }, result: "ok" }], { concurrency: 1 }).catch(
      (e: unknown) => e,
    );
    expect(ev).not.toBeInstanceOf(Error);
    expect(lm.requests.length).toBeGreaterThan(0);
    for (const r of lm.requests) expect(r.messages[1]!.content).not.toBe("<filter>\n{}\n</filter>");
  });

  // A row's inputs (inputsOf) were `{}` for a row without the column, which a one-input call refuses as ambiguous:
  // the row failed (scored 0) where the up-front check took it as the input left out. They name the one input now.
  it("is called with the input left out, as the up-front check read it", async () => {
    const f = ai("f", { description: "d", input: filterInput });
    const lm = scripted(["ok", "ok"]);
    const ev = await evaluate(f.using({ lm }), [{ result: "ok" }]);
    expect(ev.rows[0]!.error).toBeNull();
    expect(lm.requests[0]!.messages[1]!.content).toBe("");
  });
});
