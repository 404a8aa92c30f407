/**
 * A recorded run whose model first wrote a call's arguments as broken JSON (OpenAI's `arguments` text, kept with
 * `inputError`), was told so, then called right: its example kept the broken text as the call's input but not that
 * it was the model's own unread text, so the next model was shown `"{\"order_id\": \"A-10"` (a JSON string of it)
 * where the run's model had read `{"order_id": "A-10`. The example shows the call as that run's model read it.
 */
import { describe, expect, it } from "vitest";
import { bootstrapFewShot, type AIState } from "../../src/index.js";
import { status } from "../evaluate/desk.js";
import { modelsOver } from "../providers/fixtures/models.js";
import { eachTestServer, fixtureJson, type MockServer } from "../providers/server.js";

let server: MockServer;
eachTestServer((s) => (server = s));
const { gpt } = modelsOver(() => server);

type Json = Record<string, any>;
const calls = (messages: Json[]): Json[] => messages.flatMap((m) => m.tool_calls ?? []);

describe("an example whose run first wrote a call's arguments as broken JSON", () => {
  it("shows that call's arguments as the run's model read them, also once saved and loaded", async () => {
    // the run: broken arguments, told so, a good call, the answer
    server.reply(
      { json: fixtureJson("openai/bad-args.json") },
      { json: fixtureJson("openai/tool-call.json") },
      { json: fixtureJson("openai/text.json") },
    );
    const better = await bootstrapFewShot(status, [{ question: "Where is A-1042?", result: "?" }], {
      teacher: gpt(),
      metric: () => 1,
      maxBootstrapped: 1,
      maxLabeled: 0,
    });
    expect(better.demos[0]!.steps).toHaveLength(2);
    const read = calls(server.requests[2]!.body.messages as Json[]).map((c) => c.function.arguments);
    expect(read[0]).toBe('{"order_id": "A-10');

    const loaded = status.withState(JSON.parse(JSON.stringify(better.state())) as AIState);
    for (const fn of [better, loaded]) {
      server.reply({ json: fixtureJson("openai/text.json") });
      await fn("Where is D-4410?", { lm: gpt() });
      const shown = calls(server.requests.at(-1)!.body.messages as Json[]).map((c) => c.function.arguments);
      expect(shown).toEqual(read);
    }
  });
});
