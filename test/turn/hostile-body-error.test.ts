/**
 * A program whose body throws a value that cannot be asked what it is (a
 * revoked Proxy: `instanceof` and `String()` throw on it) fails its turn,
 * as any error of its body does: the call rejects with what was thrown, a
 * stream shows `failed` and ends. Before, the runner's own `instanceof`
 * threw on it and the turn read `interrupted`, its error the engine's
 * TypeError.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { program } from "../../src/index.js";

const revoked = (): object => {
  const r = Proxy.revocable({}, {});
  r.revoke();
  return r.proxy;
};

describe("a program body throwing a revoked Proxy", () => {
  it("a plain call rejects with it", async () => {
    const thrown = revoked();
    const p = program("p", { description: "d", input: { q: z.string() }, output: z.string() }, async () => {
      throw thrown;
    });
    // (compared inside the handler: a revoked Proxy given to a promise's resolution throws when its `then` is read)
    expect(await p("x").then(() => "answered", (e: unknown) => e === thrown)).toBe(true);
  });

  it("a stream shows failed and ends; its promise rejects with it", async () => {
    const thrown = revoked();
    const p = program("p", { description: "d", input: { q: z.string() }, output: z.string() }, async () => {
      throw thrown;
    });
    const s = p.stream("x");
    const seen: string[] = [];
    for await (const e of s) seen.push(e.type === "state" ? `state:${e.state}` : e.type);
    expect(seen.slice(-2)).toEqual(["failed", "state:failed"]);
    expect(await s.then(() => false, (e: unknown) => e === thrown)).toBe(true);
  });
});
