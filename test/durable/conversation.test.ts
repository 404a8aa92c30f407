/**
 * Conversations: ids are checked when opened; a send queues behind a
 * running head and is refused while the head waits; each turn is shown the
 * earlier done turns of its branch; turns(); abandon().
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ai,
  ConversationError,
  isFunctaiError,
  memoryStore,
  tool,
  Waiting,
  type LanguageModel,
  type LMRequest,
  type Store,
} from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { isDurable } from "../../src/store/checks.js";
import { build, memoryLog, processStore, World, worldLM, type ProgSpec } from "./fixtures/world.js";

const DESK: ProgSpec = {
  root: {
    kind: "ai",
    fn: {
      name: "desk",
      tools: [
        { kind: "reads", name: "look" },
        { kind: "changes", name: "pay" },
      ],
      steps: [["look"], ["pay"]],
    },
  },
  approve: null,
  deny: [],
};

/** The world's model, keeping every request it is sent. */
function seeing(world: World, spec: ProgSpec): LanguageModel & { seen: LMRequest[] } {
  const base = worldLM(world, spec);
  const seen: LMRequest[] = [];
  return { ...base, seen, generate: (r, o) => (seen.push(r), base.generate(r, o)) };
}

/** The earlier turns a request shows: the user/assistant pairs before its own user message. */
const shownHistory = (r: LMRequest): string[] => {
  const last = r.messages.map((m) => m.role).lastIndexOf("user");
  return r.messages.slice(1, last).map((m) => `${m.role}: ${m.content.replace(/\s+/g, " ").trim()}`);
};

describe("conversation ids", () => {
  const fn = ai("echo", { description: "Echo.", input: { text: z.string() } });
  it.each(["", "../etc/passwd", "a/b", "-lead", ".hidden", "x".repeat(201), "sp ace", "é"])("refuses %j with conversation-id", (id) => {
    let err: unknown;
    try {
      fn.conversation(id, { store: memoryStore() });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConversationError);
    expect((err as ConversationError).code).toBe("conversation-id");
  });
  it.each(["sam", "A-1042", "desk.chat_2", "v1..2", "x".repeat(200)])("accepts %j", (id) => {
    expect(fn.conversation(id, { store: memoryStore() }).id).toBe(id);
  });
});

