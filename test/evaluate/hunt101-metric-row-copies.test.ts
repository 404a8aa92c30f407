/**
 * Hunt 101: what a metric is given, for rows that are not plain JSON-like records.
 *
 * Hunt 90 gave each metric copies made with `copyOf`, which keeps a Date, a Map and a Set themselves, and gave the
 * row as it was when a column could not be read (a getter or a Proxy trap that throws on a column the call never
 * reads). So a metric changed the user's own data, and a row the metric could not read failed only after its call
 * was paid for. Now a row that cannot be read whole is refused before any model call (`input-invalid`, naming the
 * row and the column) when a metric is given the rows, and a Date, a Map and a Set are copied.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ai, bootstrapFewShot, evaluate, program } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { refusalOf } from "../fixtures/refused.js";

const pagedOut = new Error("cell 9 could not be paged in");

/** A row whose `notes` column (which no input or expected output names) throws as it is read. */
const withBadNotes = (): Record<string, unknown> => ({
  q: "alpha",
  get notes(): string {
    throw pagedOut;
  },
});

/** A row whose keys cannot be listed (a Proxy over a source that fails), its columns readable one by one. */
const unlistable = (): Record<string, unknown> =>
  new Proxy(
    { q: "alpha" },
    {
      ownKeys() {
        throw pagedOut;
      },
    },
  );

describe("a row a metric could not be given a copy of", () => {
  const cases: [string, () => Record<string, unknown>, RegExp][] = [
    ["a column nothing else reads throws as it is read", withBadNotes, /row 1's column notes could not be read \(cell 9 could not be paged in\)/],
    ["its columns cannot be listed", unlistable, /row 1's columns could not be read \(cell 9 could not be paged in\)/],
  ];
  for (const [what, make, message] of cases) {
    it(`${what}: evaluate and bootstrapFewShot refuse it input-invalid before any model call`, async () => {
      const lm = scripted(Array.from({ length: 4 }, () => "<result>\nalpha\n</result>"));
      const echo = ai("echo", { description: "Say the word back.", input: { q: z.string() } }).using({ lm });
      const metric = (): number => 1;
      for (const run of [() => evaluate(echo, [make()], { metric }), () => bootstrapFewShot(echo, [make()], { metric, maxLabeled: 0 })]) {
        const e = await refusalOf(run);
        expect(e).toMatchObject({ code: "input-invalid", cause: pagedOut });
        expect((e as Error).message).toMatch(message);
      }
      expect(lm.requests).toHaveLength(0);
    });
  }

  it("a getter that throws only once the row is scored fails that row (metric-failed), never handing the metric the user's row", async () => {
    let reads = 0;
    const row: Record<string, unknown> = {
      q: "alpha",
      get notes(): string {
        reads += 1;
        if (reads > 1) throw pagedOut;
        return "fine at first";
      },
    };
    const echo = program("echo", { description: "Say the word back.", input: { q: z.string() } }, async ({ q }) => q);
    const seen: unknown[] = [];
    const ev = await evaluate(echo, [row], { metric: (r) => (seen.push(r), 1) });
    expect(seen).toEqual([]);
    expect(ev.rows[0]!.error).toMatch(/^metric-failed: metric score could not be given a copy of the row: cell 9 could not be paged in/);
    expect(ev.rows[0]!.scores).toEqual({ score: 0 });
  });
});

describe("a prediction a metric could not be given a copy of", () => {
  it("fails its row metric-failed, never handing the metric the function's own answer", async () => {
    const lazy = program("lazy", { description: "Answers lazily.", input: { q: z.string() }, output: z.any() }, async () => ({
      a: 1,
      get b(): number {
        throw pagedOut;
      },
    }));
    const seen: unknown[] = [];
    const ev = await evaluate(lazy, [{ q: "alpha" }], { metric: (_row, p) => (seen.push(p), 1) });
    expect(seen).toEqual([]);
    expect(ev.rows[0]!.error).toBe("metric-failed: metric score could not be given a copy of the prediction: cell 9 could not be paged in");
    expect(ev.score).toBe(0);
  });
});

describe("an expected output that cannot be read deep inside", () => {
  it("is refused input-invalid before any model call, where the default metric failed the row once the call was paid for", async () => {
    const lm = scripted(Array.from({ length: 4 }, () => '<result>\n{"tags": ["x"]}\n</result>'));
    const fn = ai("tagger", { description: "Tags the text.", input: { text: z.string() }, output: z.object({ tags: z.array(z.string()) }) }).using({
      lm,
    });
    const tags = new Proxy(["x"], {
      get(target, key) {
        if (key === "0") throw pagedOut;
        return Reflect.get(target, key) as unknown;
      },
    });
    const e = await refusalOf(() => evaluate(fn, [{ text: "hello", tags }]));
    expect(e).toMatchObject({ code: "input-invalid", cause: pagedOut });
    expect((e as Error).message).toMatch(/row 1's column tags could not be read \(cell 9 could not be paged in\)/);
    expect(lm.requests).toHaveLength(0);
  });
});

describe("a metric that changes a Date, a Map or a Set of its row", () => {
  it("leaves the user's row as it was, and sees copies holding the same data", async () => {
    const at = new Date(0);
    const counts = new Map([["a", 1]]);
    const tags = new Set(["x"]);
    const rows = [{ q: "alpha", at, counts, tags }];
    const echo = program("echo", { description: "Say the word back.", input: { q: z.string() } }, async ({ q }) => q);
    const seen: unknown[] = [];
    const ev = await evaluate(echo, rows, {
      metric: (row) => {
        seen.push([(row.at as Date).getTime(), [...(row.counts as Map<string, number>)], [...(row.tags as Set<string>)]]);
        (row.at as Date).setTime(5);
        (row.counts as Map<string, number>).set("a", 2);
        (row.tags as Set<string>).add("y");
        return 1;
      },
    });
    expect(ev.rows[0]!.error).toBeNull();
    expect(seen).toEqual([[0, [["a", 1]], ["x"]]]);
    expect(at.getTime()).toBe(0);
    expect([...counts]).toEqual([["a", 1]]);
    expect([...tags]).toEqual(["x"]);
    expect(ev.rows[0]!.row.at).toBe(at);
  });

  it("keeps a cycle through a Map a cycle in the copy", async () => {
    const row: Record<string, unknown> = { q: "alpha" };
    row.index = new Map([["self", row]]);
    const echo = program("echo", { description: "Say the word back.", input: { q: z.string() } }, async ({ q }) => q);
    const ev = await evaluate(echo, [row], {
      metric: (r) => ((r.index as Map<string, unknown>).get("self") === r && r !== row ? 1 : 0),
    });
    expect(ev.rows[0]!.scores).toEqual({ score: 1 });
  });
});
