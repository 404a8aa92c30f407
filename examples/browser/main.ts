/**
 * The refund desk in the browser: a conversation kept in IndexedDB, its
 * events streaming in, its waiting turns answered and its interrupted turns
 * resumed from this tab or any other of this origin.
 */
import { Waiting, type Store, type Turn, type TurnEvent } from "functai";
import { byTestId, h, json } from "./src/dom.js";
import { makeDesk } from "./src/desk.js";
import { EventsView } from "./src/events-view.js";
import { clearLog, onLogChange, readLog } from "./src/log.js";
import { chooseModel } from "./src/model.js";
import { TurnsView } from "./src/turns-view.js";
import { INTERRUPTED, sentence, WAITING } from "./src/words.js";

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

// ---- the status line: what the store says of the conversation (in every tab, on every wake-up), or
// this tab's last error (until its next action)
const statusLine = byTestId("status");
let problem: string | null = null;
let storeSays = { text: "", kind: "" };
function drawStatus(): void {
  const { text, kind } = problem !== null ? { text: problem, kind: "error" } : storeSays;
  statusLine.textContent = text;
  statusLine.dataset.kind = kind;
}
/** The real model's base URL, when one is used. */
const modelEndpoint = (): string | null => (endpoint.baseURL.value.trim() && endpoint.model.value.trim() ? endpoint.baseURL.value.trim() : null);
/** This tab's error, as a sentence. */
const failed = (e: unknown): string => {
  problem = sentence(e, modelEndpoint(), location.origin);
  drawStatus();
  return problem;
};
const clearProblem = (): void => {
  problem = null;
  drawStatus();
};
/** The turn this tab's events panel last said waits (so it can say when another tab answered it). */
let waitedHere: string | null = null;

/** What the store says of the conversation's turns: a neutral message, never an error. */
function fromStore(turns: readonly Turn[]): void {
  const waited = waitedHere === null ? undefined : turns.find((t) => t.id === waitedHere);
  // only an end is said here: an interrupted turn has not ended (the status line says so; a person may resume it)
  if (waited && waited.state !== "waiting" && waited.state !== "running" && waited.state !== "interrupted") {
    waitedHere = null;
    events.note(waited.state === "done" ? `answered in another tab → ${json(waited.value)}` : `the turn ended in another tab (${waited.state})`, "elsewhere");
  }
  const next = turns.some((t) => t.state === "waiting")
    ? { text: WAITING, kind: "waiting" }
    : turns.some((t) => t.state === "interrupted")
      ? { text: INTERRUPTED, kind: "interrupted" }
      : turns.some((t) => t.state === "running")
        ? { text: "A turn is running.", kind: "running" }
        : { text: "", kind: "" };
  storeSays = next;
  drawStatus();
}

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

/** A turn's stream as it comes: its events shown, then its answer (or that it waits, or why it failed). */
async function follow(s: AsyncIterable<TurnEvent> & PromiseLike<unknown>, answered: (answer: unknown) => string, kind: string, also?: Promise<void>): Promise<void> {
  try {
    for await (const e of s) events.show(e);
    await also; // an answer given in the stream (approve / deny) that was refused says why
    events.note(answered(await s), kind);
  } catch (e) {
    if (e instanceof Waiting) {
      events.note(WAITING, "waiting-note");
      waitedHere = e.turn.id;
    } else events.note(failed(e), "error");
  }
}

/** Goes on with a turn here (approve, deny, resume), its events streaming into this tab's panel. */
async function goOn(turnId: string, label: string, start: (turn: Turn) => { stream: ReturnType<Turn["stream"]>; answer?: Promise<void> }): Promise<void> {
  clearProblem();
  busy.add(turnId);
  void refresh();
  try {
    const turn = await conversation().turn(turnId);
    events.clear();
    waitedHere = null;
    events.note(`${label} here (${tab}): the turn goes on in this tab`, "note");
    const { stream, answer } = start(turn);
    await follow(stream, (result) => `${label} here (${tab}) → ${json(result)}`, "answered", answer);
  } catch (e) {
    events.note(failed(e), "error");
  } finally {
    busy.delete(turnId);
    void refresh();
  }
}

/** Ends a turn without going on. */
async function abandon(turnId: string): Promise<void> {
  clearProblem();
  try {
    await (await conversation().turn(turnId)).abandon();
    events.note(`abandoned here (${tab})`, "note");
  } catch (e) {
    failed(e);
  } finally {
    void refresh();
  }
}

const turnsView = new TurnsView(byTestId("turns"), {
  approve: (turn, id) => void goOn(turn, "approved", (t) => {
    const stream = t.stream();
    return { stream, answer: stream.approve({ id, by: tab }) };
  }),
  deny: (turn, id, reason) => void goOn(turn, "denied", (t) => {
    const stream = t.stream();
    return { stream, answer: stream.deny(reason || undefined, { id, by: tab }) };
  }),
  resume: (turn, answers) => void goOn(turn, "resumed", (t) => ({ stream: t.stream(answers) })),
  abandon: (turn) => void abandon(turn),
  refresh: () => void refresh(),
  explain: (error) => sentence(error, modelEndpoint(), location.origin),
}, busy);

// ---- send: the turn's events stream in
byTestId<HTMLFormElement>("send-form").addEventListener("submit", (event) => {
  event.preventDefault();
  void send();
});

async function send(): Promise<void> {
  clearProblem();
  let chat;
  try {
    chat = conversation(undefined, true);
  } catch (e) {
    return void failed(e);
  }
  events.clear();
  waitedHere = null;
  sendButton.disabled = true;
  try {
    await follow(chat.stream(message.value), (answer) => `answer: ${json(answer)}`, "answer");
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
      await draw().catch((e: unknown) => void failed(e));
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
  const turns = names.includes(id) ? await conversation(id).turns() : [];
  turnsView.render(turns);
  fromStore(turns);
}

async function watch(): Promise<never> {
  const pause = (): Promise<void> => new Promise((r) => setTimeout(r, 500));
  for (;;) {
    await refresh();
    const id = conversationId.value.trim();
    const length = await store.length?.(id).catch(() => 0);
    // an append anywhere wakes us; a lease that lapses appends nothing, hence the timeout. A wait the store
    // refuses at once (a name it does not take, such as an empty box; a store that cannot open) still
    // pauses, or this loop would refresh without a break.
    if (store.wait && length !== undefined) await store.wait(id, length, 500).catch(pause);
    else await pause();
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
