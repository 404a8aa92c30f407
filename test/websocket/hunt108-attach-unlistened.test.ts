/**
 * `serve({ server })` given an HTTP server that does not listen yet (keys
 * given, so the loopback check lets it by). It failed with a bare TypeError
 * (reading the address it does not have yet) after it had started polling
 * the store and put its upgrade listener on that server: the app's server
 * took WebSocket upgrades for a functai server whose handle nobody got, so
 * nobody could close it. It is refused with a code before anything starts.
 */
import { createServer } from "node:http";
import { describe, expect, it } from "vitest";
import { serve } from "../../adapters/websocket/index.js";
import { waitingDesk } from "./fixtures.js";

describe("serve attached to an HTTP server that does not listen yet", () => {
  it("is refused (settings-invalid) saying to listen first, with nothing left on that server", async () => {
    const d = await waitingDesk(["sam"]);
    const http = createServer();
    await expect(serve({ store: d.store, programs: [d.served], server: http, keys: ["k1"] })).rejects.toMatchObject({
      code: "settings-invalid",
      message: expect.stringContaining("listen"),
    });
    expect(http.listenerCount("upgrade")).toBe(0);
    expect(http.listenerCount("error")).toBe(0);
  });
});
