/**
 * Hunt 152: a `reply` record whose `response` is no model reply. The record's schema takes any `response` (a reader of
 * the conversation never reads it), but a resumed run replays it as the model's reply: one whose text was a number, whose
 * tool calls were no list, whose usage was lost, failed the turn for good with a bare TypeError (as if the model or a
 * tool had failed), or was misread (a call without its id or name). It is refused (`store-corrupt`, naming the record's
 * seq) when the journal reads the turn's records, before anything of the turn runs again: the resumed run pays for
 * nothing, runs nothing, ends nothing, and the turn stays interrupted, to be resumed once the record is mended.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { fsStore } from "../../adapters/node-fs/index.js";
import { Journal } from "../../src/engine/journal.js";
import { ai, tool, Waiting, type FunctaiError } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { until } from "../durable/fixtures/hunt2-children.js";

const AT = "2026-09-30T10:00:00.000Z";
type Rec = Record<string, unknown>;
const REPLY = {
  text: "",
  toolCalls: [{ id: "p1", name: "pay", input: { amount: 5 } }],
  finishReason: "tool_calls",
  usage: { inputTokens: 10, outputTokens: 3 },
};
const reply = (response: unknown, more: Rec = {}): Rec => ({ functai_conversation: 1, at: AT, seq: 3, kind: "reply", turn: "t1", key: "k", response, ...more });
const turnRecords = (...records: Rec[]): Rec[] => [
  { functai_conversation: 1, at: AT, seq: 1, kind: "turn", turn: "t1", parent: null, program: "v1", inputs: {} },
  { functai_conversation: 1, at: AT, seq: 2, kind: "lease", turn: "t1", holder: "h", until: AT, attempt: 1 },
  ...records,
];
const journalOf = (records: Rec[]) => new Journal({ turn: "t1", attempt: 2, records });
const refusal = (records: Rec[]): unknown => {
  try {
    journalOf(records);
  } catch (e) {
    return e;
  }
  return "read";
};

describe("hunt 152: a reply record whose response is no model reply is refused when the journal reads it", () => {
  const damaged: [string, unknown, RegExp][] = [
    ["no response at all (null)", null, /the reply is null, not an object/],
    ["its text a number", { ...REPLY, text: 5 }, /its text is number, not a string/],
    ["its tool calls not a list", { ...REPLY, toolCalls: { id: "p1", name: "pay" } }, /its toolCalls is object, not an array/],
    ["a tool call without its id", { ...REPLY, toolCalls: [{ name: "pay", input: {} }] }, /its tool call 1 has no string id and name/],
    ["a tool call without its name", { ...REPLY, toolCalls: [{ id: "p1", input: {} }] }, /its tool call 1 has no string id and name/],
    ["a tool call that is null", { ...REPLY, toolCalls: [null] }, /its tool call 1 has no string id and name/],
    ["its usage lost", { ...REPLY, usage: undefined }, /its usage has no inputTokens and outputTokens/],
    ["its usage's tokens a text", { ...REPLY, usage: { inputTokens: "10", outputTokens: 3 } }, /its usage has no inputTokens and outputTokens/],
    ["its finishReason one functai has not", { ...REPLY, finishReason: "max_tokens" }, /its finishReason is "max_tokens", not one of/],
  ];
  for (const [name, response, where] of damaged)
    it(`${name}: store-corrupt, naming the record's seq and what is wrong`, () => {
      const e = refusal(turnRecords(reply(response))) as FunctaiError;
      expect(e).toMatchObject({ name: "FunctaiError", code: "store-corrupt" });
      expect(e.message).toMatch(/record 3, a reply of turn "t1", holds no model reply/);
      expect(e.message).toMatch(where);
    });

  it("guard: a reply as the engine keeps it is read and replayed as it was (extra keys, a call's inputError, no input)", () => {
    const kept = { ...REPLY, model: "m1", extra: [1], toolCalls: [{ id: "p1", name: "pay", inputError: "bad JSON" }, { id: "p2", name: "pay", input: 1, reasoning: "r" }] };
    expect(journalOf(turnRecords(reply(kept))).takeReply("k")).toEqual(kept);
  });
});

// --- as a user meets it: a conversation file whose reply line was damaged (edited by hand, a bad restore) ---------------

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const paid: number[] = [];
const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => {
  paid.push(amount);
  return `paid ${amount}`;
});
const desk = ai("desk", { description: "Pay what is asked.", input: { ask: z.string() }, tools: [pay] });
const asksToPay = () => scripted([{ toolCalls: [{ id: "p1", name: "pay", input: { amount: 5 } }] }]);
/** The model of a resumed run: its first reply is recorded, so it is asked only for the answer. */
const answers = () => scripted(["paid it"]);

/** Rewrites the conversation file's reply record with `edit` (its line's batch mark kept). */
async function editReply(dir: string, edit: (response: Rec) => unknown): Promise<void> {
  const file = join(dir, "conversations", "c.jsonl");
  const lines = (await readFile(file, "utf8")).split("\n");
  const at = lines.findIndex((l) => l.includes('"kind":"reply"'));
  const record = JSON.parse(lines[at]!) as Rec;
  lines[at] = `${JSON.stringify({ ...record, response: edit(record.response as Rec) })}${lines[at]!.endsWith(" ") ? " " : ""}`;
  await writeFile(file, lines.join("\n"));
}

describe("hunt 152: a turn resumed over a damaged reply record (file store)", () => {
  it("is refused store-corrupt naming the record: nothing paid, nothing run, nothing ended; resumed once mended", async () => {
    paid.length = 0;
    const dir = await mkdtemp(join(tmpdir(), "functai-hunt152-"));
    dirs.push(dir);
    const first = asksToPay();
    expect(await desk.conversation("c", { store: fsStore(dir), approve: "changes", lm: first }).send("pay 5").catch((e: unknown) => e)).toBeInstanceOf(Waiting);
    const records = await fsStore(dir).read("c");
    const seq = records.find((r) => r.kind === "reply")!.seq;
    let kept: unknown;
    await editReply(dir, (response) => {
      kept = response;
      return { ...response, text: 5, usage: "lost" };
    });

    const lm = answers();
    const chat = desk.conversation("c", { store: fsStore(dir), approve: "changes", lm });
    const [turn] = await chat.turns();
    const error = (await turn!.approve({ by: "maria" }).catch((e: unknown) => e)) as FunctaiError;
    expect(error).toMatchObject({ code: "store-corrupt", message: expect.stringMatching(new RegExp(`record ${seq}\\b.*reply`)) });
    expect(paid).toEqual([]);
    expect(lm.requests).toHaveLength(0);
    // (the claim's let-go is written as the refusal is thrown, not awaited by it: read once it is there)
    await until("the turn to be let go", async () => (await chat.turns())[0]!.state !== "running");
    expect((await chat.turns())[0]!.state).toBe("interrupted");
    expect((await fsStore(dir).read("c")).filter((r) => r.kind === "ended")).toEqual([]);

    // mended (the reply put back as it was kept): the turn goes on from its reply, paying for none of it again
    await editReply(dir, () => kept);
    const again = answers();
    const mended = desk.conversation("c", { store: fsStore(dir), approve: "changes", lm: again });
    expect(await (await mended.turns())[0]!.resume()).toBe("paid it");
    expect(paid).toEqual([5]);
    expect(again.requests).toHaveLength(1);
  });
});
