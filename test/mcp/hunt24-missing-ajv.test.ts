/**
 * Hunt 24: mcpTools checks schemas with Ajv's dialect classes (`ajv`,
 * `ajv-formats`), optional peer dependencies as the MCP SDK is. They come
 * with the SDK, but a package manager that does not hoist them leaves them
 * where functai cannot load them: that is `package-missing` naming them, as
 * a missing SDK is, not a crash.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

/** Module hooks that make ajv and ajv-formats missing, written as a data: URL (registered by the one below). */
const HOOKS = `export async function resolve(specifier, context, next) {
  if (/^ajv(-formats)?(\\/|$)/.test(specifier)) {
    const error = new Error("Cannot find package '" + specifier + "' imported from " + context.parentURL);
    error.code = "ERR_MODULE_NOT_FOUND";
    throw error;
  }
  return next(specifier, context);
}`;
const REGISTER = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;

describe("mcpTools without ajv where functai can load it", () => {
  it("fails with package-missing, naming ajv and ajv-formats", () => {
    const run = spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        "--import",
        `data:text/javascript,${encodeURIComponent(REGISTER)}`,
        "--conditions=functai-source",
        fixture("no-sdk-child.ts"),
      ],
      { encoding: "utf8", timeout: 60_000 },
    );
    expect(run.status, run.stderr).toBe(0);
    const printed = JSON.parse(run.stdout.trim()) as { name: string; code: string; message: string };
    expect(printed).toMatchObject({ name: "FunctaiError", code: "package-missing" });
    expect(printed.message).toContain("functai/mcp needs the package ajv ajv-formats (npm install ajv ajv-formats)");
  }, 60_000);
});
