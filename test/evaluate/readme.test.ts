/** The README's "Evaluate and optimize" block runs as written (plain Node + tsx, `functai` from source) and prints what its comments say. */
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("README: Evaluate and optimize", () => {
  it("runs on the scripted model and prints the numbers in its comments", () => {
    const readme = readFileSync(new URL("README.md", `file://${root}`), "utf8");
    const section = readme.slice(readme.indexOf("## Evaluate and optimize"));
    const code = /```ts\n([\s\S]*?)```/.exec(section)![1]!;
    // inside the package, so `functai` resolves to itself (the functai-source condition: src/)
    const file = `${root}test/evaluate/.readme-block-${process.pid}.mts`;
    writeFileSync(file, code);
    try {
      const out = execFileSync(process.execPath, ["--conditions=functai-source", "--import", "tsx", file], { cwd: root, encoding: "utf8" });
      const printed = out.trim().split("\n");
      const promised = [...code.matchAll(/console\.log\(.*?\);\s*\/\/ (.*)$/gm)].map((m) => m[1]!.split(/[:(]/)[0]!.trim());
      expect(printed).toHaveLength(promised.length);
      printed.forEach((line, i) => expect(line).toBe(promised[i]));
    } finally {
      rmSync(file, { force: true });
    }
  }, 60_000);
});
