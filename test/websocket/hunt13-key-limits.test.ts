/**
 * A key's limits given in a shape that is not a list of names (a lone name,
 * null from a config file), or one key given twice: refused with
 * settings-invalid by `serve` and `setKeys`, never taken as some other
 * limit. Taken, `conversations: null` let a key meant to be limited see and
 * answer every conversation; `"sam"` limited it to conversations "s", "a"
 * and "m"; a key given twice had the limits of its first entry.
 */
import { describe, expect, it } from "vitest";
import { connect, serve, type KeySpec } from "../../adapters/websocket/index.js";
import { keeper, waitingDesk } from "./fixtures.js";

const keep = keeper();

const wrongLimits: [string, KeySpec][] = [
  ["conversations: null", { key: "k2", conversations: null as never }],
  ["programs: null", { key: "k2", programs: null as never }],
  ["conversations: a lone name", { key: "k2", conversations: "sam" as never }],
  ["programs: a lone name", { key: "k2", programs: "desk" as never }],
  ["conversations: a number among the names", { key: "k2", conversations: ["sam", 7] as never }],
  ["one key given twice, once limited", { key: "k1", conversations: ["sam"] }],
];

describe("a key's limits in the wrong shape", () => {
  it.each(wrongLimits)("serve: %s is settings-invalid, and the key is never shown", async (_, spec) => {
    const d = await waitingDesk(["sam", "ana"]);
    const made = serve({ store: d.store, programs: [d.served], port: 0, keys: ["k1", spec] });
    await expect(made).rejects.toMatchObject({ name: "FunctaiError", code: "settings-invalid" });
    await expect(made).rejects.toMatchObject({ message: expect.not.stringMatching(/k1|k2/) });
  });

  it.each(wrongLimits)("setKeys: %s is settings-invalid, and the keys stay as they were", async (_, spec) => {
    const d = await waitingDesk(["sam", "ana"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, keys: ["k1", { key: "k2", conversations: ["sam"] }] }));
    const limited = keep(await connect(server.url, { key: "k2" }));
    expect(() => server.setKeys(["k1", spec])).toThrow(expect.objectContaining({ code: "settings-invalid" }));
    // still limited to sam, and still connected
    expect((await limited.waiting()).map((w) => w.conversation)).toEqual(["sam"]);
    const ana = (await keep(await connect(server.url, { key: "k1" })).waiting()).find((w) => w.conversation === "ana")!;
    await expect(limited.approve({ conversation: "ana", turn: ana.turn })).rejects.toMatchObject({ code: "remote-forbidden" });
    expect(d.REFUNDS).toEqual([]);
  });

  it("the limits as the README gives them still work: lists of names, or left out", async () => {
    const d = await waitingDesk(["sam", "ana"]);
    const server = keep(
      await serve({
        store: d.store,
        programs: [d.served],
        port: 0,
        keys: ["k1", { key: "k2", conversations: ["sam"], programs: ["desk"] }, { key: "k3" }],
      }),
    );
    expect((await keep(await connect(server.url, { key: "k2" })).waiting()).map((w) => w.conversation)).toEqual(["sam"]);
    expect((await keep(await connect(server.url, { key: "k3" })).waiting()).map((w) => w.conversation)).toEqual(["ana", "sam"]);
  });
});
