/**
 * What the tools did to "the world", kept in localStorage so every tab of
 * this origin sees it at once: each refund paid, and each tool run (start,
 * end). A tab that closes mid-refund leaves a refund and a start without an
 * end: that is how a person (or a test) tells whether it ran.
 */

export type LogEntry =
  | { kind: "refund"; order_id: string; amount: number; tab: string; at: string }
  | { kind: "tool"; name: string; invocation: number; phase: "start" | "end"; tab: string; at: string };

const KEY = "functai-desk:log";
const LOCAL = "functai-desk:log-changed";

/**
 * Whether a stored entry has the shape the page draws: localStorage is the
 * user's (an older version of this page, an edit by hand), and one odd entry
 * must not stop the page from drawing the others.
 */
function isEntry(e: unknown): e is LogEntry {
  if (typeof e !== "object" || e === null) return false;
  const r = e as Record<string, unknown>;
  if (typeof r["tab"] !== "string" || typeof r["at"] !== "string") return false;
  if (r["kind"] === "refund") return typeof r["order_id"] === "string" && typeof r["amount"] === "number" && Number.isFinite(r["amount"]);
  if (r["kind"] === "tool") return typeof r["name"] === "string" && typeof r["invocation"] === "number" && (r["phase"] === "start" || r["phase"] === "end");
  return false;
}

/** The log's entries, those of another shape left out. */
export function readLog(): LogEntry[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(KEY) ?? "[]");
    return Array.isArray(parsed) ? parsed.filter(isEntry) : [];
  } catch {
    return [];
  }
}

/** Appends an entry (read, add, write: enough for a demo; two tabs writing in the same instant could lose one). */
export function log(entry: LogEntry): void {
  localStorage.setItem(KEY, JSON.stringify([...readLog(), entry]));
  window.dispatchEvent(new Event(LOCAL));
}

export function clearLog(): void {
  localStorage.removeItem(KEY);
  window.dispatchEvent(new Event(LOCAL));
}

/** Calls `changed` when this tab or another one writes the log. */
export function onLogChange(changed: () => void): void {
  window.addEventListener(LOCAL, changed);
  window.addEventListener("storage", (e) => {
    if (e.key === KEY || e.key === null) changed();
  });
}
