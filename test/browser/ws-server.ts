/**
 * A child process for the browser project's global setup (ws-server.setup.ts):
 * serves the refund desk over WebSocket on loopback, with two conversations
 * ("ana", "sam") whose turns wait for the refund's approval. Prints
 * "url <ws://…>" once it listens; closes on SIGTERM.
 */
import { serve } from "../../adapters/websocket/index.js";
import { waitingDesk } from "../websocket/fixtures.js";

const d = await waitingDesk(["ana", "sam"]);
const server = await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0 });
process.stdout.write(`url ${server.url}\n`);
process.once("SIGTERM", () => void server.close().then(() => process.exit(0)));
