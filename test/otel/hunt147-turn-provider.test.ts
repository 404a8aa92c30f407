/**
 * Hunt 147: the GenAI conventions require `gen_ai.provider.name` on an
 * `invoke_agent` span (and the request model where it is known). The turn
 * span named neither: only its chat spans did. It now names the provider and
 * model of its own function's first model call in the run; a call made inside
 * a tool (an AI function used as a tool, with a model of its own) names only
 * its chat span, also when it is the first call a resumed run makes.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { otel } from "../../adapters/otel/index.js";
import { ai, memoryStore, Waiting } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { named, tracing } from "./tracing.js";

/** A desk whose tool is an AI function with a model of its own (each scripted model answers once per reply given). */
const makeDesk = () => {
  const helper = ai("helper", {
    description: "Look the order up.",
    input: { order_id: z.string() },
    lm: scripted(["The kettle is stuck at the carrier."], { model: "helper-model" }),
  });
  return ai("desk", { description: "Help the customer.", input: { message: z.string() }, tools: [helper] });
};
const asksHelper = { toolCalls: [{ name: "helper", input: { order_id: "A-1042" } }] };
const ANSWER = "It is stuck at the carrier.";

describe("hunt 147: the turn span names its provider and model", () => {
  it("a tool loop's invoke_agent span names its function's provider and model, not a tool's inner function's", async () => {
    const t = tracing();
    const desk = makeDesk();
    const lm = scripted([asksHelper, ANSWER], { model: "desk-model" });
    expect(await desk("Where is A-1042?", { lm, plugins: [otel({ tracer: t.tracer })] })).toBe(ANSWER);
    const [turn, ...others] = named(t.spans(), "invoke_agent desk");
    expect(others).toEqual([]);
    expect(turn!.attributes).toMatchObject({ "gen_ai.provider.name": "scripted", "gen_ai.request.model": "desk-model" });
    // the inner function's own model is on its chat span
    expect(named(t.spans(), "chat helper-model").map((s) => s.attributes["gen_ai.request.model"])).toEqual(["helper-model"]);
  });

  it("a resumed run whose first model call is a tool's inner function's names its own function's model", async () => {
    const t = tracing();
    const store = memoryStore();
    const plugins = [otel({ tracer: t.tracer })];
    const desk = makeDesk();
    // a person is asked before the AI function used as a tool runs (a rule naming it)
    const wait = await desk.conversation("sam", { store, approve: ["helper"], lm: scripted([asksHelper], { model: "desk-model" }), plugins }).send("Where is A-1042?").catch((e: unknown) => e);
    expect(wait).toBeInstanceOf(Waiting);
    // the run that goes on replays the desk's first reply from the journal: its model answers the last step only
    const turn = (await desk.conversation("sam", { store, lm: scripted([ANSWER], { model: "desk-model" }), plugins }).turns()).at(-1)!;
    expect(await turn.approve({ by: "maria" })).toBe(ANSWER);

    const [first, second] = named(t.spans(), "invoke_agent desk");
    expect(first!.attributes).toMatchObject({ "functai.turn.state": "waiting", "gen_ai.request.model": "desk-model" });
    expect(second!.attributes).toMatchObject({ "functai.resumed": true, "functai.turn.state": "done" });
    // the second run's first model call was the helper's, then the desk's answer
    const chats = t.spans().filter((s) => s.name.startsWith("chat ")).slice(1);
    expect(chats.map((s) => s.name)).toEqual(["chat helper-model", "chat desk-model"]);
    expect(second!.attributes).toMatchObject({ "gen_ai.provider.name": "scripted", "gen_ai.request.model": "desk-model" });
  });
});