describe("turns of a conversation", () => {
  it("a send queues behind a running head, then sees it; each turn is shown the earlier done turns of its branch", async () => {
    const world = new World({ effects: memoryLog(), latencyMs: 30 });
    const lm = seeing(world, DESK);
    const chat = build(DESK, world).conversation("queue", { store: memoryStore(), lm });
    const first = chat.send({ text: "one" });
    const second = chat.send({ text: "two" }); // sent while "one" runs: it waits behind it
    const [a1, a2] = await Promise.all([first, second]);
    const a3 = await chat.send({ text: "three" });
    const turns = await chat.turns();
    expect(turns.map((t) => [(t.inputs as { text: string }).text, t.state, t.value])).toEqual([
      ["one", "done", a1],
      ["two", "done", a2],
      ["three", "done", a3],
    ]);
    expect(turns.map((t) => t.parent)).toEqual([null, turns[0]!.id, turns[1]!.id]);
    // every request of "two" came after "one" ended, and shows it
    const turnOf = (r: LMRequest) => r.messages.filter((m) => m.role === "user").at(-1)!.content;
    const firstOf = (text: string) => lm.seen.findIndex((r) => turnOf(r).includes(`\n${text}\n`));
    const lastOf = (text: string) => lm.seen.map((r) => turnOf(r).includes(`\n${text}\n`)).lastIndexOf(true);
    expect(firstOf("two")).toBeGreaterThan(lastOf("one"));
    expect(shownHistory(lm.seen[firstOf("two")]!)).toEqual(["user: <text> one </text>", `assistant: <result> ${a1} </result>`]);
    expect(shownHistory(lm.seen[firstOf("three")]!)).toEqual([
      "user: <text> one </text>",
      `assistant: <result> ${a1} </result>`,
      "user: <text> two </text>",
      `assistant: <result> ${a2} </result>`,
    ]);
  });

  it("while the head waits, send refuses conversation-busy; an abandoned turn is not shown to the next; abandon only waiting or interrupted turns", async () => {
    const world = new World({ effects: memoryLog() });
    const lm = seeing(world, DESK);
    const chat = build(DESK, world).conversation("busy", { store: memoryStore(), lm, approve: ["pay"] });
    const plain = build({ ...DESK }, world).conversation("busy", { store: chat.store, lm });
    const one = await chat.send({ text: "one" }).catch((e: unknown) => e);
    expect(one).toBeInstanceOf(Waiting);
    const w = one as Waiting;
    expect([w.turn.state, w.approvals.map((a) => [a.name, a.path, a.invocation, a.effects])]).toEqual([
      "waiting",
      [["pay", "desk/pay", 2, "changes"]],
    ]);
    const busy = await plain.send({ text: "two" }).catch((e: unknown) => e);
    expect(busy).toMatchObject({ code: "conversation-busy" });
    expect((busy as Error).message).toContain("desk/pay");

    await w.turn.abandon();
    expect(w.turn.state).toBe("abandoned");
    await expect(w.turn.abandon()).rejects.toMatchObject({ code: "turn-state" });
    await expect(w.turn.approve()).rejects.toMatchObject({ code: "turn-state" });

    const two = await plain.send({ text: "two" });
    const turns = await chat.turns();
    expect(turns.map((t) => t.state)).toEqual(["abandoned", "done"]);
    expect(turns[1]!.parent).toBeNull(); // an abandoned turn is no parent
    expect(shownHistory(lm.seen.at(-3)!)).toEqual([]);
    await expect(turns[1]!.abandon()).rejects.toMatchObject({ code: "turn-state" });
    expect(turns[1]!.value).toBe(two);
    expect(await chat.turn(turns[1]!.id)).toMatchObject({ id: turns[1]!.id, state: "done" });
    await expect(chat.turn("no-such-turn")).rejects.toMatchObject({ code: "turn-state" });
  });
});

describe("a turn's own writes", () => {
  /** A memory store that counts the conditional appends refused as store-conflict, and the reads. */
  const counting = () => {
    const base = memoryStore();
    const seen = { appends: 0, durable: 0, conflicts: 0, reads: 0 };
    const store: Store = {
      ...base,
      append: async (id, records, opts) => {
        seen.appends++;
        if (isDurable(opts)) seen.durable++;
        try {
          return await base.append(id, records, opts);
        } catch (e) {
          if (isFunctaiError(e, "store-conflict")) seen.conflicts++;
          throw e;
        }
      },
      read: (id, after) => (seen.reads++, base.read(id, after)),
    };
    return { store, seen };
  };
  const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => `paid ${amount}`);
  const desk = ai("desk", { description: "Pay what is asked.", input: { ask: z.string() }, tools: [pay] });
  const steps = (n: number) =>
    scripted([...Array.from({ length: n }, (_, k) => ({ toolCalls: [{ id: `p${k}`, name: "pay", input: { amount: k } }] })), "paid"]);

  it("never collide with each other: a sent turn expects the length its first records left (no conflict, no re-read)", async () => {
    const { store, seen } = counting();
    const chat = desk.conversation("own-writes", { store });
    expect(await chat.send("pay 3", { lm: steps(3) })).toBe("paid");
    // one read to open; kept: the first records, one batch per step (its reply and its tool's started), the last one
    // with the end; and before each request after a step, what the tool returned (written, not waiting for a flush)
    expect(seen).toEqual({ appends: 1 + 3 + 3 + 1, durable: 1 + 3 + 1, conflicts: 0, reads: 1 });
    expect(await chat.send("pay 1", { lm: steps(1) })).toBe("paid");
    expect(seen.conflicts).toBe(0);
  });

  it("nor when a waiting turn is approved and goes on", async () => {
    const { store, seen } = counting();
    const chat = desk.conversation("own-writes-2", { store, approve: "changes", lm: steps(1) });
    await expect(chat.send("pay 0")).rejects.toBeInstanceOf(Waiting);
    const [turn] = await chat.turns();
    expect(await turn!.approve({ by: "sam" })).toBe("paid");
    expect(seen.conflicts).toBe(0);
  });
});

