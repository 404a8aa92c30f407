/**
 * Hunt 106: over Streamable HTTP a call's stream is read no further than 16,000,000 bytes an event (hunt 78), and a
 * changing call cut there is `tool-failed`, "it ran … do not call it again", as though the event cut were its answer.
 * An event cut may be no answer: a notification the server sends while the tool runs (a log line, progress), its
 * answer still to come. The request is then cancelled (notifications/cancelled) with the tool mid-run: whether it
 * acted is not known, and the model is told it ran, the call kept as done (never put to a person).
 *
 * Decided (hunt 111): a changing call whose cut event is not known to be its answer is in doubt (turn-unfinished,
 * "may have run"), as a call sent and never answered is. wire.ts's `bounded` reads the cut event's top-level keys as
 * they stream by (a `method` key: no answer; `result` or `error` with this call's id: its answer).
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, tool45 } from "./fixtures/hunt45.js";
import { wireServer78 } from "./fixtures/hunt78-http.js";

const kept = closedAfterEach();

describe("a notification past the bound in a changing call's stream, before its answer", () => {
  it("the call is in doubt (turn-unfinished), not told as one that ran", async () => {
    // one log notification of 17 MB, then (never sent: the stream is cut) the answer
    const s = kept(await wireServer78([tool45("export", true)], { export: { kind: "chatty", events: 1, bytes: 17_000_000 } }));
    const [exporter] = await mcpTools(s.client, { timeout: 60_000 });
    const error = await exporter!.runAsTool({}, ctx45().ctx).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    // (not whether the server finished writing: `finished` says only that its last bytes went to the kernel, and a
    // loopback socket's buffers can take the small answer after the client stopped reading at the bound; under load
    // they did. What the client read is what counts, and it read no answer: the call is in doubt)
    expect(error, String(error?.message)).toMatchObject({ code: "turn-unfinished", message: expect.stringMatching(/export may have run/) });
  }, 120_000);
});
