/**
 * Values JSON cannot say, in what a person or a caller gives over the wire.
 * A number past what JSON reads (`1e400`, which the server reads as
 * Infinity) and, on the companion, NaN, Infinity or a Map were sent as
 * something else (`null`, `{}`): a tool's result a person gave was kept as
 * `null` and the turn went on with it, the model told "null". Each is now
 * refused (input-invalid) with nothing written and nothing run, as the
 * engine refuses a result JSON cannot keep (a BigInt, a Map) in process.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { connect, serve } from "../../adapters/websocket/index.js";
import { program } from "../../src/index.js";
import { memoryStore } from "../../src/testing/index.js";
import { crashedDesk, keeper, until } from "./fixtures.js";
import { rawClient } from "./fixtures/hunt25-kit.js";

const keep = keeper();

/** A program that keeps what it is given: its input is any JSON; `runs.n` counts its runs. */
function keeping() {
  const runs = { n: 0 };
  const fn = program("keep", { description: "Keeps data.", input: { data: z.unknown() }, output: z.unknown() }, ({ data }) => {
    runs.n++;
    return { kept: data };
  });
  return { fn, runs };
}

describe("a result or an input JSON cannot say, sent raw", () => {
  it("a result past what JSON reads (1e400) is refused (input-invalid): nothing written, the model not asked, the turn still waits for it", async () => {
    const d = await crashedDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0, pollMs: 20 }));
    const c = keep(await rawClient(server.url, "k1"));
    let turn = "";
    await until(async () => {
      const r = await c.ask({ type: "waiting", id: `w${c.messages.length}` });
      turn = (r.result as { turn: string }[])[0]?.turn ?? "";
      return turn !== "";
    });
    const asked = d.lm.requests.length;
    const before = (await d.store.read("sam")).length;
    c.send(`{"type":"resume","id":"big","conversation":"sam","turn":"${turn}","results":{"2":1e400}}`);
    const reply = await c.answerTo("big");
    expect(reply).toMatchObject({ type: "error", code: "input-invalid" });
    expect(String(reply.message)).toContain("2");
    expect((await d.store.read("sam")).length).toBe(before);
    expect(d.lm.requests.length).toBe(asked);
    const status = await c.ask({ type: "status", id: "st", conversation: "sam", turn });
    expect(status.result).toMatchObject({ state: "interrupted", unfinished: [{ invocation: 2, name: "refund" }] });
    // said as JSON can say it, it goes on, once
    const ok = await c.ask({ type: "resume", id: "ok", conversation: "sam", turn, results: { 2: "refunded 39.00 for A-1042" } });
    expect(ok).toMatchObject({ type: "reply", result: { state: "done", value: "The last tool said: refunded 39.00 for A-1042" } });
    expect(d.REFUNDS).toHaveLength(1);
  });

  it("a call whose input holds 1e400 is refused (input-invalid): the program does not run, no conversation is written", async () => {
    const store = memoryStore();
    const { fn, runs } = keeping();
    const server = keep(await serve({ store, programs: [fn], keys: ["k1"], port: 0 }));
    const c = keep(await rawClient(server.url, "k1"));
    c.send('{"type":"call","id":"c1","program":"keep","input":{"data":[1,1e400]},"conversation":"kept"}');
    c.send('{"type":"call","id":"c2","program":"keep","input":{"data":{"n":-1e999}},"approvals":"caller"}');
    expect(await c.answerTo("c1")).toMatchObject({ type: "error", code: "input-invalid" });
    expect(await c.answerTo("c2")).toMatchObject({ type: "error", code: "input-invalid" });
    expect(runs.n).toBe(0);
    expect(await store.read("kept")).toEqual([]);
    // what JSON can say runs as before
    expect(await c.ask({ type: "call", id: "c3", program: "keep", input: { data: [1, 2e300] }, approvals: "caller" })).toMatchObject({
      type: "reply",
      result: { state: "done", value: { kept: [1, 2e300] } },
    });
  });
});

describe("a result or an input JSON cannot say, given to a companion", () => {
  it("NaN, Infinity or a Map as a result: input-invalid, nothing sent; the turn is not run on with null or {}", async () => {
    const d = await crashedDesk(["sam", "ana", "bo"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0, pollMs: 20 }));
    const app = keep(await connect(server.url, { key: "k1" }));
    await until(async () => (await app.waiting()).length === 3);
    const turns = Object.fromEntries((await app.waiting()).map((w) => [w.conversation, w.turn]));
    const asked = d.lm.requests.length;
    for (const [conversation, value] of [
      ["sam", Number.NaN],
      ["ana", Number.POSITIVE_INFINITY],
      ["bo", new Map([["refunded", 39]])],
    ] as const) {
      const r = await Promise.resolve(app.resume({ conversation, turn: turns[conversation]!, results: { 2: value } })).catch((e: unknown) => e);
      expect(r, conversation).toMatchObject({ code: "input-invalid" });
      expect((r as Error).message).toContain("nothing was sent");
    }
    expect(d.lm.requests.length).toBe(asked);
    for (const w of await app.waiting()) expect(w).toMatchObject({ state: "interrupted", unfinished: [{ invocation: 2 }] });
    // a result JSON can say goes through
    expect(await app.resume({ conversation: "sam", turn: turns.sam!, results: { 2: { refunded: 39 } } })).toBe('The last tool said: {"refunded":39}');
  });

  it("a call whose input holds NaN or a Set: input-invalid, nothing sent, the program does not run", async () => {
    const store = memoryStore();
    const { fn, runs } = keeping();
    const server = keep(await serve({ store, programs: [fn], keys: ["k1"], port: 0 }));
    const app = keep(await connect(server.url, { key: "k1" }));
    await expect(Promise.resolve(app.call("keep", { data: { n: Number.NaN } }, { approvals: "caller" }))).rejects.toMatchObject({
      code: "input-invalid",
    });
    await expect(Promise.resolve(app.call("keep", { data: new Set([1]) }, { conversation: "k" }))).rejects.toMatchObject({ code: "input-invalid" });
    expect(runs.n).toBe(0);
    expect(await store.read("k")).toEqual([]);
    expect(await app.call("keep", { data: [1, "two", null] }, { approvals: "caller" })).toEqual({ kept: [1, "two", null] });
  });

  it("a result given as undefined (the tool returned nothing) is kept as null, as turn.resume keeps it: it was dropped, and the resume refused (turn-unfinished)", async () => {
    const d = await crashedDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0, pollMs: 20 }));
    const app = keep(await connect(server.url, { key: "k1" }));
    await until(async () => (await app.waiting()).length === 1);
    const [w] = await app.waiting();
    expect(await app.resume({ conversation: "sam", turn: w!.turn, results: { 2: undefined } })).toBe("The last tool said: null");
    expect(d.REFUNDS).toHaveLength(1); // (it ran once, before the crash; not again)
  });
});
