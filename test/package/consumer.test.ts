import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, copyFileSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");

/** `npm run build` must give a dist/ that plain Node imports from a consumer, subpaths included. */
describe("the built package", () => {
  it("builds to .js + .d.ts and imports from a consumer with plain node", () => {
    const pkg = mkdtempSync(join(tmpdir(), "functai-pkg-"));
    execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(root, "tsconfig.build.json"), "--outDir", join(pkg, "dist")], { cwd: root, stdio: "pipe" });
    expect(existsSync(join(pkg, "dist/src/index.d.ts"))).toBe(true);
    copyFileSync(join(root, "package.json"), join(pkg, "package.json"));
    symlinkSync(join(root, "node_modules"), join(pkg, "node_modules"));
    const consumer = mkdtempSync(join(tmpdir(), "functai-consumer-"));
    mkdirSync(join(consumer, "node_modules"));
    symlinkSync(pkg, join(consumer, "node_modules/functai"));
    symlinkSync(join(root, "node_modules/zod"), join(consumer, "node_modules/zod"));
    writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", type: "module" }));
    writeFileSync(
      join(consumer, "main.js"),
      `import { ai, turnMachine, readConversation } from "functai";
       import { scripted } from "functai/testing";
       import { fsStore } from "functai/node-fs";
       import { z } from "zod";
       const hello = ai("hello", { description: "Greet.", input: { name: z.string() } });
       const out = await hello("Ada", { lm: scripted(["<result>\\nHello, Ada!\\n</result>"]) });
       console.log(JSON.stringify({ out, machine: typeof turnMachine, reader: typeof readConversation, fs: typeof fsStore }));`,
    );
    const printed = execFileSync(process.execPath, ["main.js"], { cwd: consumer, encoding: "utf8" });
    expect(JSON.parse(printed)).toEqual({ out: "Hello, Ada!", machine: "object", reader: "function", fs: "function" });
  }, 120_000);
});
