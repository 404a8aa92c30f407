import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { connect, serve, serverMessageSchema, type WebSocketServerHandle } from "../../adapters/websocket/index.js";
import { keeper, waitingDesk } from "./fixtures.js";

const keep = keeper();

const TYPES = ["hello", "waiting", "subscribe", "status", "approve", "deny", "resume", "abandon", "call", "answer", "cancel", "welcome", "reply", "nope", ""];
const text = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom("sam", "ana", "../etc/passwd", "", "r1", "desk/refund"));
/** Shaped like requests, with wrong or random fields; never a call of the served program (that would be a real request). */
const requestLike = fc.record(
  {
    type: fc.constantFrom(...TYPES), id: fc.oneof(text, fc.integer(), fc.constant(null)), v: fc.oneof(fc.integer(), fc.constant(1), text),
    key: fc.oneof(text, fc.constant("k2")), // never the full key: a hello with it may see everything conversation: fc.oneof(text, fc.integer()), turn: fc.oneof(text, fc.array(text)),
    approval: text, by: fc.oneof(text, fc.integer()), reason: text, program: fc.string({ maxLength: 12 }).filter((p) => p !== "desk"),
    input: fc.jsonValue({ maxDepth: 2 }), approvals: fc.constantFrom("caller", "owner", "x"), verdict: fc.constantFrom("yes", "no", 1),
    call: text, results: fc.jsonValue({ maxDepth: 2 }), rerun: fc.oneof(fc.array(fc.integer()), text),
  },
  { requiredKeys: ["type"] },
);
/** Well-formed enough to reach the handlers: real conversations and approval ids, wrong turns, unknown programs. */
const nearlyValid = fc.record(
  {
    type: fc.constantFrom("status", "approve", "deny", "resume", "abandon", "answer", "cancel", "waiting", "subscribe", "call"),
    id: fc.string({ minLength: 1, maxLength: 8 }), conversation: fc.constantFrom("sam", "ana", "zed", "call-x"),
    turn: fc.string({ minLength: 1, maxLength: 40 }), approval: fc.constantFrom("desk#1:2", "x"), by: fc.string({ maxLength: 8 }),
    reason: fc.string({ maxLength: 20 }), program: fc.constantFrom("nope", "Desk", "desk "), input: fc.jsonValue({ maxDepth: 2 }),
    approvals: fc.constantFrom("caller", "owner"), verdict: fc.constantFrom("yes", "no"), call: fc.constantFrom("r1", "x"),
    results: fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 })), rerun: fc.array(fc.integer(), { maxLength: 3 }),
  },
  { requiredKeys: ["type", "id"] },
);
type Frame = string | Uint8Array;
const frame: fc.Arbitrary<Frame> = fc.oneof(
  requestLike.map((m) => JSON.stringify(m)),
  nearlyValid.map((m) => JSON.stringify(m)),
  nearlyValid.map((m) => JSON.stringify(m)),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 200 }), // mostly not JSON
  fc.constantFrom("{", "[]", "null", '{"type":"approve"', '{"type":1}', "\u0000", '{"__proto__":{"type":"waiting"}}'),
  fc.uint8Array({ maxLength: 64 }), // binary frames
);

interface Run {
  replies: unknown[];
  code: number;
}

/** Sends `frames` on a fresh socket (after a good hello when `key`), then asks once more and waits for that reply or the close. */
async function fire(url: string, frames: readonly Frame[], key?: string): Promise<Run> {
  const ws = new WebSocket(url);
  const replies: unknown[] = [];
  let code = 0;
  const closed = new Promise<void>((r) => ws.once("close", (c) => ((code = c), r())));
  ws.on("error", () => undefined);
  ws.on("message", (d) => replies.push(JSON.parse(String(d))));
  await new Promise((r) => ws.once("open", r));
  if (key) ws.send(JSON.stringify({ type: "hello", id: "h", v: 1, key }));
  for (const f of frames) if (ws.readyState === ws.OPEN) ws.send(f, { binary: typeof f !== "string" });
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: "waiting", id: "last" }));
  const answered = (async () => {
    for (let i = 0; i < 500 && !replies.some((m) => (m as { id?: unknown }).id === "last"); i++) await new Promise((r) => setTimeout(r, 10));
  })();
  await Promise.race([answered, closed]);
  ws.close();
  await Promise.race([closed, new Promise((r) => setTimeout(r, 1000))]);
  return { replies, code };
}

