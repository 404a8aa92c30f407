/**
 * The browser example, on the repo's sources: `functai` and its subpaths
 * resolve to `src/` and `adapters/` (the `functai-source` condition), and
 * `#runtime` picks `runtime/browser.ts` (the `browser` condition), so a
 * string store is an IndexedDB database and nothing from `node:` is bundled.
 *
 *   npx vite examples/browser          (dev server)
 *   npx vite build examples/browser    (to examples/browser/dist)
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const at = (path: string): string => fileURLToPath(new URL(`../../${path}`, import.meta.url));

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  resolve: {
    conditions: ["functai-source", "module", "browser", "development|production"],
    // Self-reference by package name, spelled out (what `exports` says under functai-source).
    alias: [
      { find: /^functai$/, replacement: at("src/index.ts") },
      { find: /^functai\/testing$/, replacement: at("src/testing/index.ts") },
      { find: /^functai\/indexeddb$/, replacement: at("adapters/indexeddb/index.ts") },
    ],
  },
  server: { fs: { allow: [repo] } },
  build: { target: "es2022", emptyOutDir: true, chunkSizeWarningLimit: 1024 },
});
