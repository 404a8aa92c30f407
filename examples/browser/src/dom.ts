/** A small element builder: `h("button", { testid: "approve", onclick }, "Approve")`. */

type Child = Node | string | number | null | undefined | false;
type Props = Record<string, string | number | boolean | ((event: Event) => void) | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue;
    if (typeof value === "function") el.addEventListener(key.replace(/^on/, ""), value);
    else if (key === "testid") el.dataset.testid = String(value);
    else if (key === "value") (el as HTMLInputElement).value = String(value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) el.append(typeof child === "number" ? String(child) : child);
  return el;
}

/** The element with this `data-testid` (the page's own markup: missing is a bug). */
export function byTestId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.querySelector<T>(`[data-testid="${id}"]`);
  if (!el) throw new Error(`no element [data-testid="${id}"]`);
  return el;
}

export const json = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v));
