/** The server's settings reach the calls it runs as given: `approve: null` (ask nobody) is not turned into the default. */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { memoryStore } from "../../src/testing/index.js";
import { desk, deskModel, keeper } from "./fixtures.js";

const keep = keeper();

describe("serve({ settings: { approve: null } })", () => {
  it.each(["owner", "caller"] as const)("a %s call asks nobody, as the server was told", async (approvals) => {
    const d = desk();
    const server = keep(await serve({ store: memoryStore(), programs: [d.fn.using({ lm: deskModel() })], port: 0, settings: { approve: null } }));
    const app = keep(await connect(server.url));
    expect(await app.call("desk", "Refund A-1042, please.", { approvals })).toBe("The last tool said: refunded 39.00 for A-1042");
    expect(d.REFUNDS).toEqual([["A-1042", 39]]);
  });
});
