import { describe, expect, it } from "vitest";
import { type AppendSender, type GroupedAppend, appendGroup } from "../../adapters/postgres/group.js";
import { Grouped, NotSent, oneOrMany } from "../../adapters/postgres/grouped.js";

type AppendGroup = Grouped<GroupedAppend, number>;

/** A statement the test answers by hand. */
interface Sent {
  items: GroupedAppend[];
  grouped: boolean;
  answer(lengths: number[]): void;
  fail(e: unknown): void;
}

/** A sender that records each statement and lets the test answer it; `one` answers at once when `auto` says how. */
function manual(auto?: (item: GroupedAppend) => number | Error): { send: AppendSender; sent: Sent[] } {
  const sent: Sent[] = [];
  const statement = (items: GroupedAppend[], grouped: boolean) =>
    new Promise<number[]>((resolve, reject) => sent.push({ items, grouped, answer: resolve, fail: reject }));
  return {
    sent,
    send: {
      one: async (item) => {
        if (auto) {
          const r = auto(item);
          if (r instanceof Error) throw r;
          return r;
        }
        return (await statement([item], false))[0]!;
      },
      many: (items) => statement([...items], true),
    },
  };
}

const item = (conversation: string, expect: number | null = null): GroupedAppend => ({
  conversation,
  json: `[{"kind":"x","from":${JSON.stringify(conversation)}}]`,
  count: 1,
  expect,
  fence: null,
});

const settled = <T>(p: Promise<T>) =>
  p.then(
    (v) => ({ ok: true as const, v }),
    (e: unknown) => ({ ok: false as const, e }),
  );
const tick = () => new Promise((r) => setTimeout(r, 0));

/**
 * A lone append (out at once, answered with 1), and `ids` appended while it
 * was out: resolves once their group is out, to their outcomes to come.
 */
async function groupOut(group: AppendGroup, sent: Sent[], ids: readonly string[]) {
  const lone = group.run(item(`lone-${sent.length}`));
  const results = ids.map((id) => settled(group.run(item(id))));
  sent.at(-1)!.answer([1]);
  expect(await lone).toBe(1);
  await tick();
  return results;
}

/** An error the server answered a statement with (its transaction rolled back), as pg gives it. */
const serverError = (message: string) => Object.assign(new Error(message), { severity: "ERROR", code: "P0001" });

