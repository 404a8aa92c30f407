import { existsSync } from "node:fs";
import { defineConfig } from "vitest/config";
import { playwright } from "@vitest/browser-playwright";
import ReliabilityReporter from "./test/durable/fixtures/reliability-reporter.js";

/** Debian's Chromium; CI installs it (.ci/run). With CI set, a missing browser fails the run instead of skipping. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) {
  if (process.env.CI) throw new Error(`CI is set and there is no Chromium at ${CHROMIUM}: install it (apt-get install -y chromium).`);
  console.warn(`[functai] no Chromium at ${CHROMIUM}: the browser project is skipped (CI never skips it).`);
}

export const chromiumArgs = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

const conditions = ["functai-source"];

export default defineConfig({
  resolve: { conditions: [...conditions, "module", "browser", "development|production"] },
  // no "module" condition for Node: it is not Node's, and packages such as @opentelemetry/api point it at an ESM build that only bundlers can load
  ssr: { resolve: { conditions: [...conditions, "node", "development|production"] } },
  test: {
    // the last one prints the reliability figures the crash, kill and pause tests wrote (test/durable/fixtures/reliability.ts)
    reporters: ["default", ["json", { outputFile: "test-results.json" }], new ReliabilityReporter()],
    projects: [
      {
        extends: true,
        test: {
          name: "node",
          environment: "node",
          include: ["test/**/*.test.ts"],
          exclude: ["test/**/*.browser.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      ...(haveChromium
        ? [
            {
              extends: true as const,
              test: {
                name: "browser",
                include: ["test/**/*.browser.test.ts"],
                // a WebSocket server (in Node) for the companion tests that run in the page
                globalSetup: ["test/browser/ws-server.setup.ts"],
                // found up front: a late discovery makes Vite reload a running test
                deps: { optimizer: { client: { include: ["xstate", "zod", "idb", "openai", "@anthropic-ai/sdk"] } } },
                testTimeout: 60_000,
                browser: {
                  enabled: true,
                  headless: true,
                  instances: [{ browser: "chromium" as const }],
                  provider: playwright({ launchOptions: { executablePath: CHROMIUM, args: chromiumArgs } }),
                },
              },
            },
          ]
        : []),
    ],
  },
});
