/**
 * A page's WebSocket tells an upgrade the server refused (a wrong path here: 400) only as a close 1006, as it tells a
 * server that is down: `connect()` said "could not connect (1006)", naming nothing to check. It now names what a 1006
 * may be (the network, or the upgrade refused: its path, its origins, a proxy). In Node `ws` gives the status itself
 * (test/websocket/hunt161-refused-upgrade.test.ts).
 */
import { describe, expect, inject, it } from "vitest";
import { connect } from "functai/websocket";

describe("a companion in Chromium whose upgrade is refused", () => {
  it("connect() to a path the server does not serve is remote-closed, naming what a 1006 may be", async () => {
    const bound = inject("functaiWsBoundUrl");
    const e = await connect(bound.replace(/\/functai$/, "/other"), { key: "k1" }).catch((x: unknown) => x as { code?: string; message?: string });
    expect(e).toMatchObject({ code: "remote-closed" });
    expect((e as { message: string }).message).toMatch(/\(1006: the network, or the server refused the upgrade \(its path, its origins, a proxy\)\)/);
    // (its own path is served: welcomed, told the programs; the other file's tests may have answered its turns)
    const app = await connect(bound, { key: "k1" });
    try {
      expect(app.programs).toContain("desk");
    } finally {
      await app.close();
    }
  });
});
