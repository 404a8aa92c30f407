/**
 * Durable before paying: a child process is killed (SIGKILL) inside its
 * second model call, after a reading tool. The first reply had arrived, so
 * it is on disk: resuming asks the model only for the second reply.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { scripted } from "../../src/testing/index.js";
import { replyCrashDesk } from "./fixtures/reply-crash.js";
import { bundled, fixture, removeBundles, runChild } from "./fixtures/spawn.js";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
afterAll(removeBundles);

describe("a reply that arrived is never paid again", () => {
  it("a child killed in its second model call: the resume asks the model once, the first reply comes from the journal", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-reply-crash-"));
    const end = await runChild(await bundled(fixture("reply-crash-child.ts")), [dir, "orders"]);
    expect(end.signal, end.stderr).toBe("SIGKILL");

    const store = fsStore(dir, { lockStaleMs: 200 });
    const kinds = (await store.read("orders")).map((r) => (r as { kind: string }).kind);
    expect(kinds.filter((k) => k === "reply")).toHaveLength(1); // the first reply, kept before the second call was paid
    expect(kinds.filter((k) => k === "tool")).toHaveLength(1); // the reading tool's output too

    const lm = scripted(["A-1 is at the depot."]);
    const chat = replyCrashDesk().conversation("orders", { store, lm, lease: { renewMs: 50, ttlMs: 200 } });
    let turn = (await chat.turns()).at(-1)!;
    for (let i = 0; i < 50 && turn.state !== "interrupted"; i++) await sleep(50), (turn = (await chat.turns()).at(-1)!);
    expect(turn.state).toBe("interrupted");
    expect(await turn.resume()).toBe("A-1 is at the depot.");
    expect(lm.requests).toHaveLength(1);
    // the one request is the second step's: it holds the first reply's tool call and the tool's output
    expect(JSON.stringify(lm.requests[0]!.messages)).toContain("A-1 is at the depot");
    expect((await store.read("orders")).filter((r) => (r as { kind: string }).kind === "reply")).toHaveLength(2);
  });
});
