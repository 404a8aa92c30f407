/**
 * The package as a user gets it: `npm pack` on a fresh clone (no dist/ yet:
 * `prepack` builds it), the tarball installed into a new project with only
 * `zod`, every entry point imported by plain Node, a call run on the scripted
 * model, and `openai()` without the `openai` package refused by name.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freshClone, installedVersion, run, tempDir } from "./fresh-clone.js";

interface PackInfo {
  filename: string;
  files: { path: string }[];
}

/** What the consumer prints: one JSON line. */
interface Report {
  answer: string;
  requests: number;
  entries: Record<string, string[]>;
  indexeddb: string;
  missing: { functai: boolean; code: string; message: string };
  peers: string[];
}

const CONSUMER = `
import { ai, FunctaiError, openai } from "functai";
import { scripted } from "functai/testing";
import * as nodeFs from "functai/node-fs";
import * as websocket from "functai/websocket";
import * as machine from "functai/machine";
import * as main from "functai";
import * as testing from "functai/testing";
import { z } from "zod";

const lm = scripted(["<result>\\nHello, Ada!\\n</result>"]);
const hello = ai("hello", { description: "Greet the person.", input: { name: z.string() } });
const answer = await hello("Ada", { lm });

// indexeddb is the browser's store: its module loads in Node, its store needs IndexedDB.
let indexeddb;
try {
  const idb = await import("functai/indexeddb");
  indexeddb = typeof idb.indexedDBStore;
} catch (e) {
  indexeddb = "import failed: " + e.message;
}

let missing;
try {
  await openai({ model: "gpt-4.1-mini", apiKey: "sk-test" }).generate({ messages: [{ role: "user", content: "hi" }], tools: [] });
  missing = { functai: false, code: "none", message: "the call went through" };
} catch (e) {
  missing = { functai: e instanceof FunctaiError, code: e.code, message: e.message };
}

const keys = (m) => Object.keys(m).sort();
console.log(JSON.stringify({
  answer, requests: lm.requests.length, indexeddb, missing,
  entries: { main: keys(main), testing: keys(testing), nodeFs: keys(nodeFs), websocket: keys(websocket), machine: keys(machine) },
  peers: ["openai", "@anthropic-ai/sdk"].filter((p) => { try { import.meta.resolve(p); return true; } catch { return false; } }),
}));
`;

describe("the packed package", () => {
  it("packs dist/ from a fresh clone, installs with only zod, imports every entry point, and names a missing provider SDK", () => {
    const clone = freshClone();
    const out = tempDir("tarball");
    // prepack builds: the clone has no dist/ before this.
    const [info] = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", out], clone)) as PackInfo[];
    const packed = info!.files.map((f) => f.path);
    for (const file of ["package.json", "README.md", "LICENSE", "CHANGELOG.md", "dist/src/index.js", "dist/src/index.d.ts", "dist/src/machine.js"]) {
      expect(packed).toContain(file);
    }
    for (const entry of ["src/testing/index.js", "adapters/node-fs/index.js", "adapters/indexeddb/index.js", "adapters/websocket/index.js"]) {
      expect(packed).toContain(`dist/${entry}`);
    }
    expect(packed.filter((f) => f.endsWith(".test.js") || f.startsWith("test/") || f.startsWith("src/"))).toEqual([]);

    const consumer = tempDir("consumer");
    writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    writeFileSync(join(consumer, "main.mjs"), CONSUMER);
    run("npm", ["install", join(out, info!.filename), `zod@${installedVersion("zod")}`, "--no-audit", "--no-fund", "--prefer-offline"], consumer);

    const installed = JSON.parse(readFileSync(join(consumer, "node_modules/functai/package.json"), "utf8")) as { peerDependenciesMeta: object };
    expect(installed.peerDependenciesMeta).toEqual({
      "@anthropic-ai/sdk": { optional: true },
      openai: { optional: true },
      "@modelcontextprotocol/sdk": { optional: true },
      "@opentelemetry/api": { optional: true },
      ajv: { optional: true },
      "ajv-formats": { optional: true },
      pg: { optional: true },
    });

    const report = JSON.parse(run(process.execPath, ["main.mjs"], consumer)) as Report;
    expect(report.answer).toBe("Hello, Ada!");
    expect(report.requests).toBe(1);
    expect(report.peers).toEqual([]); // optional peers are not installed with functai
    expect(report.entries.main).toEqual(expect.arrayContaining(["ai", "tool", "program", "configure", "memoryStore", "FunctaiError", "Waiting", "openai"]));
    expect(report.entries.main).not.toContain("turnMachine");
    expect(report.entries.machine).toEqual(["turnMachine"]);
    expect(report.entries.testing).toContain("scripted");
    expect(report.entries.nodeFs).toContain("fsStore");
    expect(report.entries.websocket).toEqual(expect.arrayContaining(["serve", "connect"]));
    expect(report.indexeddb).toBe("function");
    expect(report.missing.functai).toBe(true);
    expect(report.missing.code).toBe("lm-missing");
    expect(report.missing.message).toContain('"openai"');
    expect(report.missing.message).toContain("npm install openai");
  }, 300_000);
});