describe("unfinished tools at several depths", () => {
  const SPEC: ProgSpec = {
    root: {
      kind: "ai",
      fn: {
        name: "lead",
        tools: [
          { kind: "changes", name: "mark" },
          { kind: "ai", fn: { name: "helper", tools: [{ kind: "changes", name: "write" }], steps: [["write"]] } },
        ],
        steps: [["mark", "helper"]],
      },
    },
    approve: null,
    deny: [],
  };
  it("a bare invocation number that names two unfinished calls is refused; calls are named by site instead", async () => {
    const store = memoryStore();
    const effects = memoryLog();
    // mark is slow: it is still running when the process dies after write. Its wait ends with the crash, and helper
    // asks its model only once mark waits, so write (after that reply) comes after mark started, and crashes first
    // however loaded the machine is (a fixed wait, or an order left to chance, let mark run first under load)
    let crashed!: () => void;
    const died = new Promise<void>((r) => (crashed = r));
    let markWaits!: () => void;
    const markStarted = new Promise<void>((r) => (markWaits = r));
    class MarkWaits extends World {
      #asking = false;
      #tools = 0;
      override sent(h: string, turn: string): void {
        super.sent(h, turn);
        this.#asking = true; // the next wait is this request's (nothing runs between)
      }
      override async delay(): Promise<void> {
        if (this.#asking) {
          this.#asking = false;
          if (this.requests.length === 2) await markStarted; // helper's request (lead's is the first)
        } else if (this.#tools++ === 0) {
          markWaits(); // the first tool to run is mark: write needs helper's reply
          await died;
        }
      }
    }
    const world: World = new MarkWaits({ effects, crashWhere: "after write", onCrash: () => crashed() });
    const lease = { renewMs: 1000, ttlMs: 30 };
    await expect(
      build(SPEC, world)
        .conversation("deep", { store: processStore(store, world), lm: worldLM(world, SPEC), lease })
        .send({ text: "go" }),
    ).rejects.toThrow(/crash/);
    await new Promise((r) => setTimeout(r, 50));
    const other = new World({ effects });
    const [turn] = await build(SPEC, other)
      .conversation("deep", { store, lm: worldLM(other, SPEC), lease })
      .turns();
    expect(turn!.unfinished.map((u) => [u.name, u.site, u.invocation]).sort()).toEqual([
      ["mark", "lead#1", 1],
      ["write", "lead#1/helper#2", 1],
    ]);
    const bare = await turn!.resume().catch((e: unknown) => e);
    expect((bare as Error).message).toContain('resume({ results: { "lead#1/helper#2:1": <what it returned> } })');
    await expect(turn!.resume({ results: { 1: "done" } })).rejects.toMatchObject({
      code: "turn-unfinished",
      message: expect.stringContaining('invocation 1 names mark at "lead#1:1" and write at "lead#1/helper#2:1"'),
    });
    const answer = await turn!.resume({
      results: Object.fromEntries(turn!.unfinished.map((u) => [`${u.site}:${u.invocation}`, `c:${u.name}:${(u.input as { text: string }).text}`])),
    });
    const free = new World({ effects: memoryLog() });
    expect(answer).toBe(
      await build(SPEC, free)
        .conversation("free", { store: memoryStore(), lm: worldLM(free, SPEC) })
        .send({ text: "go" }),
    );
    expect([...effects.all()]).toEqual([[expect.stringMatching(/^write\|/), 1]]); // write ran once, before the crash; mark never ran (a person gave its result)
  });
});