function checkReplies(run: Run, secret: string): void {
  for (const m of run.replies) {
    expect(serverMessageSchema.safeParse(m).success).toBe(true);
    const json = JSON.stringify(m);
    expect(json).not.toContain(secret); // another conversation's data
    expect(json).not.toMatch(/\n\s+at |node_modules|\/work\//); // a stack or a path
    if ((m as { type: string }).type === "error") expect(Object.keys(m as object).sort()).toEqual(["code", "id", "message", "type"]);
  }
}

describe("fuzz: random and malformed frames", () => {
  it("thousands of bad frames change no turn, leak nothing, and the server still serves a good client", async () => {
    const d = await waitingDesk(["sam", "ana"]);
    const failures: unknown[] = [];
    const server: WebSocketServerHandle = keep(await serve({
      store: d.store, programs: [d.served], keys: ["k1", { key: "k2", conversations: ["sam"] }], port: 0, maxPayload: 16 * 1024,
      rate: { perSecond: 1e6, burst: 1e6, strikes: 1e6 }, // every frame is read and answered here; the limits have their own test
      onError: (message, e) => failures.push([message, e]),
    }));
    const before = { sam: await d.store.read("sam"), ana: await d.store.read("ana") };
    const anaTurn = String((before.ana.find((r) => r.kind === "turn") as { turn?: unknown } | undefined)?.turn);
    const batches = fc.sample(fc.array(frame, { minLength: 150, maxLength: 150 }), { numRuns: 24, seed: 42 });
    let sent = 0;
    for (const [i, frames] of batches.entries()) {
      // some unauthenticated, most after a hello with the key limited to "sam"
      const hello = i % 4 !== 0;
      const run = await fire(server.url, frames, hello ? "k2" : undefined);
      sent += frames.length;
      checkReplies(run, anaTurn);
      if (hello) {
        // every bad frame is answered, and the request after them too: the connection still serves
        expect(run.replies.length, `batch ${i}`).toBeGreaterThan(frames.length);
        expect(run.replies.some((m) => (m as { id?: unknown }).id === "last"), `batch ${i}`).toBe(true);
      } else {
        expect(run.code, `batch ${i}`).toBe(4400); // no hello first: closed as a protocol error
      }
    }
    // frames beyond maxPayload close the connection (1009) without reading them
    for (const size of [16 * 1024 + 1, 1024 * 1024]) {
      const run = await fire(server.url, [JSON.stringify({ type: "waiting", id: "big", pad: "x".repeat(size) })], "k2");
      expect(run.code).toBe(1009);
      sent += 1;
    }
    expect(sent).toBeGreaterThan(3000);
    expect(failures).toEqual([]);

    // nothing changed: the same records, no tool ran, no model was asked
    expect(await d.store.read("sam")).toEqual(before.sam);
    expect(await d.store.read("ana")).toEqual(before.ana);
    expect(d.REFUNDS).toEqual([]);
    expect(d.lm.requests).toHaveLength(4);

    const app = keep(await connect(server.url, { key: "k1" }));
    const waiting = await app.waiting();
    expect(waiting.map((w) => w.conversation)).toEqual(["ana", "sam"]);
    expect(await app.approve({ conversation: "sam", turn: waiting[1]!.turn })).toBe("The last tool said: refunded 39.00 for A-1042");
    expect(d.REFUNDS).toHaveLength(1);
  });

  it("a flood is refused (remote-rate-limit), then the connection closed as abusive; others are unaffected", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0, rate: { perSecond: 10, burst: 20, strikes: 5 } }));
    const flood = Array.from({ length: 200 }, (_, i) => JSON.stringify({ type: "waiting", id: `w${i}` }));
    const run = await fire(server.url, flood, "k1");
    expect(run.code).toBe(4429);
    const limited = run.replies.filter((m) => (m as { code?: string }).code === "remote-rate-limit");
    expect(limited.length).toBeGreaterThan(0);
    expect(limited.length).toBeLessThanOrEqual(5);
    const answered = run.replies.filter((m) => (m as { type: string }).type === "reply");
    expect(answered.length).toBeLessThanOrEqual(21);
    const app = keep(await connect(server.url, { key: "k1" }));
    expect(await app.waiting()).toHaveLength(1);
  });

  it("binary frames and unknown kinds get a protocol error, not a crash", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0 }));
    const run = await fire(server.url, [new Uint8Array([1, 2, 3]), JSON.stringify({ type: "teleport", id: "t" })], "k1");
    const errors = run.replies.filter((m) => (m as { type: string }).type === "error") as { id: string | null; code: string; message: string }[];
    expect(errors.map((e) => [e.id, e.code])).toEqual([[null, "remote-protocol"], ["t", "remote-protocol"]]);
    expect(errors[0]!.message).toBe("text frames only");
  });
});
