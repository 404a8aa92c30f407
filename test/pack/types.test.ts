/**
 * The published types as a strict consumer compiles them: the declarations
 * `npm run build` emits, installed as `node_modules/functai`, and a consumer
 * file using `functai`, `functai/testing`, `functai/indexeddb` and the browser
 * `functai/websocket` under `strict` + `exactOptionalPropertyTypes` +
 * `noUncheckedIndexedAccess`, with `types: []` (no `@types/node`) and
 * `lib: ["ES2022", "DOM"]`.
 */
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { root, run, tempDir } from "./fresh-clone.js";

const tsc = join(root, "node_modules/typescript/bin/tsc");

const CONSUMER = `
import { z } from "zod";
import { ai, tool, configure, memoryStore, Waiting, FunctaiError, type TurnEvent, type Approval, type Plugin } from "functai";
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
  return out.ok && first?.turn !== undefined && store !== undefined;
}
`;

/** The d.ts files from the build, installed as a package next to the consumer's dependencies. */
function consumerWithDeclarations(): string {
  const dir = tempDir("types");
  const pkg = join(dir, "node_modules/functai");
  mkdirSync(pkg, { recursive: true });
  run(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json"), "--emitDeclarationOnly", "--outDir", join(pkg, "dist")], root);
  cpSync(join(root, "package.json"), join(pkg, "package.json"));
  // functai's own dependencies and the one peer, as npm would install them; no @types/node.
  for (const dep of ["zod", "xstate", "idb"]) symlinkSync(join(root, "node_modules", dep), join(dir, "node_modules", dep));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  writeFileSync(join(dir, "main.ts"), CONSUMER);
  return dir;
}

const compilerOptions = {
  target: "ES2022",
  lib: ["ES2022", "DOM"],
  module: "ESNext",
  moduleResolution: "Bundler",
  customConditions: ["browser"],
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  types: [],
  noEmit: true,
};

/** tsc's diagnostics for the consumer (empty when it compiles). */
function compile(dir: string, name: string, skipLibCheck: boolean): string[] {
  writeFileSync(join(dir, name), JSON.stringify({ compilerOptions: { ...compilerOptions, skipLibCheck }, files: ["main.ts"] }));
  try {
    run(process.execPath, [tsc, "-p", name, "--pretty", "false"], dir);
    return [];
  } catch (e) {
    return (e as Error).message.split("\n").filter((line) => /error TS\d+/.test(line));
  }
}

describe("the published types", () => {
  it("compile in a strict browser consumer without @types/node (exactOptionalPropertyTypes, types: [])", () => {
    const dir = consumerWithDeclarations();
    expect(compile(dir, "tsconfig.json", true)).toEqual([]);

    // With skipLibCheck off every .d.ts is checked: functai's own are clean.
    const strict = compile(dir, "tsconfig.strict.json", false);
    expect(strict.filter((line) => !line.includes("node_modules/xstate/"))).toEqual([]);
  }, 300_000);
});
