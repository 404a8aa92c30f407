/**
 * A conversation's `send` and `stream` take a call's options, checked as a
 * plain call checks them (`settings-invalid`) before anything is written,
 * paid or run. Before, options that are not an object (`"fast"`, `5`) were
 * taken as no options, and a `signal` that is not an AbortSignal was a raw
 * TypeError: from `send`, before anything was written; from `stream`, thrown
 * after its turn had started, which then ran on unseen — the model paid, a
 * changing tool run, for a call its caller was told failed.
 */
import { describe, expect, it } from "vitest";
import { memoryStore, } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { payDesk } from "./fixtures/pay-desk.js";

const desk = payDesk;
const payOnce = [{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "paid 5"];
const settle = () => new Promise((r) => setTimeout(r, 100));

const wrong: [string, unknown][] = [
  ["a signal that is a number", { signal: 5 }],
  ["a signal that is a plain object", { signal: {} }],
  ["a signal-like object that says it aborted", { signal: { aborted: true } }],
  ["options that are a string", "fast"],
  ["options that are a number", 5],
];

describe("a conversation call's options, given wrong", () => {
  it.each(wrong)("send with %s: settings-invalid, nothing written or paid", async (_, options) => {
    const { d, paid } = desk();
    const store = memoryStore();
    const lm = scripted(payOnce);
    const thrown = await d
      .conversation("c", { store, lm })
      .send("pay 5", options as never)
      .catch((e: unknown) => e);
    expect(thrown).toMatchObject({ code: "settings-invalid" });
    await settle();
    expect(lm.requests).toHaveLength(0);
    expect(paid).toEqual([]);
    expect(await store.read("c")).toEqual([]);
  });

  it.each(wrong)("stream with %s: settings-invalid at once, and no turn runs behind the caller's back", async (_, options) => {
    const { d, paid } = desk();
    const store = memoryStore();
    const lm = scripted(payOnce);
    let thrown: unknown;
    try {
      const s = d.conversation("c", { store, lm }).stream("pay 5", options as never);
      thrown = await s.then(
        () => "answered",
        (e: unknown) => e,
      );
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toMatchObject({ code: "settings-invalid" });
    await settle();
    expect(lm.requests).toHaveLength(0);
    expect(paid).toEqual([]);
    expect(await store.read("c")).toEqual([]);
  });

  it("an AbortSignal, and null options, are still taken", async () => {
    const { d, paid } = desk();
    const store = memoryStore();
    const chat = d.conversation("c", { store, lm: scripted([...payOnce, "hi"]) });
    expect(await chat.send("pay 5", { signal: new AbortController().signal })).toBe("paid 5");
    expect(await chat.send("hi", null as never)).toBe("hi");
    expect(paid).toEqual([5]);
  });
});
