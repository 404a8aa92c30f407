/**
 * setKeys changing a connected key's limits: its companion is told at once
 * what it may call (the welcome's `programs`) and see (the waiting list),
 * not left with what was true when it connected.
 */
import { describe, expect, it } from "vitest";
import { connect, serve, type WaitingEntry } from "../../adapters/websocket/index.js";
import { memoryStore } from "../../src/testing/index.js";
import { desk, deskModel, keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("a key's limits changed while its companion is connected", () => {
  it("the companion's programs follow setKeys, both ways", async () => {
    const lm = deskModel();
    const a = desk().fn.using({ lm });
    const b = desk().fn.using({ lm });
    const server = keep(await serve({ store: memoryStore(), programs: { desk: a, other: b }, keys: [{ key: "k1", programs: ["desk"] }], port: 0 }));
    const app = keep(await connect(server.url, { key: "k1" }));
    expect(app.programs).toEqual(["desk"]);
    server.setKeys([{ key: "k1", programs: ["other"] }]);
    await until(() => app.programs.join() === "other");
    await expect(Promise.resolve(app.call("desk", "hi"))).rejects.toMatchObject({ code: "remote-forbidden" }); // what it was told is what it may call
    server.setKeys(["k1"]);
    await until(() => app.programs.length === 2);
    expect([...app.programs].sort()).toEqual(["desk", "other"]);
  });

  it("the waiting list is pushed again under the new limits", async () => {
    const d = await waitingDesk(["ana", "sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0, pollMs: 60_000 }));
    const app = keep(await connect(server.url, { key: "k1" }));
    let list: WaitingEntry[] = app.last;
    app.on("waiting", (w) => (list = w));
    await until(() => list.length === 2);
    server.setKeys([{ key: "k1", conversations: ["sam"] }]);
    await until(() => list.length === 1);
    expect(list.map((w) => w.conversation)).toEqual(["sam"]);
    server.setKeys(["k1"]);
    await until(() => list.length === 2);
  });
});
