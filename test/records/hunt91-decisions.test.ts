/**
 * Hunt 91: a stale lease, a way a damaged store was misread whose fix was a
 * decision for the contract (DESIGN reads "the last lease" literally).
 */
import { describe, expect, it } from "vitest";
import { readConversation } from "../../src/records/index.js";

const NOW = "2026-09-30T10:00:00Z";
const at = "2026-09-30T09:00:00.000000Z";
const LIVE = "2026-09-30T10:00:30Z";
const GONE = "2026-09-30T09:00:30Z";
type Rec = Record<string, unknown>;
const journal = (...records: Rec[]): Rec[] => records.map((r, i) => ({ functai_conversation: 1, at, seq: i + 1, ...r }));
const turn = (id: string): Rec => ({ kind: "turn", turn: id, parent: null, program: "v1", inputs: {} });
const lease = (id: string, attempt: number, holder: string, until: string): Rec => ({ kind: "lease", turn: id, holder, until, attempt });
const read = (records: Rec[]) => readConversation(records, { now: NOW });

describe("hunt 91: a lease put back", () => {
  // A `lease` whose attempt is below one already walked for its turn. A claim appends attempt + 1 and renewals are
  // fenced, so attempts only go up: such a lease is an old one put back (a merge, a restore). Read as "the last
  // lease", its holder and its run-out `until` made a turn that attempt 2 runs read interrupted (claimable) under a
  // holder that no longer runs it. Decided: refused (`skipped`, like a seq out of order). (A gap in the seqs is not
  // refused: records of kinds and formats this version does not know may sit anywhere, and their seqs are theirs.)
  it("a lease of an attempt lower than one before it is refused, not read as the turn's last lease", () => {
    const s = read(journal(turn("t1"), lease("t1", 1, "h1", GONE), lease("t1", 2, "h2", LIVE), lease("t1", 1, "h1", GONE)));
    expect(s.skipped.map((x) => x.seq)).toEqual([4]);
    expect(s.turns.get("t1")).toMatchObject({ state: "running", holder: "h2", attempt: 2 });
  });
});
