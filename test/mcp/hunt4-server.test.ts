/**
 * Hunt: functai/mcp against a real MCP server process (stdio) that logs
 * every call it runs: effects from annotations (and their override) under
 * approve: "changes", inputs the server's JSON Schema refuses, isError,
 * structured content against text parts, and a server that dies mid-call
 * or answers with a malformed result.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { fsStore } from "../../adapters/node-fs/index.js";
import { ApprovalError, isFunctaiError } from "../../src/index.js";
import { removeBundles } from "../durable/fixtures/spawn.js";
import { began, callsIn, deskModel, endServers, hereDesk, TRANSFER, world, type World } from "./fixtures/hunt4.js";

afterAll(removeBundles);

/** A world whose transfer passes its gate at once; `run` gets the desk over a server of its own, closed after. */
async function withDesk(run: (d: Awaited<ReturnType<typeof hereDesk>>, w: World) => Promise<void>, options?: Parameters<typeof hereDesk>[1]) {
  const w = await world();
  writeFileSync(w.gate, "open");
  const d = await hereDesk(w, options);
  try {
    await run(d, w);
  } finally {
    await d.close();
    endServers(w.calls);
  }
}

const begins = (w: World) => callsIn(w.calls).filter((c) => c.phase === "begin").map((c) => c.tool);

describe("effects from a real server's annotations", () => {
  it("readOnlyHint true reads; readOnlyHint false, no annotations, destructiveHint only change", async () => {
    await withDesk(async ({ client }) => {
      const effects = Object.fromEntries((await mcpTools(client)).map((t) => [t.name, t.toolEffects]));
      expect(effects).toEqual({
        transfer: "changes",
        peek: "reads",
        poke: "changes",
        note: "changes",
        refuse: "reads",
        texts: "reads",
        flaky: "changes",
        flaky_peek: "reads",
        garble: "changes",
        garble_peek: "reads",
        misfit: "changes",
        balk: "changes",
      });
    });
  });

  it('under approve: "changes" a reading tool runs without asking; each changing one is refused (approval-required) before the server is called', async () => {
    await withDesk(async ({ desk }, w) => {
      expect(await desk("What is in A-1?", { lm: deskModel({ name: "peek", input: { account: "A-1" } }), approve: "changes" })).toBe('ok: {"account":"A-1","balance":12}');
      for (const call of [TRANSFER, { name: "poke", input: { account: "A-1" } }, { name: "note", input: { account: "A-1", note: "hi" } }]) {
        const e = await desk("Do it.", { lm: deskModel(call), approve: "changes" }).catch((x: unknown) => x);
        expect(e, call.name).toBeInstanceOf(ApprovalError);
        expect((e as ApprovalError).code).toBe("approval-required");
      }
      expect(begins(w)).toEqual(["peek"]);
    });
  });

  it("an approve function is asked about each changing MCP call with its effects; a refusal is the result the model sees and the server is not called", async () => {
    await withDesk(async ({ desk }, w) => {
      const asked: [string, string][] = [];
      const reply = await desk("Move 5 out of A-1.", {
        lm: deskModel(TRANSFER),
        approve: (a) => (asked.push([a.name, String(a.effects)]), "not today"),
      });
      expect(asked).toEqual([["transfer", "changes"]]);
      expect(reply).toMatch(/The person did not allow this call\. Reason: not today/);
      expect(begins(w)).toEqual([]);
    });
  });

  it("effects given per tool win over the annotations, both ways", async () => {
    await withDesk(
      async ({ desk }, w) => {
        expect(await desk("Note it.", { lm: deskModel({ name: "note", input: { account: "A-1", note: "hi" } }), approve: "changes" })).toBe("ok: noted on A-1: hi");
        const e = await desk("Peek.", { lm: deskModel({ name: "peek", input: { account: "A-1" } }), approve: "changes" }).catch((x: unknown) => x);
        expect(isFunctaiError(e, "approval-required")).toBe(true);
        expect(begins(w)).toEqual(["note"]);
      },
      { effects: { note: "reads", peek: "changes" } },
    );
  });
});

