/**
 * Hunt 154: a tools listing (tools/list, two pages) whose second page's stream of events is ended before its answer,
 * over Streamable HTTP, as hunts 135 and 140 had a call's. The listing goes through the same watch of the wire as a
 * call: a stream that cannot be resumed, or whose resumption fails, fails the listing at once, `remote-closed`,
 * saying how (guards: it did, untested); one resumed brings the page (guard); one resumed whose stream the server
 * closes again with nothing on it was lost as a call's was, and is resumed from the id now (see
 * hunt154-lost-event-id: it failed before).
 *
 * The server is the SDK's (see fixtures/cut-streams.ts, `cutPage`); each page's timeout is far past the test's own.
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { refusalOf } from "../fixtures/refused.js";
import { type Resumption, type StreamEnd, cuttingServer } from "./fixtures/cut-streams.js";
import { closedAfterEach } from "./fixtures/hunt35.js";

const kept = closedAfterEach();

const TIMEOUT = 600_000;

/** The listing of a server whose second page's stream ends `how`, its resumption met as `resumption` says. */
const listing = async (how: StreamEnd, resumption?: Resumption) =>
  mcpTools(kept(await cuttingServer(how, resumption, undefined, true)).client, { timeout: TIMEOUT });

describe("a listing whose second page's stream ends before its answer", () => {
  /** A case whose listing fails at once, `remote-closed`, saying `why`. */
  const fails = (name: string, how: StreamEnd, resumption: Resumption | undefined, why: RegExp) =>
    it(name, async () => {
      const e = await refusalOf(() => listing(how, resumption));
      expect(e.code).toBe("remote-closed");
      expect(e.message).toMatch(
        /^the MCP server's tools could not be listed: the stream of events the MCP server's answer was to come on ended before its answer/,
      );
      expect(e.message).toMatch(why);
    }, 30_000);

  fails("no event of it with an id (it cannot be resumed): remote-closed at once (guard)", "destroy", undefined, /none of its events had an id/);
  fails(
    "its resumption answered 404: remote-closed at once (guard)",
    "end",
    { status: 404 },
    /resuming it failed: the server answered its GET with Last-Event-ID 404 Not Found/,
  );
  fails(
    "every resumption answered 500, the SDK giving up: remote-closed at once (guard)",
    "destroy",
    { status: 500 },
    /resuming it failed: the MCP SDK gave up \(Maximum reconnection attempts \(2\) exceeded\. Its last try: HTTP 500 Internal Server Error\)/,
  );

  it("resumed, it brings the page: both pages' tools are taken (guard)", async () => {
    expect((await listing("destroy", { then: "answer" })).map((t) => t.name)).toEqual(["peek", "refund"]);
  }, 30_000);

  it("resumed, and the stream it was resumed on closed with nothing on it: resumed from the id again, the page comes", async () => {
    expect((await listing("close", { then: "close", closes: 1 })).map((t) => t.name)).toEqual(["peek", "refund"]);
  }, 30_000);
});
