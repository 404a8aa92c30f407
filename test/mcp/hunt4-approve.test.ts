/**
 * Hunt: an approval for a changing MCP tool answered from other processes.
 * One host process sends the turn (approve: "changes") and ends waiting;
 * then one approver process, or two at once racing, each with an MCP server
 * of its own over stdio, answer it. The transfer is sent to a server
 * exactly once, on the file store and on PostgreSQL.
 */
import { writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { postgresStore } from "../../adapters/postgres/index.js";
import type { Store } from "../../src/index.js";
import { removeBundles } from "../durable/fixtures/spawn.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "../postgres/server.js";
import { callsIn, endServers, startHost, TRANSFER, world, type World } from "./fixtures/hunt4.js";

afterAll(removeBundles);
const LEASE = { renewMs: 50, ttlMs: 300 };

const places = [
  { name: "file store", skip: false },
  { name: "PostgreSQL", skip: NO_SERVER !== null },
] as const;

function open(place: (typeof places)[number]["name"], w: World) {
  if (place === "file store") return { config: { dir: w.store }, store: fsStore(w.store) as Store & { close?: () => Promise<void> }, drop: async () => undefined };
  const schema = freshSchema();
  const store = postgresStore({ connectionString: SERVER_URL! }, { schema });
  return {
    config: { pg: { url: SERVER_URL!, schema, app: `hunt4-${schema}` } },
    store: store as Store & { close?: () => Promise<void> },
    drop: async () => {
      await store.close();
      await dropSchema(schema);
    },
  };
}

describe.each(places)("an MCP changing call approved from another process ($name)", ({ name, skip }) => {
  for (const approvers of [1, 2]) {
    it.skipIf(skip)(`waits in one process; ${approvers === 1 ? "one approver process" : "two approver processes racing"}: the MCP call is sent exactly once`, async () => {
      const w = await world();
      writeFileSync(w.gate, "open");
      const { config, store, drop } = open(name, w);
      try {
        const sender = startHost(w, { action: "send", approve: true, conversation: "acct", first: TRANSFER, lease: LEASE, ...config });
        expect(await sender.line("waiting")).toEqual({ waiting: ["transfer"], requests: 1 });
        await sender.exited;
        expect(callsIn(w.calls)).toEqual([]);

        const children = Array.from({ length: approvers }, () => startHost(w, { action: "approve", conversation: "acct", first: TRANSFER, lease: LEASE, ...config }));
        const outs = await Promise.all(children.map((c) => c.line((l) => "ok" in l || "error" in l, 30_000)));
        await Promise.all(children.map((c) => c.exited));
        const ok = outs.filter((o) => "ok" in o);
        expect(ok.length, JSON.stringify(outs)).toBeGreaterThanOrEqual(1);
        for (const o of ok) expect(o.ok).toBe("ok: moved 5 from A-1");
        // the other approver is refused, saying the turn was answered or is run elsewhere
        for (const o of outs.filter((x) => "error" in x)) expect(String(o.error), JSON.stringify(o)).toMatch(/^(turn-state|conversation-busy|approval-answered|turn-claimed|lease-lost|store-conflict)$/);
        expect(callsIn(w.calls).filter((c) => c.phase === "begin").map((c) => c.tool)).toEqual(["transfer"]);
        // one reply paid for after the approval, by whoever ran the turn on
        expect(outs.reduce((n, o) => n + Number(o.requests), 0)).toBe(1);
        const tools = ((await store.read("acct")) as unknown as { kind: string; state?: string }[]).filter((r) => r.kind === "tool").map((r) => r.state);
        expect(tools).toEqual(["started", "done"]);
      } finally {
        endServers(w.calls);
        await drop();
      }
    }, 60_000);
  }
});
