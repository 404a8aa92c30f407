/**
 * Hunt 154: over Streamable HTTP, a call whose answer's stream the server closes to have its client poll (the SDK's
 * `closeSSEStream`), and closes again each time it is resumed, with nothing on it, before the answer is ready. The
 * SDK resumes the first close from the id of the last event read (a GET with Last-Event-ID), but keeps that id per
 * stream: the stream it was resumed on had no event with an id, so on its close the SDK opened a stream without
 * Last-Event-ID, on which no answer comes (the server keeps it for a resumption from the id). The answer was lost:
 * hunt 140 failed the call at once (a changing call's turn stopped for a person, though the server answered it in
 * time). Now the stream is resumed from the id it was resumed from before, as an EventSource keeps its last event
 * id from one connection to the next, and the answer comes. The call is sent once: only its stream is opened again.
 *
 * The server is the SDK's (see fixtures/cut-streams.ts: it keeps its events, each with an id).
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { cuttingServer } from "./fixtures/cut-streams.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45 } from "./fixtures/hunt45.js";

const kept = closedAfterEach();

/** Far past the test's own: a call that waits for it fails the test. */
const TIMEOUT = 600_000;

describe("a call whose answer's stream the server closes each time it is resumed, before the answer", () => {
  for (const [index, name] of [
    [0, "peek"],
    [1, "refund"],
  ] as const)
    it(`${name}: its answer comes, each resumption from the id of the last event read (the call sent once)`, async () => {
      const s = kept(await cuttingServer("close", { then: "close", closes: 2 }));
      const tool = (await mcpTools(s.client, { timeout: TIMEOUT }))[index]!;
      expect(await tool.runAsTool({}, ctx45().ctx)).toBe(`ran ${name}`);
      expect(s.calls).toEqual([name]);
      // the first resumption, then at least one for each stream closed on it, each with a Last-Event-ID (a stream
      // that replayed an event before its close, read under load, is resumed from that event's id: one more)
      expect(s.resumedFrom.length).toBeGreaterThanOrEqual(3);
    }, 30_000);

  it("one whose server never answers is resumed from the id until the call's timeout: a changing call's turn then stops for a person", async () => {
    const s = kept(await cuttingServer("close", { then: "close" }));
    const [, refund] = await mcpTools(s.client, { timeout: 2_000 });
    const error = await refund!.runAsTool({}, ctx45().ctx).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: "NeedsPerson" });
    expect((error as Error).message).toMatch(/^the MCP tool refund may have run: .*Request timed out/);
    expect(s.calls).toEqual(["refund"]);
    expect(s.resumptions).toBeGreaterThan(1);
  }, 30_000);
});
