/**
 * A conversation on the file-system store after a crash mid-write: a torn
 * last line (no newline at its end) is ignored (never read as a record, so
 * a turn's state is never misread) and cut by the next append; a complete
 * line that is not a record, last or not, is refused, never skipped. A store that throws mid-append loses
 * nothing it acknowledged, and the turn goes on to the crash-free answer.
 */
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { memoryStore, type Store } from "../../src/index.js";
import { answersFor, drive } from "./fixtures/drive.js";
import { build, memoryLog, processStore, World, worldLM, type ProgSpec } from "./fixtures/world.js";

const LEASE = { renewMs: 1000, ttlMs: 100 };
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const DESK: ProgSpec = {
  root: { kind: "ai", fn: { name: "desk", tools: [{ kind: "reads", name: "look" }, { kind: "changes", name: "pay" }], steps: [["look"], ["pay"]] } },
  approve: null, deny: [],
};

/** An interrupted turn on disk: the process died just after pay ran, before its done record was written. */
async function interrupted() {
  const dir = mkdtempSync(join(tmpdir(), "functai-torn-"));
  const store = fsStore(dir);
  const effects = memoryLog();
  const world = new World({ effects, crashWhere: "after pay" });
  await expect(build(DESK, world).conversation("torn", { store: processStore(store, world), lm: worldLM(world, DESK), lease: LEASE }).send({ text: "go" })).rejects.toThrow(/crash/);
  await sleep(LEASE.ttlMs + 20);
  const file = join(dir, "conversations", "torn.jsonl");
  const before = await store.read("torn");
  const turn = before.find((r) => r.kind === "turn") as unknown as { turn: string };
  const fresh = new World({ effects });
  const chat = build(DESK, fresh).conversation("torn", { store: fsStore(dir), lm: worldLM(fresh, DESK), lease: LEASE });
  return { dir, file, before, turnId: turn.turn, chat, effects, fresh };
}

const expected = async () => (await drive({ inner: memoryStore(), conversation: "x", spec: DESK, effects: memoryLog(), input: "go", lease: LEASE, pass: sleep })).answer;

describe("torn and garbled tails (fsStore, conversation level)", () => {
  const tails: [string, (turn: string, seq: number) => string][] = [
    ["a torn done record (no newline, cut mid-JSON)", (turn, seq) => `{"functai_conversation":1,"kind":"tool","at":"2026-01-01T00:00:00.000Z","turn":"${turn}","site":"desk#1","invocation":2,"state":"done","output":"c:pa`.replace("{", `{"seq":${seq},`)],
    ["a whole ended:done record without its newline", (turn, seq) => JSON.stringify({ seq, functai_conversation: 1, kind: "ended", at: "2026-01-01T00:00:00.000Z", turn, state: "done", outputs: { result: "forged" }, value: "forged", usage: {} })],
  ];
  it.each(tails)("%s: ignored, the turn reads interrupted with pay unfinished, and goes on; the tail is cut", async (_, tail) => {
    const { file, before, turnId, chat, effects } = await interrupted();
    appendFileSync(file, tail(turnId, before.length + 1));
    const [turn] = await chat.turns();
    expect(turn!.state).toBe("interrupted"); // never "done" from a record that was not committed
    expect(turn!.unfinished.map((u) => u.name)).toEqual(["pay"]);
    expect(await turn!.resume(answersFor(turn!.unfinished, effects))).toEqual(await expected());
    expect([...effects.all()].map(([k, n]) => [k.split("|")[0], n]).sort()).toEqual([["look", 1], ["pay", 1]]);
    const lines = readFileSync(file, "utf8").split("\n");
    expect(lines.at(-1)).toBe("");
    const records = lines.slice(0, -1).map((l) => JSON.parse(l) as { seq: number; kind: string });
    expect(records.map((r) => r.seq)).toEqual(records.map((_r, i) => i + 1));
    expect(records.slice(0, before.length)).toEqual(before.map((r) => ({ ...r }))); // everything acknowledged before the crash is kept
    expect(records.some((r) => (r as { value?: string }).value === "forged")).toBe(false);
  });

  it("garbled bytes ending in a newline are damage, not a torn write: refused (store-corrupt), nothing cut", async () => {
    const { file, chat } = await interrupted();
    appendFileSync(file, "\u0000\u00ff{not json at all]\n");
    const bytes = readFileSync(file);
    await expect(chat.turns()).rejects.toMatchObject({ code: "store-corrupt" });
    await expect(chat.send({ text: "again" })).rejects.toMatchObject({ code: "store-corrupt" });
    expect(readFileSync(file)).toEqual(bytes);
  });

  it("damage before the last line is refused (store-corrupt), never skipped or misread", async () => {
    const { file, chat } = await interrupted();
    const lines = readFileSync(file, "utf8").split("\n");
    lines[2] = lines[2]!.slice(0, 10);
    writeFileSync(file, lines.join("\n"));
    await expect(chat.turns()).rejects.toMatchObject({ code: "store-corrupt" });
    await expect(chat.send({ text: "again" })).rejects.toMatchObject({ code: "store-corrupt" });
    expect(readFileSync(file, "utf8")).toBe(lines.join("\n")); // nothing cut or written after the damage
  });
});

/** Keeps every batch the store acknowledged (a superset of what the engine was told: an after-write fault hides some). */
function acknowledging(inner: Store, acked: object[][]): Store {
  return { ...inner, read: inner.read.bind(inner), append: async (c, records, o) => {
    const n = await inner.append(c, records, o);
    acked.push([...records]);
    return n;
  } };
}

describe("a store that throws mid-append (fsStore)", () => {
  it("at every append, before or after the write: nothing acknowledged is lost, pay runs once, the crash-free answer", async () => {
    const answer = await expected();
    let cases = 0;
    for (const fault of ["before-write", "after-write"] as const) {
      for (let at = 1; at <= 12; at++) {
        const dir = mkdtempSync(join(tmpdir(), "functai-midappend-"));
        const inner = fsStore(dir);
        const acked: object[][] = [];
        const effects = memoryLog();
        const d = await drive({
          inner: acknowledging(inner, acked), conversation: "mid", spec: DESK, effects, input: "go", lease: LEASE,
          plans: [{ crashAt: at, storeFault: fault }], pass: sleep,
        });
        expect(d.answer, `${fault} at ${at}`).toEqual(answer);
        expect(d.violations).toEqual([]);
        expect(effects.ran("pay", [...effects.all().keys()].find((k) => k.startsWith("pay|"))!.slice(4))).toBe(1);
        const kept = (await inner.read("mid")).map(({ seq: _seq, ...r }) => JSON.stringify(r));
        expect(acked.length, `${fault} at ${at}`).toBeGreaterThan(0);
        for (const batch of acked) for (const r of batch) expect(kept).toContain(JSON.stringify(r));
        cases++;
      }
    }
    expect(cases).toBe(24);
  });
});
