/**
 * `origins` lists the browser pages (by `Origin`, as a browser sends it: `scheme://host[:port]`) that may reach a
 * server without keys. Given as a lone string, it was taken letter by letter (a Set of its characters), and given with
 * a path or a trailing slash it could never equal an Origin: either way every page was refused (401), with nothing
 * said at `serve`. Such origins are refused there (`settings-invalid`), naming what is wrong.
 */
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { serve } from "../../adapters/websocket/index.js";
import { keeper, waitingDesk } from "./fixtures.js";

const keep = keeper();

/** The HTTP status of an upgrade a page of `origin` makes (101: it opened). */
const upgradeStatus = (url: string, origin: string) =>
  new Promise<number>((resolve) => {
    const ws = new WebSocket(url, { headers: { origin } });
    ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
    ws.on("open", () => (resolve(101), ws.close()));
    ws.on("error", () => undefined);
  });

describe("serve's origins", () => {
  it("a lone string is refused at serve, not taken letter by letter", async () => {
    const { store, served } = await waitingDesk([]);
    const started = serve({ store, programs: [served], port: 0, origins: "http://localhost:5173" as never });
    void started.then(keep, () => undefined);
    await expect(started).rejects.toMatchObject({ code: "settings-invalid", message: expect.stringContaining("origins") });
  });

  it("one that no browser sends (a trailing slash, a path) is refused at serve, naming it", async () => {
    const { store, served } = await waitingDesk([]);
    const started = serve({ store, programs: [served], port: 0, origins: ["http://localhost:5173/"] });
    void started.then(keep, () => undefined);
    await expect(started).rejects.toMatchObject({ code: "settings-invalid", message: expect.stringContaining('"http://localhost:5173/"') });
    // as a browser sends it, that page is let in, and only it
    const server = keep(await serve({ store, programs: [served], port: 0, origins: ["http://localhost:5173"] }));
    expect(await upgradeStatus(server.url, "http://localhost:5173")).toBe(101);
    expect(await upgradeStatus(server.url, "https://evil.example")).toBe(401);
  });
});
