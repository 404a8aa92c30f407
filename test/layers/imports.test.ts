import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Every .ts file under `dir` (repo-relative). */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** The repo-relative files `file` imports by relative path (static imports, re-exports and import() alike). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const found: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["'](\.{1,2}\/[^"']+)["']/gm)) {
    found.push(relative(ROOT, resolve(ROOT, dirname(file), m[1]!)));
  }
  return found;
}

/** Every repo file `entry` reaches through relative imports (itself included). */
function reach(entry: string): Set<string> {
  const seen = new Set<string>();
  const todo = [entry];
  for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    todo.push(...importsOf(file).map((target) => target.replace(/\.js$/, ".ts")));
  }
  return seen;
}

describe("layers", () => {
  it("no file in src/ imports adapters/ or the platform entries in runtime/ (those reach src only through #runtime)", () => {
    const files = sources("src");
    expect(files.length).toBeGreaterThan(50);
    const crossing = files.flatMap((file) =>
      importsOf(file)
        .filter((target) => target.startsWith("adapters/") || target.startsWith("runtime/") || target.startsWith(".."))
        .map((target) => `${file} -> ${target}`),
    );
    expect(crossing).toEqual([]);
  });

  it("the reader sees imports (it finds runtime/node.ts's own)", () => {
    expect(importsOf("runtime/node.ts")).toContain("runtime/default-store.node.js");
    expect(importsOf("runtime/default-store.node.ts")).toContain("adapters/node-fs/index.js");
  });

  it("the WebSocket browser entry reaches no server file (only client/ and shared/)", () => {
    const reached = [...reach("adapters/websocket/browser.ts")];
    expect(reached).toContain("adapters/websocket/shared/protocol.ts");
    expect(reached.filter((file) => file.startsWith("adapters/websocket/server/"))).toEqual([]);
    expect([...reach("adapters/websocket/index.ts")]).toContain("adapters/websocket/server/serve.ts");
  });
});
