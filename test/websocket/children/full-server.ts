/**
 * A served desk in a process of its own, for tests that must see whether
 * something a client does can crash the server's process (an error nobody
 * listens to kills it, which a test in the test runner's own process could
 * not tell from a failure). Run as `full-server.ts <maxConnections>`: prints
 * `url <url>`, then serves until killed.
 */
import { serve } from "../../../adapters/websocket/index.js";
import { memoryStore } from "../../../src/testing/index.js";
import { desk } from "../fixtures.js";

const maxConnections = Number(process.argv[2] ?? "1");
const server = await serve({ store: memoryStore(), programs: [desk().fn], keys: ["k1"], port: 0, maxConnections });
process.stdout.write(`url ${server.url}\n`);
process.once("SIGTERM", () => void server.close().then(() => process.exit(0)));
