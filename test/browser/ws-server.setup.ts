/**
 * Global setup of the browser project (runs in Node): a WebSocket server for
 * `websocket.browser.test.ts`, serving the refund desk with two
 * conversations ("sam", "ana") whose turns wait for the refund's approval.
 * The page gets its address through `inject("functaiWsUrl")`.
 */
import type { TestProject } from "vitest/node";
import { serve } from "../../adapters/websocket/index.js";
import { waitingDesk } from "../websocket/fixtures.js";

declare module "vitest" {
  export interface ProvidedContext {
    functaiWsUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const d = await waitingDesk(["ana", "sam"]);
  const server = await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0 });
  project.provide("functaiWsUrl", server.url);
  return () => server.close();
}