describe("inputs and results", () => {
  it("inputs the server's JSON Schema refuses are refused before the server is called; the model sees what is wrong", async () => {
    await withDesk(async ({ desk }, w) => {
      for (const input of [{ account: "A-1", amount: -5 }, { account: "a1", amount: 5 }, { account: "A-1" }, { account: "A-1", amount: "5" }, { amount: 5 }]) {
        const lm = deskModel({ name: "transfer", input });
        const reply = await desk("Move it.", { lm, approve: () => true });
        expect(reply, JSON.stringify(input)).toMatch(/^failed: Error: invalid input for transfer: .*The tool did not run\.$/s);
        expect(lm.requests[1]!.messages.at(-1)).toMatchObject({ role: "tool", name: "transfer", isError: true });
      }
      expect(begins(w)).toEqual([]);
    });
  });

  it("a result marked isError is a tool error the model sees (tool-failed with toolErrors: raise); the server ran it each time", async () => {
    await withDesk(async ({ desk }, w) => {
      const lm = deskModel({ name: "refuse", input: { account: "A-1" } });
      expect(await desk("Look A-1 up.", { lm })).toBe("failed: Error: the old system has no account A-1");
      expect(lm.requests[1]!.messages.at(-1)).toMatchObject({ role: "tool", isError: true });
      await expect(desk("Look A-1 up.", { lm: deskModel({ name: "refuse", input: { account: "A-1" } }), toolErrors: "raise" })).rejects.toMatchObject({
        code: "tool-failed",
        message: expect.stringContaining("the old system has no account A-1"),
      });
      expect(begins(w)).toEqual(["refuse", "refuse"]);
    });
  });

  it("structured content is what the model sees when given; else the text parts, joined by line breaks", async () => {
    await withDesk(async ({ desk }) => {
      const peek = deskModel({ name: "peek", input: { account: "A-1" } });
      await desk("Peek.", { lm: peek });
      expect(peek.requests[1]!.messages.at(-1)).toMatchObject({ role: "tool", content: '{"account":"A-1","balance":12}' });
      const texts = deskModel({ name: "texts", input: { account: "A-1" } });
      await desk("History.", { lm: texts });
      expect(texts.requests[1]!.messages.at(-1)).toMatchObject({ role: "tool", content: "opened A-1\nclosed" });
    });
  });
});

