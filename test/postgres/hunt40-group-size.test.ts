/**
 * Hunt 40: appends that go together in one statement (group commit) past
 * what PostgreSQL takes in one message. Each append's batch is checked
 * against the 1 GB limit alone (hunt 37), but two of about 570 MB each,
 * out at once on other conversations, were made into ONE statement of
 * 1.14 GB: the server drops the connection after reading it (a minute and
 * more), and both appends failed as a lost connection, "may be retried"
 * (they never can be, together). The grouped statement's arguments are now
 * counted when they could be past the limit, and such a group is not sent
 * (NotSent): each append goes alone, as each fits. Checked, as hunt 37's
 * count, on small limits (gigabytes are too heavy for every run), on the
 * function that makes the statement's arguments.
 */
import { describe, expect, it } from "vitest";
import { NotSent } from "../../adapters/postgres/grouped.js";
import { groupedArguments } from "../../adapters/postgres/store.js";

/** An append of `records` (each a JSON object) to `conversation`, as the store groups it. */
const append = (conversation: string, records: object[]) => ({
  conversation,
  json: JSON.stringify(records),
  count: records.length,
  expect: null,
  fence: null,
});

const big = (n: number) => [{ kind: "tool", output: "€".repeat(n) }];

describe("the arguments of a grouped append statement, against the limit of one message", () => {
  it("two appends that each fit but not together: not sent as one (NotSent: each goes alone)", () => {
    const a = append("a", big(100));
    const b = append("b", big(100));
    // each batch alone is about 330 bytes of UTF-8; together with their other arguments, about 700
    expect(() => groupedArguments([a, b], 500)).toThrow(NotSent);
    expect(() => groupedArguments([a, b], 500)).toThrow(/more than PostgreSQL takes/);
  });

  it("appends that fit together are made into one statement's arguments, their records as they were written", () => {
    const a = append("a", big(100));
    const b = append("b", big(100));
    const [calls, records] = groupedArguments([a, b], 5_000);
    expect(JSON.parse(calls)).toEqual([
      ["a", null, null, null, null, 1],
      ["b", null, null, null, null, 1],
    ]);
    expect(JSON.parse(records)).toEqual([big(100), big(100)]);
  });

  it("the count is of UTF-8 bytes (3 for each €), not of UTF-16 units, and the limit itself fits", () => {
    const items = [append("a", big(100)), append("b", big(100))];
    const [calls, records] = groupedArguments(items, 100_000);
    const bytes = new TextEncoder().encode(calls).length + new TextEncoder().encode(records).length;
    expect(bytes).toBeGreaterThan(calls.length + records.length + 300); // (so a count of units would be short)
    expect(() => groupedArguments(items, bytes)).not.toThrow();
    expect(() => groupedArguments(items, bytes - 1)).toThrow(NotSent);
  });
});
