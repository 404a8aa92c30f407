/**
 * Hunt 40: the connection that carries the first use's DDL (the tables made
 * or migrated) frozen (no answer, no FIN: a network that lost the path, a
 * NAT or load balancer that forgot the flow). Every other statement has a
 * deadline; the DDL has none, since it may wait for another store's
 * migration for as long as that takes (the schema's advisory lock, hunt
 * 37). So a first use whose answer never came hung for good, and every call
 * of the store behind it. README Errors: "never hangs". The store now
 * watches the DDL on the server while it waits: once the server runs it no
 * more (it ended, or its session is gone) and no answer came, the first use
 * fails `store-io` and the next call tries again.
 */
import { describe, expect, it } from "vitest";
import { rec } from "../store/contract.js";
import { onNet } from "./fixtures/hunt7-net-desk.js";
import { freezeAt, within } from "./fixtures/hunt8-freeze-kit.js";
import { NO_SERVER } from "./server.js";

describe.skipIf(NO_SERVER !== null)("the first use's DDL on a connection that freezes", () => {
  it("fails store-io in bounded time (never a hang), and the store's next call goes on", async () => {
    await onNet(
      async (n) => {
        const frozen = freezeAt(n, "functai first use");
        const first = n.store.append("a", [rec()]);
        await frozen;
        const end = await within(first, 20_000);
        expect(end.got, `waited ${end.ms} ms`).toBe("error store-io");
        expect(await n.store.append("a", [rec()])).toBe(1);
        expect((await n.other.read("a")).length).toBe(1);
      },
      { statementTimeoutMs: 3_000 },
    );
  }, 40_000);
});
