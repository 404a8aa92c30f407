/**
 * Hunt 140: over Streamable HTTP, a call whose answer was to come on the stream of events its POST was answered with,
 * a stream the server keeps (each event with an id), cut or ended before the answer. The SDK resumes it: a GET with
 * Last-Event-ID, after its backoff, a few tries. Hunt 135 left that to the SDK, and when no resumption could bring the
 * answer the call waited out its whole timeout (60 s by default) for nothing: the server answered the GET 404 (the
 * session gone) or 405 (no stream to resume: the SDK stops, telling nothing), or every try failed (the SDK gives up,
 * saying only "Maximum reconnection attempts (2) exceeded." to onerror). Now each fails at once,
 * as hunt 135's unresumable stream does: a changing call's turn stops for a person (the server took it: it may have
 * run), a reading call is `remote-closed`, each saying how resuming failed. A resumption that succeeds after a failed
 * try still brings the answer (guard; hunt 135's guards one that succeeds at once). (Hunt 140 failed at once too a call
 * whose stream, resumed, ended before the answer with no event of its own with an id, the SDK then opening a stream
 * without Last-Event-ID: hunt 154 resumes it from the id again, and the answer comes, see hunt154-lost-event-id.)
 *
 * The server is the SDK's (see fixtures/cut-streams.ts); each call's timeout is far past the test's own, so a call that
 * waits for it fails the test.
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { type Resumption, type StreamEnd, cuttingServer } from "./fixtures/cut-streams.js";
import { endedStreamCases } from "./fixtures/ended-streams.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45 } from "./fixtures/hunt45.js";

const kept = closedAfterEach();

const TIMEOUT = 600_000;

/** For a stream that ended `how` and whose resumption is met as `resumption` says: both calls fail at once, saying `why`. */
function failsAtOnce(how: StreamEnd, resumption: Resumption, why: RegExp): void {
  it("a reading call is remote-closed at once", async () => {
    const [peek] = await mcpTools(kept(await cuttingServer(how, resumption)).client, { timeout: TIMEOUT });
    const error = await peek!.runAsTool({}, ctx45().ctx).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: "FunctaiError", code: "remote-closed" });
    expect((error as Error).message).toMatch(/^the MCP tool peek did not finish: the stream .* ended before its answer, and /);
    expect((error as Error).message).toMatch(why);
  }, 30_000);

  it("a changing call's turn stops for a person at once (the server took it: it may have run)", async () => {
    const [, refund] = await mcpTools(kept(await cuttingServer(how, resumption)).client, { timeout: TIMEOUT });
    const error = await refund!.runAsTool({}, ctx45().ctx).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: "NeedsPerson" });
    expect((error as Error).message).toMatch(/^the MCP tool refund may have run: .*stream .* ended before its answer, and /);
    expect((error as Error).message).toMatch(why);
  }, 30_000);
}

describe("a call whose answer's stream the SDK cannot resume", () => {
  describe("the server answers the resumption 404 (its session is gone)", () => {
    failsAtOnce("destroy", { status: 404 }, /resuming it failed: the server answered its GET with Last-Event-ID 404 Not Found/);
  });

  describe("the server answers the resumption 405 (no stream to resume: the SDK stops, telling nothing)", () => {
    failsAtOnce("end", { status: 405 }, /resuming it failed: the server answered its GET with Last-Event-ID 405 Method Not Allowed/);
  });

  describe("the server answers the resumption 200 with no stream of events (the SDK reads nothing from it)", () => {
    failsAtOnce(
      "destroy",
      { status: 200 },
      /resuming it failed: the server answered its GET with Last-Event-ID with no content type, not a stream of events/,
    );
  });

  describe("every resumption is answered 500: the SDK gives up", () => {
    failsAtOnce(
      "destroy",
      { status: 500 },
      /resuming it failed: the MCP SDK gave up \(Maximum reconnection attempts \(2\) exceeded\. Its last try: HTTP 500 Internal Server Error\)/,
    );
  });

  describe("every resumption's connection is cut before an answer: the SDK gives up", () => {
    failsAtOnce(
      "end",
      { drop: true },
      /resuming it failed: the MCP SDK gave up \(Maximum reconnection attempts \(2\) exceeded\. Its last try: fetch failed/,
    );
  });
});

/**
 * An answer past what functai reads of one event (16,000,000 bytes), on the stream a call's was resumed on: the stream
 * a GET opens was read as no request's, so nobody was told its answer was cut off there; the SDK, its stream failing,
 * opened another without Last-Event-ID (none of what it read had an id), and the call waited out its timeout. Now it
 * is read as the request's, and the call is a tool error at once, as on the POST's own stream (hunt 78).
 */
describe("an answer past the bound on the stream a call's was resumed on", () => {
  it("a reading call is tool-failed at once, saying its answer was past the bound", async () => {
    const [peek] = await mcpTools(kept(await cuttingServer("destroy", { then: "huge" })).client, { timeout: TIMEOUT });
    await expect(peek!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject({
      name: "FunctaiError",
      code: "tool-failed",
      message: expect.stringMatching(/^the MCP tool peek's answer was more than 16,000,000 bytes in one message of its answer's stream/),
    });
  }, 60_000);

  it("a changing call is tool-failed at once, saying it ran (its answer was known to be its)", async () => {
    const [, refund] = await mcpTools(kept(await cuttingServer("end", { then: "huge" })).client, { timeout: TIMEOUT });
    await expect(refund!.runAsTool({}, ctx45().ctx)).rejects.toMatchObject({
      name: "FunctaiError",
      code: "tool-failed",
      message: expect.stringMatching(/^the MCP tool refund ran, and its answer was more than 16,000,000 bytes/),
    });
  }, 60_000);
});

describe("a call whose answer's stream the SDK resumes", () => {
  it("after a try answered 500, the next brings the answer (guard)", async () => {
    const s = kept(await cuttingServer("destroy", { failFirst: 1, then: "answer" }));
    const [peek] = await mcpTools(s.client, { timeout: TIMEOUT });
    expect(await peek!.runAsTool({}, ctx45().ctx)).toBe("ran peek");
    expect(s.resumptions).toBe(2);
  }, 30_000);
});

/**
 * A stream whose only id is on an event with no data line (`id: prime-1` and a blank line, as a server priming its
 * stream might write it): the SDK's parser (eventsource-parser) gives no such event, its id dropped with it, so the
 * SDK cannot resume the stream. functai took any `id` line for one it resumes, left the stream to the SDK, and the
 * call waited out its timeout; now an id counts as the SDK's does (hunt 135's cases, on such a stream).
 */
describe("a call whose answer's stream had an id only on an event with no data (the SDK takes no id from it)", () => {
  endedStreamCases(async (how) => kept(await cuttingServer(how, undefined, "id: prime-1\nretry: 10\n\n")), "the server took it: it may have run");
});
