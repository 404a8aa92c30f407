/**
 * Builds examples/browser with Vite's JS API into a temp folder, keeping
 * every warning, and checks that nothing from `node:` reached the bundle.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, createLogger, type Rolldown } from "vite";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const ROOT = join(REPO, "examples/browser");

export interface BuiltExample {
  outDir: string;
  warnings: string[];
  /**
   * What of Node reached the bundle: imports of Node builtins, Vite's
   * browser-external stand-ins for them, and the Node-only files of the repo.
   */
  nodeImports: string[];
  /** Every source module bundled (repo-relative for the repo's own). */
  modules: string[];
  ms: number;
}

const BUILTINS = /^(node:|fs$|path$|os$|crypto$|async_hooks$|child_process$|worker_threads$|net$|http$)/;
const NODE_ONLY = /__vite-browser-external|(^|\/)runtime\/node\.ts|default-store\.node\.ts|adapters\/node-fs\//;

export async function buildExample(): Promise<BuiltExample> {
  const started = performance.now();
  const outDir = await mkdtemp(join(tmpdir(), "functai-browser-example-"));
  const warnings: string[] = [];
  const logger = createLogger("warn", { allowClearScreen: false });
  const keep = (msg: string): void => void warnings.push(msg);
  logger.warn = keep;
  logger.warnOnce = keep;
  logger.error = keep;
  const output = await build({
    root: ROOT,
    configFile: join(ROOT, "vite.config.ts"),
    logLevel: "warn",
    customLogger: logger,
    build: { outDir, emptyOutDir: true },
  });
  const chunks = ([output].flat() as Rolldown.RolldownOutput[]).flatMap((o) => o.output).filter((c): c is Rolldown.OutputChunk => c.type === "chunk");
  const nodeImports: string[] = [];
  const modules: string[] = [];
  for (const chunk of chunks) {
    for (const spec of [...chunk.imports, ...chunk.dynamicImports]) if (BUILTINS.test(spec)) nodeImports.push(`${chunk.fileName} imports ${spec}`);
    for (const id of chunk.moduleIds) {
      modules.push(id.startsWith(REPO) ? id.slice(REPO.length) : id);
      if (NODE_ONLY.test(id) || BUILTINS.test(id)) nodeImports.push(`${chunk.fileName} bundles ${id}`);
    }
  }
  return { outDir, warnings, nodeImports, modules, ms: performance.now() - started };
}
