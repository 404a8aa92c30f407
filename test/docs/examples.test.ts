/**
 * Every public export has a doc comment with an `@example` (STYLE.md habit
 * 9): every name exported from every entry of package.json `exports`
 * (functions, classes, consts, types and interfaces, re-exports followed to
 * their declarations). The check itself is shown to catch a missing one on a
 * small package of its own.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { root, tempDir } from "../pack/fresh-clone.js";
import { exportDocs } from "./exports.js";

describe("doc comments", () => {
  it("every export of every entry point has an @example", () => {
    const docs = exportDocs(root);
    // every entry was read (a wrong path would list nothing and pass)
    const entries = new Set(docs.map((d) => d.source));
    expect([...entries].sort()).toEqual([
      "adapters/indexeddb/index.ts",
      "adapters/mcp/index.ts",
      "adapters/node-fs/index.ts",
      "adapters/otel/index.ts",
      "adapters/postgres/index.ts",
      "adapters/websocket/browser.ts",
      "adapters/websocket/index.ts",
      "src/index.ts",
      "src/machine.ts",
      "src/testing/index.ts",
    ]);
    expect(docs.map((d) => d.name)).toEqual(
      expect.arrayContaining(["ai", "tool", "TurnStream", "TurnActor", "Conversation", "fsStore", "turnMachine", "scripted", "connect", "serve"]),
    );
    expect(docs.filter((d) => !d.example).map((d) => `${d.entry} ${d.name} (${d.file})`)).toEqual([]);
  }, 120_000);

  it("the check finds an export without an @example (a const, a type, an interface, a re-export)", () => {
    const dir = tempDir("docs");
    mkdirSync(join(dir, "src"));
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({ name: "p", type: "module", exports: { ".": { "functai-source": "./src/index.ts" }, "./package.json": "./package.json" } }),
    );
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", strict: true, types: [], noEmit: true },
        include: ["src"],
      }),
    );
    writeFileSync(
      join(dir, "src/index.ts"),
      [
        "/**\n * Documented.\n *\n * @example\n * good();\n */\nexport function good(): void {}",
        "/** No example. */\nexport const bad = 1;",
        "export type Bare = string;",
        "/**\n * A shape.\n *\n * @example\n * const s: Shape = { x: 1 };\n */\nexport interface Shape { x: number }",
        "export { inner } from './inner.js';",
      ].join("\n"),
    );
    writeFileSync(join(dir, "src/inner.ts"), "/** Said, not shown. */\nexport interface inner { y: number }\n");
    const docs = exportDocs(dir);
    expect(docs.map((d) => [d.name, d.example]).sort()).toEqual([
      ["Bare", false],
      ["Shape", true],
      ["bad", false],
      ["good", true],
      ["inner", false],
    ]);
    expect(docs.find((d) => d.name === "inner")?.file).toBe("src/inner.ts");
  }, 60_000);
});
