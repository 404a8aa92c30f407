/** functai/mcp in a process where @modelcontextprotocol/sdk is missing: a FunctaiError naming the package, not a crash. */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

describe("mcpTools without @modelcontextprotocol/sdk", () => {
  it("fails with package-missing, naming the package", () => {
    const run = spawnSync(process.execPath, ["--import", "tsx", "--import", fixture("no-sdk.mjs"), "--conditions=functai-source", fixture("no-sdk-child.ts")], { encoding: "utf8", timeout: 60_000 });
    expect(run.status, run.stderr).toBe(0);
    const printed = JSON.parse(run.stdout.trim()) as { name: string; code: string; message: string };
    expect(printed).toMatchObject({ name: "FunctaiError", code: "package-missing" });
    expect(printed.message).toContain("functai/mcp needs the package @modelcontextprotocol/sdk (npm install @modelcontextprotocol/sdk)");
  }, 60_000);
});