describe("appendGroup (group commit of appends)", () => {
  it("sends a lone append at once, alone", async () => {
    const { send, sent } = manual();
    const group = appendGroup(send, 1);
    const done = group.run(item("a"));
    expect(sent.map((s) => [s.grouped, s.items.map((i) => i.conversation)])).toEqual([[false, ["a"]]]);
    sent[0]!.answer([7]);
    expect(await done).toBe(7);
  });

  it("appends that come while every lane is out wait, then go as one statement, each with its own result", async () => {
    const { send, sent } = manual();
    const group = appendGroup(send, 2);
    const first = [group.run(item("a")), group.run(item("b"))];
    const later = [group.run(item("d")), group.run(item("c", 4)), group.run(item("c", 5))];
    expect(sent).toHaveLength(2); // two lanes out; the three wait
    sent[1]!.answer([1]);
    await tick();
    expect(sent).toHaveLength(3);
    // ordered by conversation (every host takes the rows' locks in one order), one conversation's in the order they came
    expect(sent[2]!.grouped).toBe(true);
    expect(sent[2]!.items.map((i) => [i.conversation, i.expect])).toEqual([
      ["c", 4],
      ["c", 5],
      ["d", null],
    ]);
    sent[2]!.answer([5, -2 - 5, 9]); // c's second finds another length: its own outcome only
    expect(await later[0]).toBe(9);
    expect(await later[1]).toBe(5);
    expect(await later[2]).toBe(-7);
    expect(await first[1]).toBe(1);
    sent[0]!.answer([3]);
    expect(await first[0]).toBe(3);
  });

  it("a group the server refused whole (nothing written) is sent again one by one: one append's error stays its own", async () => {
    const { send, sent } = manual();
    const results = await groupOut(appendGroup(send, 1), sent, ["ok1", "bad", "ok2"]);
    expect(sent.map((s) => s.grouped)).toEqual([false, true]);
    sent[1]!.fail(serverError("functai: the row of conversation bad kept changing"));
    // again, alone, in the group's order, one after another
    for (const [k, answer] of [
      [2, () => sent[2]!.fail(serverError("bad row"))],
      [3, () => sent[3]!.answer([3])],
      [4, () => sent[4]!.answer([5])],
    ] as const) {
      await tick();
      expect(sent).toHaveLength(k + 1);
      expect(sent[k]!.grouped).toBe(false);
      answer();
    }
    expect(sent.slice(2).map((s) => s.items[0]!.conversation)).toEqual(["bad", "ok1", "ok2"]);
    const [ok1, bad, ok2] = await Promise.all(results);
    expect(ok1).toEqual({ ok: true, v: 3 });
    expect(bad).toMatchObject({ ok: false, e: { message: "bad row" } });
    expect(ok2).toEqual({ ok: true, v: 5 });
  });

  it("a group that could not be made (NotSent: its argument past a JavaScript string's length) sends each append alone, each with its own result", async () => {
    const alone: string[] = [];
    const send: AppendSender = {
      one: async (item) => (alone.push(item.conversation), alone.length),
      many: async () => {
        throw new NotSent(new RangeError("Invalid string length"));
      },
    };
    const group = appendGroup(send, 1);
    const first = group.run(item("first"));
    // the lane is out (first, alone); the next two wait and go together, in a statement that cannot be made
    const rest = [group.run(item("b")), group.run(item("a"))];
    expect(await first).toBe(1);
    expect(await Promise.all(rest)).toEqual([3, 2]);
    expect(alone).toEqual(["first", "a", "b"]); // (a group goes in conversation order)
  });

  it("a group whose outcome is unknown (the connection was lost) fails every append of it and sends none again", async () => {
    const { send, sent } = manual();
    const group = appendGroup(send, 1);
    const results = await groupOut(group, sent, ["a", "b"]);
    const lost = new Error("Connection terminated unexpectedly");
    sent[1]!.fail(lost);
    expect(await Promise.all(results)).toEqual([
      { ok: false, e: lost },
      { ok: false, e: lost },
    ]);
    // a FATAL answer (the backend terminated) is not a refusal of the statement either
    const fatal = Object.assign(new Error("terminating connection due to administrator command"), { severity: "FATAL", code: "57P01" });
    const more = await groupOut(group, sent, ["d", "e"]);
    sent[3]!.fail(fatal);
    expect((await Promise.all(more)).map((r) => r.ok)).toEqual([false, false]);
    expect(sent).toHaveLength(4);
  });

  it("without resending (calls whose effects outlive a rollback, such as session locks), a refused group fails each call and sends none again", async () => {
    const { send, sent } = manual();
    const results = await groupOut(new Grouped(1, oneOrMany(send, undefined, false)), sent, ["a", "b"]);
    const refused = serverError("refused");
    sent[1]!.fail(refused);
    expect(await Promise.all(results)).toEqual([
      { ok: false, e: refused },
      { ok: false, e: refused },
    ]);
    await tick();
    expect(sent).toHaveLength(2);
  });

  it("a group answered with the wrong number of results fails every append of it (never guesses which is which)", async () => {
    const { send, sent } = manual();
    const results = await groupOut(appendGroup(send, 1), sent, ["a", "b"]);
    sent[1]!.answer([4]);
    const out = await Promise.all(results);
    expect(out.map((r) => r.ok)).toEqual([false, false]);
    expect((out[0] as { e: Error }).e.message).toMatch(/1 results for 2 calls/);
    expect(sent).toHaveLength(2);
  });
});
