/**
 * Hunt 56: the plugins' `toolRun` hook, which runs around a tool's body (otel() runs the body in its
 * `execute_tool` span's context with it). Plugins nest in their order (the first outermost). A hook calls
 * `run` exactly once and returns what it gave, unchanged; the engine holds it to that: a second `run` never
 * runs the tool again (it is refused, plugin-failed), and a hook that never lets the tool run, or hands back
 * something else, fails the call with plugin-failed. A tool that ran is journaled as what it returned (a
 * changing tool's `done` record), never left `started` nor run again; one that did not run is written `rerun`.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError, memoryStore, tool, type Plugin } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { failure } from "./fixtures/coded-failure.js";

type Run = () => Promise<unknown>;
const plugin = (name: string, toolRun: (call: { name: string; path: string; input: unknown }, run: Run) => unknown): Plugin =>
  ({ name, version: "1", hooks: { toolRun } }) as unknown as Plugin;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A changing tool in a conversation kept in a memory store, and what it did. */
function desk(options: { fails?: boolean; slowMs?: number } = {}) {
  const paid: number[] = [];
  const finished: number[] = [];
  const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, async ({ amount }) => {
    paid.push(amount);
    if (options.slowMs) await sleep(options.slowMs);
    if (options.fails) throw new Error("card declined");
    finished.push(amount);
    return { paid: amount };
  });
  const fn = ai("desk", { description: "Desk.", input: { message: z.string() }, tools: [pay] });
  const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 39 } }] }, (r) => `saw: ${r.messages.at(-1)!.content}`]);
  const store = memoryStore();
  const send = (plugins: Plugin[]) => fn.conversation("sam", { store, lm, plugins }).send({ message: "Pay 39." });
  const toolRecords = async () =>
    (await store.read("sam"))
      .filter((r) => r.kind === "tool")
      .map((r) => {
        const { state, output, error } = r as { state: string; output?: unknown; error?: string };
        return { state, ...(output !== undefined && { output }), ...(error !== undefined && { error }) };
      });
  return { paid, finished, lm, send, toolRecords };
}

