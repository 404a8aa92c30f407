/**
 * The server's own event loop stalls (a synchronous 2 s loop in its process)
 * while a live companion in another process answers its ping: the pong sits
 * read-ready on the socket when the late heartbeat tick runs. The companion
 * answered; the server was the slow one, so the companion is not dropped.
 * The same for a hello sent in time that the stalled server had not read
 * when its hello deadline came due.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { serve } from "../../adapters/websocket/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();
const HEARTBEAT_MS = 1000; // (the companion answers 200 ms after a ping: 800 ms to spare on a loaded machine)

/**
 * A companion in its own process: a raw `ws` socket that says hello and
 * answers each ping by hand 200 ms later (well within a heartbeat), printing
 * `ping` when one comes and `closed <code>` when its socket closes; `mute`,
 * it never answers (a peer gone without a close).
 */
const COMPANION = `
import { WebSocket } from "ws";
const ws = new WebSocket(process.argv[1], { autoPong: false });
ws.on("open", () => ws.send(JSON.stringify({ type: "hello", id: "h", v: 1, key: "k1" })));
ws.on("message", (d) => { if (JSON.parse(String(d)).type === "welcome") process.stdout.write("welcome\\n"); });
ws.on("ping", (data) => { process.stdout.write("ping\\n"); if (process.argv[2] !== "mute") setTimeout(() => ws.readyState === ws.OPEN && ws.pong(data), 200); });
ws.on("close", (code) => { process.stdout.write("closed " + code + "\\n"); process.exit(0); });
ws.on("error", () => undefined);
`;

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});

function companion(url: string, mode = "live") {
  const proc = spawn(process.execPath, ["--input-type=module", "-e", COMPANION, url, mode], {
    cwd: process.cwd(),
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(proc);
  const lines: string[] = [];
  let buffered = "";
  proc.stdout!.on("data", (d: Buffer) => {
    buffered += d.toString();
    const parts = buffered.split("\n");
    buffered = parts.pop()!;
    lines.push(...parts);
  });
  return { proc, lines };
}

/** Blocks this process's event loop (the server's) for `ms`. */
function stall(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // busy: no timer, no socket is looked at
  }
}

describe("the heartbeat when the server's own event loop stalls", () => {
  it("keeps a live companion whose pong came while the server was stalled", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0, heartbeatMs: HEARTBEAT_MS }));
    const c = companion(server.url);
    await until(() => c.lines.includes("welcome"), 10_000);
    // a ping was just sent (its tick set the connection's flag): the server stalls before the pong (200 ms later) is read
    const pings = c.lines.filter((l) => l === "ping").length;
    await until(() => c.lines.filter((l) => l === "ping").length > pings, 5000);
    stall(2000);
    // the late tick ran now; then two more heartbeats, which the companion answers in time
    await new Promise((r) => setTimeout(r, 3 * HEARTBEAT_MS));
    expect(c.lines.filter((l) => l.startsWith("closed"))).toEqual([]);
    expect(server.connections).toBe(1);
  }, 20_000);

  it("still drops a companion that answers no ping", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0, heartbeatMs: HEARTBEAT_MS }));
    const c = companion(server.url, "mute");
    await until(() => c.lines.includes("welcome"), 10_000);
    await until(() => c.lines.includes("closed 1006"), 5000);
    await until(() => server.connections === 0, 2000);
  }, 20_000);
});

describe("the hello deadline when the server's own event loop stalls", () => {
  it("keeps a companion whose hello came in time, while the server was stalled", async () => {
    const d = await waitingDesk(["sam"]);
    const http = createServer();
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    keep({ close: () => new Promise<void>((r) => (http.closeAllConnections(), http.close(() => r()))) });
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["k1"], server: http, helloTimeoutMs: 500 }));
    // heard after serve's own handler took the upgrade (its socket and hello deadline made): the server stalls before it reads the hello
    http.on("upgrade", () => stall(2000));
    const c = companion(server.url);
    await until(() => c.lines.includes("welcome") || c.lines.some((l) => l.startsWith("closed")), 10_000);
    expect(c.lines.filter((l) => l.startsWith("closed"))).toEqual([]);
    expect(c.lines).toContain("welcome");
  }, 20_000);
});
