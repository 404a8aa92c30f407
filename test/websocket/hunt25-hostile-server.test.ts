/**
 * A companion talking to a server that sends what it should not (a buggy
 * or mismatched server, or anything else on the other end of a ws:// URL):
 * what it cannot read is dropped, never thrown into the socket's handler,
 * where it would end a Node process and stop the connection reading.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { connect } from "../../adapters/websocket/index.js";
import type { TurnEvent } from "../../src/turn/events.js";
import { keeper } from "./fixtures.js";
import { fakeServer } from "./fixtures/hunt25-kit.js";

const keep = keeper();

const uncaught: unknown[] = [];
const hear = (e: unknown): void => void uncaught.push(e);
afterEach(() => {
  process.off("uncaughtException", hear);
  uncaught.length = 0;
});

describe("a server's events the companion cannot read", () => {
  it("an `approval` / `approved` event without its approval is dropped: nothing thrown, the reply still heard", async () => {
    process.on("uncaughtException", hear);
    const server = keep(
      await fakeServer((ws, m) => {
        const event = (type: string, seq: number) => ({
          type: "event",
          id: m.id,
          conversation: "sam",
          event: { type, turn: "t1", seq, at: "2026-12-05T00:00:00.000Z", path: "desk" },
        });
        ws.send(JSON.stringify(event("approval", 1)));
        ws.send(JSON.stringify({ ...event("approved", 2), event: { ...event("approved", 2).event, approval: 7 } }));
        ws.send(JSON.stringify(event("approved", 3)));
        ws.send(JSON.stringify(event("text", 4)));
        ws.send(JSON.stringify({ type: "reply", id: m.id, result: { conversation: "sam", turn: "t1", state: "done", value: "ok" } }));
      }),
    );
    const app = keep(await connect(server.url, { reconnect: false }));
    const s = app.approve({ conversation: "sam", turn: "t1", id: "desk#1:1" });
    const seen: TurnEvent[] = [];
    const iterated = (async () => {
      for await (const e of s) seen.push(e);
    })();
    const within = <T>(p: PromiseLike<T>) => Promise.race([Promise.resolve(p), new Promise<"hang">((r) => setTimeout(() => r("hang"), 3000))]);
    const answer = await within(s);
    expect(await within(iterated)).toBeUndefined();
    expect(uncaught).toEqual([]);
    expect(answer).toBe("ok");
    expect(seen.map((e) => e.type)).toEqual(["text"]);
    expect(s.pending).toEqual([]);
  });

  it("300 runs of random frames before each reply (events of any shape, lists, errors, anything): nothing thrown, every request settles", async () => {
    process.on("uncaughtException", hear);
    let frames: string[] = [];
    const server = keep(
      await fakeServer((ws, m) => {
        for (const f of frames) ws.send(f.replaceAll("$ID", m.id));
        ws.send(JSON.stringify({ type: "reply", id: m.id, result: { conversation: "sam", turn: "t", state: "done", value: 1 } }));
      }),
    );
    const app = keep(await connect(server.url, { reconnect: false }));
    app.on("event", () => undefined);
    const text = fc.string({ maxLength: 12 });
    const event = fc.record(
      {
        type: fc.constantFrom("approval", "approved", "text", "tool_call", "done", "waiting", "state", "x"),
        turn: text,
        seq: fc.integer(),
        at: text,
        path: text,
        approval: fc.anything(),
        delta: fc.anything(),
      },
      { requiredKeys: ["type", "turn", "seq", "at", "path"] },
    );
    const approval = fc.record({
      id: text,
      name: text,
      input: fc.anything(),
      effects: fc.constant(null),
      path: text,
      invocation: fc.integer(),
      site: text,
    });
    const entry = fc.record({
      conversation: text,
      turn: text,
      program: fc.constant(null),
      state: fc.constantFrom("waiting", "interrupted"),
      approvals: fc.array(approval, { maxLength: 3 }),
      unfinished: fc.constant([]),
    });
    const message = fc.oneof(
      fc.record({ type: fc.constant("event"), id: fc.constantFrom("$ID", null), conversation: fc.oneof(fc.constant(null), text), event }),
      fc.record({ type: fc.constant("waiting"), waiting: fc.array(entry, { maxLength: 3 }) }),
      fc.record({
        type: fc.constantFrom("error", "reply", "programs", "welcome", "heartbeat"),
        id: fc.constantFrom("$ID", null, "hello"),
        result: fc.anything(),
        code: text,
        message: text,
        programs: fc.anything(),
      }),
      fc.anything(),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          message.map((x) => JSON.stringify(x) ?? "null"),
          { maxLength: 8 },
        ),
        async (given) => {
          frames = given;
          const r = await Promise.race([
            Promise.resolve(app.approve({ conversation: "sam", turn: "t" })).then(
              () => "settled",
              () => "settled",
            ),
            new Promise((r) => setTimeout(() => r("hang"), 3000)),
          ]);
          expect(r).toBe("settled");
          expect(uncaught).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  }, 60_000);
});
