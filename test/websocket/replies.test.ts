/**
 * Every request is answered by its id, whatever its result holds: a
 * companion's call never waits forever for a reply the server could not send.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { connect, serve } from "../../adapters/websocket/index.js";
import { program } from "../../src/index.js";
import { memoryStore } from "../../src/testing/index.js";
import { keeper } from "./fixtures.js";

const keep = keeper();

const settled = (p: PromiseLike<unknown>): Promise<unknown> =>
  Promise.race([Promise.resolve(p).then((v) => ({ value: v }), (e: unknown) => e), new Promise((r) => setTimeout(() => r("never settled"), 3000))]);

describe("a result JSON cannot say", () => {
  it("a program whose value is a BigInt: the call is refused by its id (output-invalid), and the connection goes on", async () => {
    const logged: string[] = [];
    const big = program("big", { description: "Counts.", input: { message: z.string() }, output: z.bigint() }, () => 10n);
    const echo = program("echo", { description: "Echoes.", input: { message: z.string() } }, ({ message }) => message);
    const server = keep(await serve({ store: memoryStore(), programs: [big, echo], port: 0, onError: (m) => logged.push(m) }));
    const app = keep(await connect(server.url));
    expect(await settled(app.call("big", "count", { approvals: "caller" }))).toMatchObject({ code: "output-invalid" });
    // in a conversation the store refuses the record first; either way the call settles with a code
    expect(await settled(app.call("big", "count", { conversation: "big-1" }))).toMatchObject({ code: expect.any(String) });
    expect(logged.length).toBeGreaterThan(0); // the server's log says why
    expect(await app.call("echo", "still here", { approvals: "caller" })).toBe("still here");
  });
});
