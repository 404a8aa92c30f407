/**
 * A functai server beside the demo: the refund desk (on the scripted model
 * unless a model key is set) and a folder store, served over WebSocket.
 *
 *   node --import tsx --conditions=functai-source examples/node/companion/serve.ts [store] [--port 8787] [--key K] [--host H] [--demo]
 *
 * `--demo` sends one turn that waits for the refund's approval (conversation
 * `sam-<time>`), so a companion has something to answer. Stop with Ctrl-C.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Waiting } from "functai";
import { scripted } from "functai/testing";
import { fsStore } from "functai/node-fs";
import { serve } from "functai/websocket";
import { bold, cyan, deskBrain, dim, isScripted, makeDesk, model, modelLabel, say } from "../shared.js";

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const positional = args.filter((a, i) => !a.startsWith("--") && !["--port", "--key", "--host"].includes(args[i - 1] ?? ""));
// a fresh folder in the system's temp folder unless one is given (nothing written into the repository)
const dir = positional[0] ?? mkdtempSync(join(tmpdir(), "functai-companion-"));
const key = flag("--key") ?? process.env.FUNCTAI_KEY;
const host = flag("--host") ?? "127.0.0.1";
/** Ends the process with one line on stderr: a person reads it, so no stack trace. */
const fail = (line: string): never => {
  process.stderr.write(`${line}\n`);
  process.exit(1);
};
const portText = flag("--port") ?? "8787";
// Number("") is 0 and Number("1e3") is 1000: only digits are a port here
const port = /^\d{1,5}$/.test(portText) && Number(portText) <= 65535 ? Number(portText) : fail(`--port must be a port number (0 to 65535), not ${JSON.stringify(portText)}`);

// a long-running server answers many turns: a scripted model with room for them (the demo's has 16 replies)
// it replies as a real model does: in the reply form, streamed in chunks
const lm = isScripted ? scripted(Array.from({ length: 100_000 }, () => deskBrain), { form: "reply", chunks: 7 }) : model(deskBrain);
const { desk, REFUNDS } = makeDesk();
const served = desk.using({ lm });
const store = fsStore(dir);

// a port in use, or another host without a key (remote-auth): said in one line, with the error's code
const server = await serve({ store, programs: [served], port, host, ...(key ? { keys: [key] } : {}) }).catch((e: unknown) => {
  const err = e as { code?: string; message?: string };
  return fail(`cannot serve: ${err.message ?? String(e)} (${err.code ?? "error"})`);
});
say(`store: ${dir}`);
say(`model: ${modelLabel}`);
say(`${bold("serving")} the refund desk at ${cyan(server.url)}${key ? " (key required)" : dim(" (loopback, no key)")}`);
say(dim(`companion: node --import tsx --conditions=functai-source examples/node/companion/index.ts ${server.url}${key ? " --key <key>" : ""} [--yes]`));

if (args.includes("--demo")) {
  const id = `sam-${Date.now()}`;
  const waiting = await served.conversation(id, { store, approve: "changes" }).send("Order A-1042 never arrived. Refund it, please.").catch((e: unknown) => e);
  if (waiting instanceof Waiting) say(`turn ${waiting.turn.id} of ${id} waits: ${waiting.approvals.map((a) => `${a.name} ${JSON.stringify(a.input)}`).join(", ")}`);
  else say(`the demo turn did not wait: ${String(waiting)}`);
}

let refunds = 0;
const tick = setInterval(() => {
  // refunds run here, in the server, when a companion approves
  for (; refunds < REFUNDS.length; refunds++) say(`refund ran in the server: ${JSON.stringify(REFUNDS[refunds])}`);
}, 100);

const stop = async (): Promise<void> => {
  clearInterval(tick);
  await server.close();
  process.exit(0);
};
process.once("SIGINT", () => void stop());
process.once("SIGTERM", () => void stop());
