/**
 * Hunt 106: telling the SDK's own request timeout (-32001, raised by the client) from a server that answered with
 * code -32001. mcpTools told them apart by the clock: a -32001 that came before `timeout` ms had passed, by
 * `performance.now()`, was read as the server's answer. The timer and that clock are not one: a timer that fired
 * while the clock said less time had passed (here: the timer faked, fired at once) was read as the server's
 * answer ("the MCP server answered …" for a call never answered; a call held back for an OAuth token, never sent,
 * read as one that may have run), and a server's -32001 that came once the clock said the timeout had passed (here:
 * the clock moved on while the answer was on its way) as the SDK's own ("no answer came back"). Now the timeout is
 * timed by mcpTools itself: a -32001 is its own exactly when its timer fired.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, hunt45, tool45 } from "./fixtures/hunt45.js";
import { wireServer78 } from "./fixtures/hunt78-http.js";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});
const kept = closedAfterEach();

/** The call's outcome: its error (or `undefined` when it resolved). */
const outcome = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as Error,
  );

describe("the SDK's own timeout and a server's -32001", () => {
  it("the timeout's timer fires while the clock says less time passed: still no answer came back, not 'the server answered'", async () => {
    const { client, logged } = kept(await hunt45({ tools: [tool45("pay", true)], hang: ["pay"] }));
    const [pay] = await mcpTools(client, { timeout: 5_000 });
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const call = outcome(pay!.runAsTool({}, ctx45().ctx));
    await expect.poll(() => logged(), { timeout: 10_000 }).toEqual([{ tool: "pay", keys: [] }]);
    // the timer fires now, though the clock says far less than 5 s passed
    vi.advanceTimersByTime(5_000);
    const e = await call;
    vi.useRealTimers();
    expect(e).toMatchObject({ code: "turn-unfinished", message: expect.stringMatching(/pay may have run: .*timed out, and no answer came back/) });
    expect(e!.message).not.toMatch(/the MCP server answered/);
  }, 30_000);

  it("a server's -32001 that comes once the clock says the timeout passed: the server answered it, not the SDK's own timeout", async () => {
    const { client, transport } = kept(
      await hunt45({ tools: [tool45("pay", true)], errors: { pay: { code: -32001, message: "the ledger timed out" } } }),
    );
    const [pay] = await mcpTools(client, { timeout: 5_000 });
    // the clock moves on 5 s while the server's error answer is on its way (its timer, 5 s, has not fired)
    let skew = 0;
    const now = performance.now.bind(performance);
    vi.spyOn(performance, "now").mockImplementation(() => now() + skew);
    const t = transport as unknown as { onmessage: (m: unknown, extra?: unknown) => void };
    const deliver = t.onmessage;
    t.onmessage = (m, extra) => {
      if ((m as { error?: unknown }).error !== undefined) skew += 5_000;
      deliver.call(transport, m, extra);
    };
    const e = await outcome(pay!.runAsTool({}, ctx45().ctx));
    expect(e).toMatchObject({
      code: "turn-unfinished",
      message: expect.stringMatching(/pay may have run: the MCP server answered .*the ledger timed out/),
    });
    expect(e!.message).not.toMatch(/no answer came back/);
  }, 30_000);

  it("a call held back for an OAuth token whose timer fires while the clock says less time passed: remote-auth, it did not run", async () => {
    const s = kept(await wireServer78([tool45("refund", true)], {}, { auth: true }));
    const [refund] = await mcpTools(s.client, { timeout: 5_000 });
    s.expire();
    s.hangTokens();
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const call = outcome(refund!.runAsTool({}, ctx45().ctx));
    // refused for its token, the call waits for a new one, which does not come
    await expect.poll(() => s.tokenAsks(), { timeout: 10_000 }).toBeGreaterThan(0);
    vi.advanceTimersByTime(5_000);
    const e = await call;
    vi.useRealTimers();
    expect(e, String(e?.message)).toMatchObject({
      name: "FunctaiError",
      code: "remote-auth",
      message: expect.stringMatching(/refund was not sent.*did not run/),
    });
    expect(s.calls).toEqual([]);
  }, 30_000);
});
