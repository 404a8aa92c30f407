import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

async function setup() {
  const d = await waitingDesk(["sam", "ana"]);
  const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["k1", { key: "k2", conversations: ["sam"] }], port: 0 }));
  return { ...d, server };
}

describe("keys", () => {
  it("a wrong or missing key is refused at the hello", async () => {
    const { server } = await setup();
    await expect(connect(server.url, { key: "k3" })).rejects.toMatchObject({ code: "remote-auth" });
    await expect(connect(server.url, { key: "k" })).rejects.toMatchObject({ code: "remote-auth" });
    await expect(connect(server.url, { key: "k1 " })).rejects.toMatchObject({ code: "remote-auth" });
    await expect(connect(server.url)).rejects.toMatchObject({ code: "remote-auth" });
    await until(() => server.connections === 0);
  });

  it("a request before the hello is refused and the socket closed", async () => {
    const { server } = await setup();
    const ws = new WebSocket(server.url);
    await new Promise((r) => ws.once("open", r));
    const replies: string[] = [];
    ws.on("message", (d) => replies.push(String(d)));
    ws.send(JSON.stringify({ type: "waiting", id: "x" }));
    const code = await new Promise<number>((r) => ws.once("close", r));
    expect(code).toBe(4400);
    expect(JSON.parse(replies[0]!)).toMatchObject({ type: "error", id: "x", code: "remote-protocol" });
  });

  it("a key limited to some conversations sees and answers only those", async () => {
    const { server, REFUNDS } = await setup();
    const limited = keep(await connect(server.url, { key: "k2" }));
    const full = keep(await connect(server.url, { key: "k1" }));
    const mine = await limited.waiting();
    expect(mine.map((w) => w.conversation)).toEqual(["sam"]);
    expect(limited.last.map((w) => w.conversation)).toEqual(["sam"]); // the pushed list too
    const ana = (await full.waiting()).find((w) => w.conversation === "ana")!;
    const refused = await Promise.resolve(limited.approve({ conversation: "ana", turn: ana.turn })).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "remote-forbidden" });
    expect(String((refused as Error).message)).not.toContain(ana.turn);
    await expect(limited.status({ conversation: "ana", turn: ana.turn })).rejects.toMatchObject({ code: "remote-forbidden" });
    await expect(limited.call("desk", "hi", { approvals: "caller" })).rejects.toMatchObject({ code: "remote-forbidden" });
    expect(REFUNDS).toEqual([]);
    expect((await full.waiting()).map((w) => w.conversation).sort()).toEqual(["ana", "sam"]); // nothing was answered
    await limited.approve({ conversation: "sam", turn: mine[0]!.turn });
    expect(REFUNDS).toHaveLength(1);
  });

  it("a revoked key's connections are closed and it cannot come back", async () => {
    const { server } = await setup();
    const app = keep(await connect(server.url, { key: "k2", maxDelayMs: 50 }));
    const closed = new Promise<number>((r) => app.on("close", (e) => r(e.code)));
    server.setKeys(["k1"]);
    expect(await closed).toBe(4401);
    await expect(connect(server.url, { key: "k2" })).rejects.toMatchObject({ code: "remote-auth" });
    await expect(connect(server.url, { key: "k1" }).then((c) => c.close())).resolves.toBeUndefined();
  });

  it("listening beyond loopback without keys is refused at serve; a browser page cannot reach a keyless loopback server", async () => {
    const { store, served } = await waitingDesk([]);
    await expect(serve({ store, programs: [served], host: "0.0.0.0", port: 0 })).rejects.toMatchObject({ code: "remote-auth" });
    await expect(serve({ store, programs: [served], host: "::", port: 0 })).rejects.toMatchObject({ code: "remote-auth" });
    await expect(serve({ store, programs: [served], host: "0.0.0.0", keys: [], port: 0 })).rejects.toMatchObject({ code: "remote-auth" });
    const local = keep(await serve({ store, programs: [served], port: 0 }));
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(local.url, { headers: { origin: "https://evil.example" } });
      ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      ws.on("open", () => resolve(101));
      ws.on("error", () => undefined);
    });
    expect(status).toBe(401);
    const app = keep(await connect(local.url)); // no Origin (not a browser): fine on loopback
    expect(await app.waiting()).toEqual([]);
  });
});
