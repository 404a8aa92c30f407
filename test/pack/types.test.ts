/**
 * The published types as a strict consumer compiles them: the declarations
 * `npm run build` emits, installed as `node_modules/functai`, and a consumer
 * file using `functai`, `functai/testing`, `functai/indexeddb` and the browser
 * `functai/websocket` under `strict` + `exactOptionalPropertyTypes` +
 * `noUncheckedIndexedAccess` and `skipLibCheck: false`, with `types: []` (no
 * `@types/node`) and `lib: ["ES2022", "DOM"]`; another file names every export
 * of those entries. The Node entries (`functai/node-fs`, `functai/websocket`,
 * `functai/postgres`, `functai/mcp`, `functai/otel`) compile the same way with
 * `@types/node`. Only `functai/machine` loads xstate's types.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { exportDocs } from "../docs/exports.js";
import { root, run, tempDir } from "./fresh-clone.js";

const tsc = join(root, "node_modules/typescript/bin/tsc");

const CONSUMER = `
import { z } from "zod";
import { ai, tool, configure, memoryStore, Waiting, FunctaiError, type TurnEvent, type Approval, type Plugin, type TurnActor, type TurnSnapshot } from "functai";
import { scripted } from "functai/testing";
import { indexedDBStore, type IndexedDBStoreOptions } from "functai/indexeddb";
import { connect, type ConnectOptions } from "functai/websocket";

const lookup = tool("lookup", { description: "Look.", input: { id: z.string() }, effects: "reads" }, ({ id }) => ({ id }));
const answer = ai("answer", { description: "Answer.", input: { question: z.string() }, output: z.object({ ok: z.boolean() }), tools: [lookup] });
const plugin = { name: "p", version: "1", hooks: { toolCall: (call) => (call.name === "x" ? { block: "no" } : undefined) } } satisfies Plugin;
configure({ lm: scripted(['<result>\\n{"ok": true}\\n</result>']), plugins: [plugin] });

export async function main(): Promise<boolean> {
  const out: { ok: boolean } = await answer("Is it?");
  const s = answer.using({ approve: (call: Approval) => call.name !== "refund" }).stream({ question: "Again?" });
  for await (const e of s) {
    const event: TurnEvent = e;
    if (event.type === "text") console.log(event.delta);
  }
  const chat = answer.conversation("c1", { store: memoryStore() });
  try {
    await chat.send("Hello?");
  } catch (e) {
    if (!(e instanceof Waiting) && !(e instanceof FunctaiError)) throw e;
  }
  const options: IndexedDBStoreOptions = { locks: null };
  const store = indexedDBStore("db", options);
  const connectOptions: ConnectOptions = {};
  const app = await connect("ws://127.0.0.1:1", connectOptions);
  const [first] = await app.waiting();
  // the turn's actor, typed by functai (no xstate types in the main entry)
  const again = answer.stream({ question: "Once more?" });
  const actor: TurnActor = again.actor;
  const snapshot: TurnSnapshot = actor.getSnapshot();
  const sub = actor.subscribe((s) => console.log(s.value, s.context.pending.length));
  actor.on("*", (e) => console.log(e.seq, e.type));
  if (snapshot.value === "awaitingApproval") actor.send({ type: "APPROVE", by: "ada" });
  const kept: string = JSON.stringify(actor.getPersistedSnapshot());
  sub.unsubscribe();
  return out.ok && first?.turn !== undefined && store !== undefined && kept.length > 0;
}
`;

/** The package's declarations (`tsc -p tsconfig.build.json --emitDeclarationOnly`), built once for every consumer. */
function declarations(): string {
  const out = join(tempDir("dts"), "dist");
  run(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json"), "--emitDeclarationOnly", "--outDir", out], root);
  return out;
}

/** A consumer project with the declarations installed as `node_modules/functai` and `deps` linked from the repository's node_modules. */
function consumer(dist: string, deps: string[], files: Record<string, string>): string {
  const dir = tempDir("types");
  const pkg = join(dir, "node_modules/functai");
  mkdirSync(pkg, { recursive: true });
  cpSync(dist, join(pkg, "dist"), { recursive: true });
  cpSync(join(root, "package.json"), join(pkg, "package.json"));
  for (const dep of deps) {
    mkdirSync(dirname(join(dir, "node_modules", dep)), { recursive: true });
    symlinkSync(join(root, "node_modules", dep), join(dir, "node_modules", dep));
  }
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** A module naming every export of the given entry sources (`export type { x as e1_x } from "functai/…"`): each must resolve. */
function everyName(sources: string[]): string {
  const docs = exportDocs(root).filter((d) => sources.includes(d.source));
  expect(docs.length).toBeGreaterThan(sources.length); // (a wrong source list would name nothing)
  return docs.map((d, i) => `export type { ${d.name} as e${i}_${d.name} } from "functai${d.entry.slice(1)}";`).join("\n");
}

const strictOptions = {
  target: "ES2022",
  module: "ESNext",
  moduleResolution: "Bundler",
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  noEmit: true,
};

/** tsc's diagnostics for the consumer's `files` (empty when it compiles), and the files it loaded. */
function compile(dir: string, options: Record<string, unknown>, files: string[]): { errors: string[]; loaded: string[] } {
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { ...strictOptions, ...options }, files }));
  try {
    const listed = run(process.execPath, [tsc, "-p", "tsconfig.json", "--pretty", "false", "--listFiles"], dir);
    return { errors: [], loaded: listed.split("\n").filter((l) => l.trim() !== "") };
  } catch (e) {
    return { errors: (e as Error).message.split("\n").filter((line) => /error TS\d+/.test(line)), loaded: [] };
  }
}

