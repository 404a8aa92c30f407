/**
 * Hunt 37: an append PostgreSQL cannot take. A value (and a message) is at
 * most 1 GB there; a JavaScript string of 360 million "€" is 1.08 GB as
 * UTF-8. Sent anyway (found on a real server, in a run of 80 s and several
 * GB of memory, too heavy for every run of the suite), it took a minute and
 * more, then failed as "the connection was lost … the operation may be
 * retried" (it never can be). The store now counts a batch's UTF-8 bytes
 * when it could be past the limit and refuses it, `store-io`, before
 * anything is sent. Here the count is checked against small limits, across
 * the chunks it counts in (1,048,576 UTF-16 units each).
 */
import { describe, expect, it } from "vitest";
import { bytesPastLimit } from "../../adapters/postgres/store.js";

const CHUNK = 1 << 20;

describe("the UTF-8 size of a batch past a limit", () => {
  it("a text that cannot be past the limit (3 bytes a unit at most) is not counted: null", () => {
    expect(bytesPastLimit("€".repeat(100), 300)).toBeNull();
  });

  it("counts 3 bytes for each €, 1 for ASCII: past the limit gives the count, at it gives null", () => {
    expect(bytesPastLimit("€".repeat(101), 300)).toBe(303);
    expect(bytesPastLimit(`${"€".repeat(100)}a`, 302)).toBeNull();
    expect(bytesPastLimit(`${"€".repeat(100)}ab`, 301)).toBe(302);
  });

  it("across chunks: a surrogate pair split by a chunk's end is counted whole (4 bytes, not two replacement characters of 3)", () => {
    const text = `${"a".repeat(CHUNK - 1)}😀${"a".repeat(10)}`; // the pair's first half ends the first chunk
    expect(text.length).toBe(CHUNK + 11);
    expect(bytesPastLimit(text, CHUNK)).toBe(CHUNK - 1 + 4 + 10);
    const many = "€".repeat(3 * CHUNK + 7);
    expect(bytesPastLimit(many, 3 * CHUNK)).toBe(3 * (3 * CHUNK + 7));
  });

  it("the real limit is PostgreSQL's 1 GB: 360 million ASCII characters are counted (they could be past it) and are not", () => {
    expect(bytesPastLimit("a".repeat(360_000_000))).toBeNull();
  });
});
