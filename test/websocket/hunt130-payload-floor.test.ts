/**
 * A `maxPayload` below the hello a companion sends locked every companion out: each hello was closed (1009, the
 * server saying why) before its welcome, at every reconnect, while the server ran on as though it served. It is now
 * refused when the server starts (`settings-invalid`, naming the minimum), as is a key given later (`setKeys`) that
 * makes the hello longer than the server takes.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, waitingDesk } from "./fixtures.js";

const keep = keeper();

/** What `run` threw (its code and message), or null. */
async function thrown(run: () => unknown): Promise<{ code?: string; message?: string } | null> {
  try {
    await run();
    return null;
  } catch (e) {
    return e as { code?: string; message?: string };
  }
}

describe("a maxPayload below the hello a companion sends", () => {
  it("is refused at serve, naming the minimum (and a maxPayload that takes it is served)", async () => {
    const d = await waitingDesk([]);
    const keys = ["k".repeat(1000)];
    const e = await thrown(async () => keep(await serve({ store: d.store, programs: [d.served], keys, port: 0, maxPayload: 1024 })));
    expect(e?.code).toBe("settings-invalid");
    const min = Number(/give at least (\d+)/.exec(e?.message ?? "")?.[1]);
    expect(min).toBeGreaterThan(1024);
    expect(await thrown(async () => keep(await serve({ store: d.store, programs: [d.served], keys, port: 0, maxPayload: min })))).toBeNull();
  });

  it("a key given later that makes the hello too long is refused, and the keys stay as they were", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0, maxPayload: 1024 }));
    const e = await thrown(() => server.setKeys(["k1", "k".repeat(1000)]));
    expect(e?.code).toBe("settings-invalid");
    expect(e?.message).toContain("maxPayload (1024)");
    const app = keep(await connect(server.url, { key: "k1" }));
    expect(app.programs).toEqual(["desk"]);
  });
});
