/**
 * The refund desk in the browser: a conversation kept in IndexedDB, its
 * events streaming in, its waiting turns answered and its interrupted turns
 * resumed from this tab or any other of this origin.
 */
import { Waiting, type Store, type Turn } from "functai";
import { byTestId, explain, h, json } from "./src/dom.js";
import { makeDesk } from "./src/desk.js";
import { EventsView } from "./src/events-view.js";
import { clearLog, onLogChange, readLog } from "./src/log.js";
import { chooseModel } from "./src/model.js";
import { TurnsView } from "./src/turns-view.js";

/** A string store: in a browser, the IndexedDB database of that name (the `browser` condition picks it). */
const STORE = "functai-desk";
/** Short leases, so a turn whose tab closed reads as interrupted within about 2 s. */
const LEASE = { renewMs: 500, ttlMs: 2_000 };
const SLOW_MS = 4_000;

const tab = `tab-${crypto.randomUUID().slice(0, 4)}`;
byTestId("tab-id").textContent = tab;
document.title = `${tab} · refund desk`;

const input = <T extends HTMLElement = HTMLInputElement>(id: string): T => byTestId<T>(id);
const [conversationId, message, ask, slow] = [input("conversation-id"), input<HTMLTextAreaElement>("message"), input("ask-approval"), input("slow-refund")];
const sendButton = byTestId<HTMLButtonElement>("send");
const statusLine = byTestId("status");
const status = (text: string): void => void (statusLine.textContent = text);

// ---- the model: scripted, or the endpoint filled in below (kept in this tab's sessionStorage)
const endpoint = { baseURL: input("lm-base-url"), apiKey: input("lm-api-key"), model: input("lm-model") };
for (const [key, el] of Object.entries(endpoint)) {
  el.value = sessionStorage.getItem(`functai-desk:${key}`) ?? "";
  el.addEventListener("input", () => {
    sessionStorage.setItem(`functai-desk:${key}`, el.value);
    model = chooseModel({ baseURL: endpoint.baseURL.value, apiKey: endpoint.apiKey.value, model: endpoint.model.value });
    byTestId("lm-name").textContent = model.label;
  });
}
let model = chooseModel({ baseURL: endpoint.baseURL.value, apiKey: endpoint.apiKey.value, model: endpoint.model.value });
byTestId("lm-name").textContent = model.label;

// ---- the desk and its conversations
const desk = makeDesk({ tab, slowMs: () => (slow.checked ? SLOW_MS : 0) });

/**
 * The conversation named in the box. Throws `conversation-id` on a bad name.
 * Only a send gives an approval rule (the box): a turn keeps the rule it was
 * sent with, so answering or resuming it here leaves that rule alone.
 */
const conversation = (id = conversationId.value.trim(), sending = false) =>
  desk.conversation(id, { store: STORE, lm: model.lm, lease: LEASE, ...(sending && ask.checked ? { approve: "changes" as const } : {}) });
const store: Store = desk.conversation("sam", { store: STORE }).store; // the same handle every conversation uses

const events = new EventsView(byTestId("events"));
const busy = new Set<string>();

/** Goes on with a turn here (approve, deny, resume, abandon), showing what came of it. */
async function act(turnId: string, label: string, run: (turn: Turn) => Promise<unknown>): Promise<void> {
  busy.add(turnId);
  void refresh();
  try {
    const answer = await run(await conversation().turn(turnId));
    events.note(`${label} here (${tab}) → ${answer === undefined ? "ended" : json(answer)}`, "answered");
  } catch (e) {
    if (e instanceof Waiting) events.note(`${label}: the turn waits again (${e.approvals.map((a) => a.path).join(", ")})`, "waiting-note");
    else {
      status(explain(e));
      events.note(`${label}: ${explain(e)}`, "error");
    }
  } finally {
    busy.delete(turnId);
    void refresh();
  }
}

const turnsView = new TurnsView(byTestId("turns"), {
  approve: (turn, id) => void act(turn, "approved", (t) => t.approve({ id, by: tab })),
  deny: (turn, id, reason) => void act(turn, "denied", (t) => t.deny({ id, by: tab, ...(reason ? { reason } : {}) })),
  resume: (turn, answers) => void act(turn, "resumed", (t) => t.resume(answers)),
  abandon: (turn) => void act(turn, "abandoned", (t) => t.abandon()),
  refresh: () => void refresh(),
}, busy);

// ---- send: the turn's events stream in
byTestId<HTMLFormElement>("send-form").addEventListener("submit", (event) => {
  event.preventDefault();
  void send();
});

async function send(): Promise<void> {
  status("");
  let chat;
  try {
    chat = conversation(undefined, true);
  } catch (e) {
    return status(explain(e));
  }
  events.clear();
  sendButton.disabled = true;
  const s = chat.stream(message.value);
  try {
    for await (const e of s) events.show(e);
    events.note(`answer: ${json(await s)}`, "answer");
  } catch (e) {
    if (e === "waiting") events.note("The turn waits for a person: answer it under Turns, in this tab or another.", "waiting-note");
    else {
      status(explain(e));
      events.note(explain(e), "error");
    }
  } finally {
    sendButton.disabled = false;
    void refresh();
  }
}

// ---- the turns and conversations, refreshed on every append (any tab) and at least every 500 ms
let drawing: Promise<void> | null = null;
let again = false;

function refresh(): Promise<void> {
  if (drawing) {
    again = true;
    return drawing;
  }
  drawing = (async () => {
    do {
      again = false;
      await draw().catch((e: unknown) => status(explain(e)));
    } while (again);
    drawing = null;
  })();
  return drawing;
}

async function draw(): Promise<void> {
  const id = conversationId.value.trim();
  byTestId("current-conversation").textContent = id;
  const names = (await store.list?.()) ?? [];
  byTestId("conversations").replaceChildren(
    ...names.map((name) => h("button", { type: "button", testid: "conversation", "data-id": name, class: name === id ? "current" : "", onclick: () => ((conversationId.value = name), void refresh()) }, name)));
  turnsView.render(names.includes(id) ? await conversation(id).turns() : []);
}

async function watch(): Promise<never> {
  for (;;) {
    await refresh();
    const id = conversationId.value.trim();
    const length = await store.length?.(id).catch(() => 0);
    // an append anywhere wakes us; a lease that lapses appends nothing, hence the timeout
    if (store.wait && length !== undefined) await store.wait(id, length, 500).catch(() => false);
    else await new Promise((r) => setTimeout(r, 500));
  }
}
conversationId.addEventListener("change", () => void refresh());

// ---- what the tools did, as every tab sees it
function drawLog(): void {
  const entries = readLog();
  byTestId("refund-log").replaceChildren(...entries.flatMap((e) =>
    e.kind === "refund" ? [h("li", { testid: "refund-entry", "data-order": e.order_id, "data-tab": e.tab }, `${e.amount.toFixed(2)} to ${e.order_id} · ${e.tab} · ${e.at.slice(11, 19)}`)] : []));
  byTestId("tool-log").replaceChildren(...entries.flatMap((e) =>
    e.kind === "tool" ? [h("li", { testid: "tool-run", "data-name": e.name, "data-phase": e.phase, "data-tab": e.tab }, `${e.name} #${e.invocation} ${e.phase} · ${e.tab} · ${e.at.slice(11, 19)}`)] : []));
}
onLogChange(drawLog);
byTestId("clear-log").addEventListener("click", clearLog);
drawLog();
void watch();
