/**
 * Hunt 135: over Streamable HTTP, a call whose answer was to come on the stream of events its POST was answered with
 * (the server took the call, and said something on that stream first: a log line, progress), and the stream ends
 * before the answer: its connection cut (a proxy, a server's socket destroyed), or the server ending it. No event of
 * it had an id, so the SDK cannot resume it (it reopens a stream with `Last-Event-ID` only after an event with one),
 * and it says only "SSE stream disconnected" to onerror, or nothing: the answer can come on no other stream, and the
 * call waited out its whole timeout (60 s by default), to end as the SDK's bare "Request timed out". Now it fails at
 * once: a changing call's turn stops for a person (the server took it: it may have run), a reading call is
 * `remote-closed`, saying the stream of its answer ended. A stream that can be resumed (its server keeps events,
 * each with an id) is left to the SDK, which resumes it and gets the answer (guard).
 *
 * The server is the SDK's (see fixtures/cut-streams.ts); each call logs "working" to the client, then its POST's answer
 * is cut (`destroy`) or ended (`end`) while the tool still runs. Each call's timeout is far past the test's own.
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { cuttingServer } from "./fixtures/cut-streams.js";
import { endedStreamCases } from "./fixtures/ended-streams.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45 } from "./fixtures/hunt45.js";

const kept = closedAfterEach();

const TIMEOUT = 600_000;

describe("a call whose answer's stream ends before the answer, and cannot be resumed", () => {
  endedStreamCases(async (how) => kept(await cuttingServer(how)), "the server took it: it may have run");

  it("a stream that can be resumed (its events have ids): the SDK opens it again and the call has its answer (guard)", async () => {
    // (the call closes its stream itself, as the SDK's servers do to have a client poll, and answers once resumed)
    const s = kept(await cuttingServer("close", { then: "answer" }));
    const [peek] = await mcpTools(s.client, { timeout: TIMEOUT });
    expect(await peek!.runAsTool({}, ctx45().ctx)).toBe("ran peek");
  }, 30_000);
});
