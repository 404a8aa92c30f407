/** `app.on` with an event it does not have (a typo, "__proto__") or a listener that is not a function: settings-invalid at once, never a TypeError then or at the next message. */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("app.on with wrong arguments", () => {
  it.each([
    ["an event it does not have", "waitng", () => undefined],
    ["__proto__", "__proto__", () => undefined],
    ["a listener that is not a function", "waiting", "render"],
  ])("%s is settings-invalid", async (_, type, listener) => {
    const d = await waitingDesk(["ana"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0 }));
    const app = keep(await connect(server.url));
    expect(() => app.on(type as "waiting", listener as never)).toThrow(expect.objectContaining({ name: "FunctaiError", code: "settings-invalid" }));
    expect((await app.waiting()).map((w) => w.conversation)).toEqual(["ana"]);
  });
});
