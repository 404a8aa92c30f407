/**
 * The README's TypeScript blocks, as a reader would use them: each written to
 * a module inside the repository (so `functai` resolves to this package, as
 * the examples' does), all type-checked with the repository's settings, and
 * each run in its own process on the prelude's scripted model. Blocks marked
 * `no-run` (they need a real provider's key) are only type-checked.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root, run } from "../pack/fresh-clone.js";
import { blockModule, preludeModule, tsBlocks } from "./blocks.js";

const readme = readFileSync(join(root, "README.md"), "utf8");
const blocks = tsBlocks(readme);
const prelude = blocks.find((b) => b.flags.includes("prelude"));
const others = blocks.filter((b) => b !== prelude);
const dir = join(root, "test/readme", `.run-${process.pid}`);
const file = (index: number): string => `block-${String(index).padStart(2, "0")}.ts`;

// the README's conversation examples keep their store in "desk-chats/", relative to where they run: start from none, leave none behind
const deskChats = join(root, "desk-chats");

beforeAll(() => {
  rmSync(deskChats, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ extends: "../../../tsconfig.json", include: ["*.ts"] }));
  writeFileSync(join(dir, "prelude.ts"), preludeModule(prelude?.code ?? ""));
  for (const b of others) writeFileSync(join(dir, file(b.index)), blockModule(b.code, prelude?.code ?? "", "./prelude.js"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(deskChats, { recursive: true, force: true });
});

describe("README", () => {
  it("has one prelude block, before the blocks that share it", () => {
    expect(blocks.filter((b) => b.flags.includes("prelude"))).toHaveLength(1);
    expect(blocks[0]).toBe(prelude);
    expect(others.length).toBeGreaterThan(8);
  });

  it("type-checks every TypeScript block (strict, exactOptionalPropertyTypes)", () => {
    expect(() => run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", dir, "--pretty", "false"], root)).not.toThrow();
  }, 180_000);

  for (const b of others.filter((x) => !x.flags.includes("no-run"))) {
    it(`runs block ${b.index} (README line ${b.line}) on the scripted model`, () => {
      // No key in reach: a block that asked a real provider would fail here. A block that leaves a socket open never ends: the timeout fails it.
      const env = { ...process.env, OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "", OPENAI_BASE_URL: "" };
      const tsx = join(root, "node_modules/tsx/dist/cli.mjs");
      // run from the repository root, as a user runs the README's commands (a block may name a file of the repository, such as an example)
      expect(() => run(process.execPath, [tsx, "--conditions=functai-source", join(dir, file(b.index))], root, env, 90_000)).not.toThrow();
    }, 120_000);
  }

  it("lists every error code of src/errors.ts", () => {
    const union = readFileSync(join(root, "src/errors.ts"), "utf8").match(/export type ErrorCode =([^;]*);/)![1]!;
    const codes = [...union.matchAll(/"([a-z-]+)"/g)].map((m) => m[1]!);
    expect(codes.length).toBeGreaterThan(30);
    expect(codes.filter((code) => !readme.includes(`\`${code}\``))).toEqual([]);
  });
});
