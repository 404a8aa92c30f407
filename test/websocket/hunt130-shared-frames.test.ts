/**
 * A frame that goes to many companions is made JSON once, and shared. Each connection made its own JSON of the
 * waiting list (twice: once to compare with the last, once to send) and kept its own copy, and each event was made
 * JSON once per subscriber (and once more for its size): with many companions watching one server, memory and CPU
 * per socket for the same bytes. The bytes of every frame are as they were.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { connect, serve, type Companion } from "../../adapters/websocket/index.js";
import type { TurnEvent } from "../../src/index.js";
import { keeper, until, waitingDesk, WrappedSocket } from "./fixtures.js";

const keep = keeper();
afterEach(() => vi.restoreAllMocks());

/** A companion's socket that keeps every text frame it was sent, as it came. */
function recording(frames: string[]) {
  return class Recording extends WrappedSocket {
    override addEventListener(type: "open" | "error" | "message" | "close", listener: (e: never) => void): void {
      if (type === "message") super.addEventListener(type, ((e: { data: unknown }) => frames.push(String(e.data))) as never);
      super.addEventListener(type, listener);
    }
  };
}

/** Whether `v` is (or is a frame or list holding) the waiting entry of conversation "sam". */
const holdsSam = (v: unknown): boolean => {
  const list = Array.isArray(v) ? v : (v as { waiting?: unknown } | null)?.waiting;
  return Array.isArray(list) && list.some((w: { conversation?: unknown }) => w?.conversation === "sam");
};

/** Whether `v` is the refund's `tool_result` event, or a frame holding it. */
const isRefundResult = (v: unknown): boolean => {
  const o = v as { type?: unknown; name?: unknown; event?: { type?: unknown; name?: unknown } } | null;
  const e = o?.event ?? o;
  return e?.type === "tool_result" && e.name === "refund";
};

/** A server and six companions (one of them keeps its frames), each told the waiting list, listening for events. */
async function watched(ids: string[]) {
  const d = await waitingDesk(ids);
  const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, pollMs: 20 }));
  const frames: string[] = [];
  const apps: Companion[] = [];
  const events: TurnEvent[][] = [];
  for (let i = 0; i < 6; i++) {
    const app = keep(await connect(server.url, i === 0 ? { WebSocket: recording(frames) } : {}));
    const got: TurnEvent[] = [];
    app.on("event", ({ event }) => got.push(event));
    await app.waiting(); // (after the subscribe, in order: it is made)
    apps.push(app);
    events.push(got);
  }
  return { d, server, apps, events, frames };
}

/** Each frame is the bytes JSON.stringify makes of what it says, its keys in the order they always were. */
function asMade(frame: string, keys: string[]): void {
  const m = JSON.parse(frame) as Record<string, unknown>;
  expect(Object.keys(m)).toEqual(keys);
  expect(frame).toBe(JSON.stringify(m));
}

describe("a waiting list pushed to many companions", () => {
  it("is made JSON once for them all (not once or twice each), and each gets the same bytes", async () => {
    const { d, apps, frames } = await watched([]);
    const spy = vi.spyOn(JSON, "stringify");
    await d.served
      .conversation("sam", { store: d.store, approve: "changes" })
      .send("Order A-1042 never arrived. Refund it, please.")
      .catch(() => undefined); // (it waits)
    await until(() => apps.every((a) => a.last.some((w) => w.conversation === "sam")));
    const made = spy.mock.calls.filter(([v]) => holdsSam(v)).length;
    // the server's own look at the list (is it new?), and the frame every companion is sent
    expect(made).toBeLessThanOrEqual(2);
    const pushed = frames.filter((f) => f.startsWith('{"type":"waiting"') && f.includes('"sam"'));
    expect(pushed.length).toBeGreaterThan(0);
    for (const f of pushed) asMade(f, ["type", "waiting"]);
  });
});

describe("an event sent to many subscribers", () => {
  it("is made JSON once, and each subscriber gets the same bytes", async () => {
    const { apps, events, frames } = await watched(["sam"]);
    const [w] = await apps[1]!.waiting();
    const spy = vi.spyOn(JSON, "stringify");
    await apps[1]!.approve({ conversation: "sam", turn: w!.turn, by: "maria" });
    await until(() => events.every((got) => got.some((e) => e.type === "done")));
    expect(spy.mock.calls.filter(([v]) => isRefundResult(v)).length).toBe(1);
    for (const got of events) expect(got.filter(isRefundResult).length).toBe(1);
    const sent = frames.filter((f) => f.startsWith('{"type":"event"'));
    expect(sent.length).toBeGreaterThan(0);
    for (const f of sent) asMade(f, ["type", "id", "conversation", "event", "n"]);
  });
});
