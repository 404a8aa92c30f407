/**
 * A JavaScript caller's slips on the companion's side (a URL from an
 * environment variable that is not set, a method called without its
 * options): a FunctaiError with a code, as `app.on` and a turn handle's
 * methods give, never a TypeError; nothing is sent, and the connection goes
 * on.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { FunctaiError } from "../../src/index.js";
import { keeper, waitingDesk } from "./fixtures.js";

const keep = keeper();

/** What calling `f` throws or rejects with (`null`: neither). */
async function failure(f: () => unknown): Promise<unknown> {
  try {
    await f();
    return null;
  } catch (e) {
    return e;
  }
}

describe("a companion's slips", () => {
  it.each([
    ["undefined", undefined],
    ["a number", 8787],
    ["null", null],
  ])("connect(%s): settings-invalid", async (_, url) => {
    const e = await failure(() => connect(url as never));
    expect(e).toBeInstanceOf(FunctaiError);
    expect(e).toMatchObject({ code: "settings-invalid" });
  });

  it("approve, deny, resume, abandon, status and call without their options (or with null): input-invalid, nothing sent", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0 }));
    const app = keep(await connect(server.url, { key: "k1" }));
    const calls: [string, () => unknown][] = [
      ["approve", () => app.approve(undefined as never)],
      ["deny", () => app.deny(null as never)],
      ["resume", () => app.resume(undefined as never)],
      ["abandon", () => app.abandon(undefined as never)],
      ["status", () => app.status(null as never)],
      ["call", () => app.call("desk", { message: "Refund A-1042." }, null as never)],
    ];
    for (const [name, f] of calls) {
      const e = await failure(f);
      expect(e, name).toBeInstanceOf(FunctaiError);
      expect(e, name).toMatchObject({ code: "input-invalid" });
    }
    expect(d.lm.requests).toHaveLength(2); // nothing ran
    expect((await app.waiting()).map((w) => w.conversation)).toEqual(["sam"]);
  });
});