const BROWSER_ENTRIES = ["src/index.ts", "src/testing/index.ts", "adapters/indexeddb/index.ts", "adapters/websocket/browser.ts"];
const NODE_ENTRIES = [
  "adapters/node-fs/index.ts",
  "adapters/websocket/index.ts",
  "adapters/postgres/index.ts",
  "adapters/mcp/index.ts",
  "adapters/otel/index.ts",
];

describe("the published types", () => {
  const dist = declarations();

  it("compile in a strict browser consumer without @types/node, skipLibCheck off, and load no xstate types", () => {
    // functai's dependencies as npm would install them (xstate included: its types must not be loaded); no @types/node.
    const dir = consumer(dist, ["zod", "xstate", "idb"], { "main.ts": CONSUMER, "names.ts": everyName(BROWSER_ENTRIES) });
    expect(existsSync(join(dir, "node_modules/@types"))).toBe(false);
    const browser = { lib: ["ES2022", "DOM"], customConditions: ["browser"], types: [] };
    expect(compile(dir, { ...browser, skipLibCheck: true }, ["main.ts", "names.ts"]).errors).toEqual([]);
    const strict = compile(dir, { ...browser, skipLibCheck: false }, ["main.ts", "names.ts"]);
    expect(strict.errors).toEqual([]);
    expect(strict.loaded.filter((f) => f.includes("/xstate/") || f.includes("@types/node"))).toEqual([]);
    // the browser websocket entry was the one compiled
    expect(strict.loaded.some((f) => f.endsWith("functai/dist/adapters/websocket/browser.d.ts"))).toBe(true);
    expect(strict.loaded.some((f) => f.endsWith("functai/dist/adapters/websocket/server.d.ts"))).toBe(false);
  }, 300_000);

  it("compile for Node (node-fs, websocket, postgres, mcp, otel) with @types/node and skipLibCheck off", () => {
    const peers = [
      "pg",
      "@types/pg",
      "pg-protocol",
      "pg-types",
      "@modelcontextprotocol/sdk",
      "@opentelemetry/api",
      "ws",
      "@types/ws",
      "@types/node",
      "undici-types",
    ];
    const dir = consumer(dist, ["zod", "xstate", "idb", ...peers.filter((p) => existsSync(join(root, "node_modules", p)))], {
      "node.ts": everyName(NODE_ENTRIES),
    });
    const { errors } = compile(dir, { lib: ["ES2022"], types: ["node"], skipLibCheck: false }, ["node.ts"]);
    // The MCP SDK's own declarations name DOM's `HeadersInit` (shared/transport.d.ts), which a Node project
    // without lib "DOM" lacks: that error is the SDK's, not functai's. Every other file must be clean.
    expect(errors.filter((line) => !line.includes("node_modules/@modelcontextprotocol/sdk/"))).toEqual([]);
  }, 300_000);

  it("keep xstate's types to functai/machine", () => {
    const text = (file: string): string => readFileSync(join(dist, file), "utf8");
    expect(text("src/machine.d.ts")).toContain("turnMachine");
    expect(text("src/turn/stream.d.ts")).not.toMatch(/from "xstate"/);
  });
});
