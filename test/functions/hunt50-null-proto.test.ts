/**
 * A one-input function given its input as an object without a prototype
 * (`Object.create(null)`, what `querystring.parse` and some JSON readers
 * give): `{ q }` in the object form. It was taken as the value alone, so
 * `answer(querystring.parse("q=..."))` was refused ("q: expected string,
 * received object") where a function of two inputs takes the same kind of
 * object, and an `z.any()` input was sent `{ q: … }` wrapped once more.
 */
import { parse } from "node:querystring";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, program } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

describe("a one-input call given an object without a prototype", () => {
  it("is the object form, as for a function of two inputs", async () => {
    const f = ai("f", { description: "d", input: { q: z.string() } });
    const lm = scripted(["ok"]);
    expect(await f(parse("q=Where%20is%20A-1042%3F") as never, { lm })).toBe("ok");
    expect(lm.requests[0]!.messages[1]!.content).toBe("<q>\nWhere is A-1042?\n</q>");
  });

  it("an any input is given the value, not the object wrapped once more", async () => {
    const seen: unknown[] = [];
    const p = program("p", { description: "d", input: { q: z.any() }, effects: "reads" }, ({ q }) => {
      seen.push(q);
      return "ok";
    });
    await p(Object.assign(Object.create(null) as object, { q: 5 }));
    expect(seen).toEqual([5]);
  });
});
