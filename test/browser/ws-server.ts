/**
 * A child process for the browser project's global setup (ws-server.setup.ts):
 * serves the refund desk over WebSocket on loopback, with two conversations
 * ("ana", "sam") whose turns wait for the refund's approval, and again on
 * the path "/functai" only. Prints "bound <ws://…/functai>" and "url <ws://…>"
 * once both listen; closes on SIGTERM.
 */
import { serve } from "../../adapters/websocket/index.js";
import { waitingDesk } from "../websocket/fixtures.js";

const d = await waitingDesk(["ana", "sam"]);
const server = await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0 });
// (one bound to a path: an upgrade to another is refused, 400, which a page's WebSocket tells only as 1006)
const bound = await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0, path: "/functai" });
process.stdout.write(`bound ${bound.url}\nurl ${server.url}\n`);
process.once("SIGTERM", () => void Promise.all([server.close(), bound.close()]).then(() => process.exit(0)));
