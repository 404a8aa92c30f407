/**
 * Hunt 149: `connect()` did not check the key and name its hello carries. A key or name that is not text, or past
 * the protocol's bounds (1024 and 200 characters), was sent, and came back from the server as a message it did not
 * understand (`remote-protocol`); a name of 200 control characters, each written six bytes long in JSON, made a
 * hello past a small server's frame limit, closed before its welcome. They are now refused before any socket is
 * opened (`settings-invalid`, naming the option; a key's text is never in the message).
 */
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, waitingDesk } from "./fixtures.js";

const keep = keeper();

const wrong: [string, Record<string, unknown>, RegExp][] = [
  ["a key of 1025 characters", { key: `secret-${"k".repeat(1018)}` }, /connect: key must be text of at most 1024 characters, not 1025 characters/],
  ["a key that is a number", { key: 42 }, /connect: key must be text of at most 1024 characters, not number/],
  ["a name of 201 characters", { client: "n".repeat(201) }, /connect: client must be a name of at most 200 characters/],
  ["a name that is not text", { client: { name: "desk-app" } }, /connect: client must be a name/],
  ["a name of control characters", { client: "\u0001".repeat(200) }, /none a control character/],
  ["a name with a newline", { client: "desk\napp" }, /none a control character/],
];

describe("connect(): a hello's key and name it cannot carry", () => {
  it.each(wrong)("%s is settings-invalid, and no socket is opened", async (_, options, message) => {
    const sockets = new WebSocketServer({ port: 0 });
    let opened = 0;
    sockets.on("connection", (ws) => {
      opened++;
      ws.close();
    });
    await new Promise((r) => sockets.once("listening", r));
    try {
      const url = `ws://127.0.0.1:${(sockets.address() as AddressInfo).port}`;
      const error = await connect(url, options as never).then(
        () => null,
        (e: unknown) => e as { code?: string; message?: string },
      );
      expect(error?.code).toBe("settings-invalid");
      expect(error?.message).toMatch(message);
      expect(error?.message).not.toContain("secret-");
      expect(opened).toBe(0);
    } finally {
      await new Promise((r) => sockets.close(r));
    }
  });

  it("(guard) a key of 1024 characters and a name of 200 at the bounds connect, to a server at its smallest maxPayload", async () => {
    const d = await waitingDesk(["sam"]);
    const key = "k".repeat(1024);
    const floor = await serve({ store: d.store, programs: [d.served], keys: [key], port: 0, maxPayload: 1024 }).then(
      () => null,
      (e: { message?: string }) => Number(/give at least (\d+)/.exec(e.message ?? "")?.[1]),
    );
    expect(floor).toBeGreaterThan(1024);
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: [key], port: 0, maxPayload: floor! }));
    const app = keep(await connect(server.url, { key, client: `déjà-vu ${"n".repeat(192)}` }));
    expect((await app.waiting()).map((w) => w.conversation)).toEqual(["sam"]);
  });
});
