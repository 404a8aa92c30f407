/**
 * A stop (an aborted signal) while a plugin's hook never answers is bounded as a stop during a tool, a model or a
 * `toolResult` hook is (STOP_GRACE_MS, hunt 67): `turnStart`, `modelRequest`, `modelResponse`, `turnEnd` and the
 * `toolResult` hook of a tool that failed held the stop for good before. The stop settles `turn-aborted`, the turn's
 * `ended` record is kept, and the hook's late answer writes nothing more.
 *
 * Bound: 20 s for a 5 s grace, as in test/engine/hunt67-stop-bound.test.ts (a loaded machine's timers may fire late);
 * a stop that takes longer has hung.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool, type Plugin, type PluginHooks } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { settleOrHang } from "../engine/fixtures.js";

const BOUND_MS = 20_000;

/** A hook that never answers until released, and a promise of its first call. */
function deafHook() {
  let entered!: () => void;
  const called = new Promise<void>((r) => (entered = r));
  const releases: (() => void)[] = [];
  // (a turn hook's view can keep data: released late, it keeps some, which must not be written after the end)
  const hook = (view?: { keep?: (data: unknown) => void }): Promise<undefined> => {
    entered();
    return new Promise<undefined>((r) =>
      releases.push(() => {
        // (kept after the end is refused, plugin-failed: hunt 83; what must hold is that nothing is written)
        try {
          view?.keep?.({ late: true });
        } catch (e) {
          if ((e as { code?: string }).code !== "plugin-failed") throw e;
        }
        r(undefined);
      }),
    );
  };
  return { hook, called, release: () => releases.forEach((r) => r()) };
}

/** A reading tool that fails at once, and one that waits for its signal (it honours the stop). */
const broken = tool("lookup", { description: "Looks up.", input: { id: z.string() }, effects: "reads" }, () => {
  throw new Error("no such order");
});
const patient = tool(
  "wait",
  { description: "Waits.", input: { id: z.string() }, effects: "reads" },
  (_input, ctx) =>
    new Promise<string>((_resolve, reject) => {
      // the stop reaches the tool, and it ends at once: only the hook holds the stop
      ctx.signal.addEventListener("abort", () => reject(new Error("stopped")), { once: true });
    }),
);

async function stopWhileHung(name: keyof PluginHooks, tools: "broken" | "patient" | "none") {
  const deaf = deafHook();
  const plugin: Plugin = { name: "deaf", version: "1", hooks: { [name]: deaf.hook } };
  const fn = ai("desk", {
    description: "Help.",
    input: { q: z.string() },
    tools: tools === "broken" ? [broken] : tools === "patient" ? [patient] : [],
  });
  const store = memoryStore();
  const lm = scripted(
    tools === "broken"
      ? [{ toolCalls: [{ name: "lookup", input: { id: "A-1" } }] }, "done"]
      : tools === "patient"
        ? [{ toolCalls: [{ name: "wait", input: { id: "A-1" } }] }, "done"]
        : ["done"],
  );
  const controller = new AbortController();
  const sent = fn.conversation("c1", { store, lm, plugins: [plugin] }).send("go", { signal: controller.signal });
  if (name === "turnEnd") {
    // the tool waits; stopped, the tool ends at once and the turn's end is told to the hook, which never answers
    await new Promise((r) => setTimeout(r, 200));
  } else await deaf.called;
  controller.abort();
  const outcome = await settleOrHang(sent, BOUND_MS);
  const records = await store.read("c1");
  deaf.release();
  await new Promise((r) => setTimeout(r, 300));
  const after = await store.read("c1");
  return { outcome, records, after, lm };
}

describe("a stop while a plugin hook never answers", () => {
  it("turnStart: rejects turn-aborted, the model is never asked, the end is kept", async () => {
    const { outcome, records, after, lm } = await stopWhileHung("turnStart", "none");
    expect(outcome).toBe("turn-aborted");
    expect(records.at(-1)).toMatchObject({ kind: "ended", state: "stopped" });
    expect(lm.requests).toHaveLength(0);
    expect(after.length).toBe(records.length);
  });

  it("modelRequest: rejects turn-aborted, the model is never asked, the end is kept", async () => {
    const { outcome, records, after, lm } = await stopWhileHung("modelRequest", "none");
    expect(outcome).toBe("turn-aborted");
    expect(records.at(-1)).toMatchObject({ kind: "ended", state: "stopped" });
    expect(lm.requests).toHaveLength(0);
    expect(after.length).toBe(records.length);
  });

  it("modelResponse: rejects turn-aborted and the end is kept", async () => {
    const { outcome, records, after } = await stopWhileHung("modelResponse", "none");
    expect(outcome).toBe("turn-aborted");
    expect(records.at(-1)).toMatchObject({ kind: "ended", state: "stopped" });
    expect(after.length).toBe(records.length);
  });

  it("turnEnd (told of the stop): rejects turn-aborted and the end is kept", async () => {
    const { outcome, records, after } = await stopWhileHung("turnEnd", "patient");
    expect(outcome).toBe("turn-aborted");
    expect(records.at(-1)).toMatchObject({ kind: "ended", state: "stopped" });
    expect(after.length).toBe(records.length);
  });

  it("toolResult of a tool that failed: rejects turn-aborted, the failure is kept, the end is kept", async () => {
    const { outcome, records, after, lm } = await stopWhileHung("toolResult", "broken");
    expect(outcome).toBe("turn-aborted");
    const tools = records.filter((r) => r.kind === "tool") as unknown as { state: string; error?: string }[];
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({ state: "done", error: expect.stringContaining("no such order") });
    expect(records.at(-1)).toMatchObject({ kind: "ended", state: "stopped" });
    expect(lm.requests).toHaveLength(1);
    expect(after.length).toBe(records.length);
  });
});