describe("toolRun: around a tool's body", () => {
  it("is shown the call, runs around the body, and plugins nest in their order (the first outermost)", async () => {
    const d = desk();
    const order: string[] = [];
    const around = (name: string) =>
      plugin(name, async (call, run) => {
        order.push(`${name} in ${call.path} ${JSON.stringify(call.input)}`);
        const result = await run();
        order.push(`${name} out ${JSON.stringify(result)}`);
        return result;
      });
    expect(await d.send([around("outer"), around("inner")])).toMatch(/^saw: \{"paid":39\}/);
    expect(order).toEqual(['outer in desk/pay {"amount":39}', 'inner in desk/pay {"amount":39}', 'inner out {"paid":39}', 'outer out {"paid":39}']);
    expect(d.paid).toEqual([39]);
    expect(await d.toolRecords()).toEqual([{ state: "started" }, { state: "done", output: { paid: 39 } }]);
  });

  it("a tool's error passed on as run gave it is the tool's error, as without the hook (the model is told)", async () => {
    const d = desk({ fails: true });
    const passOn = plugin("pass-on", (_call, run) => run());
    expect(await d.send([passOn])).toMatch(/^saw: Error: card declined/);
    expect(await d.toolRecords()).toEqual([{ state: "started" }, { state: "done", error: "card declined" }]);
  });

  it("run called a second time is refused (plugin-failed) and never runs the tool again; the call fails", async () => {
    const d = desk();
    let second: unknown;
    const twice = plugin("twice", async (_call, run) => {
      const result = await run();
      second = await run().then(
        (v) => v,
        (e: unknown) => e,
      );
      return result;
    });
    const e = await failure(d.send([twice]));
    expect(e.code).toBe("plugin-failed");
    expect(e.message).toMatch(/twice.*desk\/pay/);
    expect(second).toBeInstanceOf(FunctaiError);
    expect((second as FunctaiError).code).toBe("plugin-failed");
    expect(d.paid).toEqual([39]);
    // it ran: kept as what it returned, never left "started" (unfinished) nor run again
    expect(await d.toolRecords()).toEqual([{ state: "started" }, { state: "done", output: { paid: 39 } }]);
    expect(d.lm.requests).toHaveLength(1);
  });

  it("a hook that returns without calling run fails the call (plugin-failed); the tool did not run, and its record says so", async () => {
    const d = desk();
    const faker = plugin("faker", () => ({ paid: 39 }));
    const e = await failure(d.send([faker]));
    expect(e.code).toBe("plugin-failed");
    expect(e.message).toMatch(/faker.*desk\/pay.*run/);
    expect(d.paid).toEqual([]);
    expect(await d.toolRecords()).toEqual([{ state: "started" }, { state: "rerun" }]);
    expect(d.lm.requests).toHaveLength(1);
  });

  it("a hook that throws before run: plugin-failed, the tool did not run", async () => {
    const d = desk();
    const broken = plugin("broken", () => {
      throw new Error("no collector");
    });
    const e = await failure(d.send([broken]));
    expect(e.code).toBe("plugin-failed");
    expect(e.message).toMatch(/broken.*no collector/);
    expect(d.paid).toEqual([]);
    expect(await d.toolRecords()).toEqual([{ state: "started" }, { state: "rerun" }]);
  });

  it("run called after the hook returned does not run the tool (refused, plugin-failed)", async () => {
    const d = desk();
    let late: Promise<unknown> | undefined;
    const later = plugin("later", (_call, run) => {
      setTimeout(() => {
        late = run().then(
          (v) => v,
          (e: unknown) => e,
        );
      }, 0);
      return undefined;
    });
    const e = await failure(d.send([later]));
    expect(e.code).toBe("plugin-failed");
    for (let i = 0; i < 50 && late === undefined; i++) await sleep(10);
    expect(await late).toMatchObject({ code: "plugin-failed" });
    expect(d.paid).toEqual([]);
  });

  it("a hook that hands back another value fails the call (plugin-failed); the tool ran and is kept as what it returned", async () => {
    const d = desk();
    const swap = plugin("swap", async (_call, run) => {
      await run();
      return { paid: 0 };
    });
    const e = await failure(d.send([swap]));
    expect(e.code).toBe("plugin-failed");
    expect(e.message).toMatch(/swap.*desk\/pay/);
    expect(d.paid).toEqual([39]);
    expect(await d.toolRecords()).toEqual([{ state: "started" }, { state: "done", output: { paid: 39 } }]);
    expect(d.lm.requests).toHaveLength(1);
  });

  it("a hook that swallows the tool's error fails the call (plugin-failed); the tool's error is kept", async () => {
    const d = desk({ fails: true });
    const swallow = plugin("swallow", (_call, run) => run().catch(() => ({ paid: 39 })));
    const e = await failure(d.send([swallow]));
    expect(e.code).toBe("plugin-failed");
    expect(await d.toolRecords()).toEqual([{ state: "started" }, { state: "done", error: "card declined" }]);
  });

  it("a hook that returns before the tool ended: the call waits for the tool, keeps what it returned, then fails (plugin-failed)", async () => {
    const d = desk({ slowMs: 100 });
    const early = plugin("early", (_call, run) => {
      void run();
      return undefined;
    });
    const e = await failure(d.send([early]));
    expect(e.code).toBe("plugin-failed");
    expect(d.finished).toEqual([39]);
    expect(await d.toolRecords()).toEqual([{ state: "started" }, { state: "done", output: { paid: 39 } }]);
  });

  it("an inner plugin that breaks the rules fails the call, named, even when the outer one passes its error on", async () => {
    const d = desk();
    const passOn = plugin("outer", (_call, run) => run());
    const faker = plugin("inner", () => "faked");
    const e = await failure(d.send([passOn, faker]));
    expect(e.code).toBe("plugin-failed");
    expect(e.message).toMatch(/inner/);
    expect(d.paid).toEqual([]);
  });

  it("each hook is shown its own copy of the input: one that changes it changes nothing the tool runs with", async () => {
    const d = desk();
    const meddle = plugin("meddle", (call, run) => {
      (call.input as { amount: number }).amount = 1000;
      return run();
    });
    expect(await d.send([meddle])).toMatch(/^saw: \{"paid":39\}/);
    expect(d.paid).toEqual([39]);
  });
});
