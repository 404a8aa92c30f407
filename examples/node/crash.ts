/**
 * The child of "When the process dies": it asks the assistant to send an
 * email, in a conversation with a short lease, and dies (SIGKILL) right after
 * the email goes out, before the tool returns.
 *
 *   node --import tsx --conditions=functai-source examples/node/crash.ts <store> <sent-file>
 */
import { dim, EMAIL_REQUEST, emailBrain, makeAssistant, model, recordEmail, say } from "./shared.js";

const [store, sent] = process.argv.slice(2);
if (!store || !sent) throw new Error("usage: crash.ts <store> <sent-file>");

const tag = dim(`  [process ${process.pid}]`);
const assistant = makeAssistant((to, text) => {
  recordEmail(sent, to, text);
  say(`${tag} send_email: the email to ${to} went out; the power goes out now (SIGKILL)`);
  process.kill(process.pid, "SIGKILL"); // right after sending, before the tool returns
  return "sent";
});

say(`${tag} sending: ${JSON.stringify(EMAIL_REQUEST)}`);
const reply = await assistant
  .conversation("crash", { store, lm: model(emailBrain), lease: { renewMs: 100, ttlMs: 500 } })
  .send(EMAIL_REQUEST);
// only reached when the model did not call send_email
say(`${tag} the model answered without sending anything: ${String(reply)}`);