describe("a server that dies mid-call, or answers with a malformed result", () => {
  it("dying inside a changing call (conversation, file store): turn-unfinished, the model not told, only `started` kept; rerun over a new server sends it once more", async () => {
    const w = await world();
    writeFileSync(w.die, "yes");
    const store = fsStore(join(w.dir, "store"));
    const first = await hereDesk(w);
    const call = { name: "flaky", input: { account: "A-1" } };
    try {
      const lm = deskModel(call);
      const e = await first.desk.conversation("acct", { store, lm }).send("Close A-1.").catch((x: unknown) => x);
      expect(isFunctaiError(e, "turn-unfinished"), String(e)).toBe(true);
      expect((e as Error).message).toMatch(/flaky may have run/);
      expect(lm.requests).toHaveLength(1);
      const tools = ((await store.read("acct")) as unknown as { kind: string; state?: string }[]).filter((r) => r.kind === "tool").map((r) => r.state);
      expect(tools).toEqual(["started"]);
    } finally {
      await first.close();
    }
    const second = await hereDesk(w);
    try {
      const lm = deskModel(call);
      const [turn] = await second.desk.conversation("acct", { store, lm }).turns();
      expect(turn!.state).toBe("interrupted");
      expect(turn!.unfinished.map((t) => t.name)).toEqual(["flaky"]);
      expect(await turn!.resume({ rerun: [1] })).toBe("ok: closed A-1");
      expect(lm.requests).toHaveLength(1);
      expect(began(w.calls, "flaky")).toBe(2);
    } finally {
      await second.close();
      endServers(w.calls);
    }
  });

  it("dying inside a reading call: a tool error the model sees, naming the closed connection; the turn ends done", async () => {
    const w = await world();
    writeFileSync(w.die, "yes");
    const d = await hereDesk(w);
    try {
      const store = fsStore(join(w.dir, "store"));
      const chat = d.desk.conversation("acct", { store, lm: deskModel({ name: "flaky_peek", input: { account: "A-1" } }) });
      expect(await chat.send("Whose is A-1?")).toMatch(/^failed: Error: .*[Cc]onnection closed/);
      expect((await chat.turns())[0]!.state).toBe("done");
      expect(began(w.calls, "flaky_peek")).toBe(1);
    } finally {
      await d.close();
      endServers(w.calls);
    }
  });

  it("after the server died, a changing call on the dead client is never sent: a tool error the model sees, not a call in doubt", async () => {
    const w = await world();
    writeFileSync(w.die, "yes");
    writeFileSync(w.gate, "open");
    const d = await hereDesk(w);
    try {
      await d.desk("Whose is A-1?", { lm: deskModel({ name: "flaky_peek", input: { account: "A-1" } }) });
      const reply = await d.desk("Move 5 out of A-1.", { lm: deskModel(TRANSFER), approve: () => true });
      expect(reply).toMatch(/^failed: Error: .*Not connected/);
      expect(begins(w)).toEqual(["flaky_peek"]);
    } finally {
      await d.close();
      endServers(w.calls);
    }
  });

  // A changing MCP tool whose answer arrives malformed (here `content` is not
  // a list: the SDK rejects it with a plain ZodError) has run on the server:
  // its outcome is as much in doubt as a call whose connection closed. The
  // turn stops for a person (turn-unfinished), the call kept `started` only
  // (never `done` with the ZodError, never shown to the model, which could
  // answer it by calling again), and the message names the server's
  // unreadable answer by what is wrong with it, not the ZodError's JSON dump.
  it("a changing call whose answer is malformed is left for a person (turn-unfinished), never shown to the model as an error to retry", async () => {
    await withDesk(async ({ desk }, w) => {
      const lm = deskModel({ name: "garble", input: { account: "A-1" } });
      const store = fsStore(join(w.dir, "store"));
      const chat = desk.conversation("acct", { store, lm });
      const e = await chat.send("Freeze A-1.").catch((x: unknown) => x);
      expect(began(w.calls, "garble")).toBe(1); // the server did freeze it
      expect(isFunctaiError(e, "turn-unfinished"), String(e)).toBe(true);
      expect((e as Error).message).toMatch(/garble may have run: the MCP server's answer could not be read \(content: .*expected array/);
      expect((e as Error).message).not.toMatch(/"code"|\[\s*\{/); // no ZodError dump
      expect(lm.requests).toHaveLength(1);
      const tools = ((await store.read("acct")) as unknown as { kind: string; state?: string }[]).filter((r) => r.kind === "tool").map((r) => r.state);
      expect(tools).toEqual(["started"]);
      const [turn] = await chat.turns();
      expect(turn!.state).toBe("interrupted");
      expect(turn!.unfinished.map((t) => t.name)).toEqual(["garble"]);
    });
  });

  it("a changing call whose structured content breaks its output schema (the SDK's own check, after the server acted) is left for a person too", async () => {
    await withDesk(async ({ desk }, w) => {
      const lm = deskModel({ name: "misfit", input: { account: "A-1" } });
      const store = fsStore(join(w.dir, "store"));
      const chat = desk.conversation("acct", { store, lm });
      const e = await chat.send("Lock A-1.").catch((x: unknown) => x);
      expect(began(w.calls, "misfit")).toBe(1);
      expect(isFunctaiError(e, "turn-unfinished"), String(e)).toBe(true);
      expect((e as Error).message).toMatch(/misfit may have run: the MCP server's answer could not be read \(.*output schema/);
      expect(lm.requests).toHaveLength(1);
      expect((await chat.turns())[0]!.unfinished.map((t) => t.name)).toEqual(["misfit"]);
    });
  });

  it("a reading call whose answer is malformed is a tool error the model sees, saying the server's answer could not be read (no ZodError dump); the turn ends done", async () => {
    await withDesk(async ({ desk }, w) => {
      const lm = deskModel({ name: "garble_peek", input: { account: "A-1" } });
      const store = fsStore(join(w.dir, "store"));
      const chat = desk.conversation("acct", { store, lm });
      const reply = await chat.send("What are A-1's limits?");
      expect(reply).toMatch(/^failed: Error: the MCP server's answer to garble_peek could not be read: content: .*expected array, received string$/);
      expect(lm.requests[1]!.messages.at(-1)).toMatchObject({ role: "tool", name: "garble_peek", isError: true });
      expect((await chat.turns())[0]!.state).toBe("done");
      expect(began(w.calls, "garble_peek")).toBe(1);
    });
  });

  it("a changing call the server answers with a JSON-RPC error (it did not run; the code the SDK's output-schema check uses too) stays a tool error the model sees", async () => {
    await withDesk(async ({ desk }, w) => {
      const lm = deskModel({ name: "balk", input: { account: "A-1" } });
      const store = fsStore(join(w.dir, "store"));
      const chat = desk.conversation("acct", { store, lm });
      expect(await chat.send("Thaw A-1.")).toBe("failed: Error: MCP error -32602: the account is frozen: nothing was thawed");
      expect((await chat.turns())[0]!.state).toBe("done");
      expect(began(w.calls, "balk")).toBe(0);
    });
  });
});
