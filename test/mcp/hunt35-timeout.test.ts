/**
 * Hunt 35: a tool that takes longer than the SDK's own limit on a request
 * (60 s, after which it cancels the request on the server). mcpTools gave no
 * way to wait longer: a slow changing tool (a deploy, a bulk refund) was cut
 * off at 60 s each time, its turn stopped for a person ("may have run"),
 * and a slow reading tool never answered. `timeout` says how long each
 * request waits (here shortened, so the test need not wait a minute).
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { FunctaiError, memoryStore } from "../../src/index.js";
import { deskModel, makeDesk } from "./fixtures/desk.js";
import { closedAfterEach, hunt35, toolNamed } from "./fixtures/hunt35.js";

const kept = closedAfterEach();

async function server() {
  const s = await hunt35({ "": { tools: [toolNamed("slow", true), toolNamed("slow_peek")] } });
  return kept(s);
}

describe("mcpTools timeout", () => {
  it("a call may wait longer than a default: a slow changing tool's answer is its result", async () => {
    const { client, logged } = await server();
    const desk = await makeDesk(client, { timeout: 10_000 });
    const chat = desk.conversation("sam", { store: memoryStore(), lm: deskModel({ name: "slow", input: {} }) });
    expect(await chat.send("Go.")).toBe("ok: ran slow {}");
    expect(logged()).toEqual([{ list: "" }, { tool: "slow", phase: "begin" }]);
  }, 30_000);

  it("a call past it is cancelled on the server; a changing one stops its turn for a person (turn-unfinished)", async () => {
    const { client, logged } = await server();
    const desk = await makeDesk(client, { timeout: 500 });
    const lm = deskModel({ name: "slow", input: {} });
    const chat = desk.conversation("sam", { store: memoryStore(), lm });
    await expect(chat.send("Go.")).rejects.toMatchObject({ code: "turn-unfinished", message: expect.stringMatching(/slow may have run.*timed out/) });
    expect(lm.requests).toHaveLength(1);
    await expect.poll(() => logged(), { timeout: 10_000 }).toContainEqual({ tool: "slow", phase: "cancelled" });
  }, 30_000);

  it("a reading call past it is a tool error the model sees, saying it timed out", async () => {
    const { client } = await server();
    const desk = await makeDesk(client, { timeout: 500 });
    expect(await desk("Peek.", { lm: deskModel({ name: "slow_peek", input: {} }) })).toMatch(/^failed: Error: .*timed out/);
  }, 30_000);

  it("a timeout that is not a whole number of ms from 1 to 2,147,483,647 is refused (settings-invalid): past that, Node's timers fire at once", async () => {
    const { client } = await server();
    for (const timeout of [0, -1, 1.5, Number.POSITIVE_INFINITY, Number.NaN, 2 ** 31, "60000"]) {
      const e = await mcpTools(client, { timeout } as never).catch((x: unknown) => x);
      expect(e, String(timeout)).toBeInstanceOf(FunctaiError);
      expect(e).toMatchObject({ code: "settings-invalid", message: expect.stringMatching(/timeout/) });
    }
    expect(await mcpTools(client, { timeout: 2 ** 31 - 1 })).toHaveLength(2);
  }, 30_000);
});
