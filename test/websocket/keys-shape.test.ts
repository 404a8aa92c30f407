/** Keys given in the wrong shape (a lone string from an environment variable, null) are refused with settings-invalid, never a TypeError. */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("keys not given as a list", () => {
  it.each([["a lone string", "k1"], ["null", null], ["an object", { key: "k1" }]])("serve({ keys: %s }) is settings-invalid", async (_, keys) => {
    const d = await waitingDesk([]);
    const made = serve({ store: d.store, programs: [d.served], port: 0, keys: keys as never });
    await expect(made).rejects.toMatchObject({ name: "FunctaiError", code: "settings-invalid", message: expect.stringContaining("keys") });
    await expect(made).rejects.toMatchObject({ message: expect.not.stringContaining("k1") }); // a key is never shown
  });

  it.each([["a lone string", "k2"], ["null", null], ["undefined", undefined]])("setKeys(%s) is settings-invalid, and the keys stay as they were", async (_, keys) => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, keys: ["k1"] }));
    expect(() => server.setKeys(keys as never)).toThrow(expect.objectContaining({ code: "settings-invalid" }));
    const app = keep(await connect(server.url, { key: "k1" }));
    expect(await app.waiting()).toEqual([]);
  });
});
