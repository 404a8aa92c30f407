/**
 * The browser example, built with Vite and driven in a real Chromium: two
 * tabs of one context (one origin: shared IndexedDB, localStorage, Web
 * Locks, BroadcastChannel). (a) a turn waits in tab A and is approved in tab
 * B; (b) tab A closes mid-refund, tab B finds the turn interrupted, says
 * the refund did run, and resumes it: one refund, not two. A waiting turn is
 * a neutral message in every tab (no error styling, checked on the computed
 * colour), the tab that goes on streams the continued events, and a model
 * server that does not allow the page's origin is explained (CORS).
 */
import { existsSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumArgs } from "../../vitest.config.js";
import { mockServer } from "../providers/server.js";
import { buildExample, type BuiltExample } from "./build-example.js";
import { serveStatic, type StaticServer } from "./serve.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) {
  if (process.env.CI) throw new Error(`CI is set and there is no Chromium at ${CHROMIUM}: the browser example must be tested (apt-get install -y chromium).`);
  console.warn(`[functai] no Chromium at ${CHROMIUM}: test/e2e/browser-example.test.ts is skipped (CI never skips it).`);
}

const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/browser-example/", import.meta.url));
const ANSWER = "refunded 39.00 for A-1042";
const WAITING = "Waiting for a person: answer here or in another tab.";
/** Console lines a deliberately refused cross-origin fetch prints (the CORS test); not the page's errors. */
const REFUSED_FETCH = /CORS policy|net::ERR_FAILED/;

/** Polls `ok` every 50 ms for at most `ms`; fails saying what it waited for. */
async function until(what: string, ok: () => Promise<boolean>, ms: number): Promise<number> {
  const start = performance.now();
  while (!(await ok())) {
    if (performance.now() - start > ms) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return performance.now() - start;
}

const count = (page: Page, selector: string): Promise<number> => page.locator(selector).count();
const turnIn = (page: Page, state: string): Locator => page.locator(`[data-testid="turn"][data-state="${state}"]`);
const shot = (page: Page, name: string): Promise<Buffer> => page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });
const events = (page: Page, type: string): Locator => page.locator(`[data-testid="event"][data-type="${type}"]`);

/** The computed text colour of an element, as [r, g, b]. */
async function colour(locator: Locator): Promise<number[]> {
  const css = await locator.evaluate((el) => getComputedStyle(el).color);
  return (/rgba?\((\d+), (\d+), (\d+)/.exec(css) ?? []).slice(1).map(Number);
}
const reddish = ([r = 0, g = 0, b = 0]: number[]): boolean => r > 120 && r > g * 1.6 && r > b * 1.6;

/** A waiting turn reads as a neutral message: the status says so, and nothing on the page is styled as an error. */
async function showsWaitingNeutrally(page: Page): Promise<void> {
  const status = page.getByTestId("status");
  await status.filter({ hasText: WAITING }).waitFor({ timeout: 10_000 });
  expect(await status.getAttribute("data-kind")).toBe("waiting");
  expect(await status.getAttribute("class")).not.toMatch(/error/);
  expect(reddish(await colour(status))).toBe(false);
  expect(await count(page, '.ev-error, .ev-failed, [data-testid="turn-error"], [data-kind="error"]')).toBe(0);
  for (const line of await page.locator(".ev-waiting, .ev-waiting-note").all()) expect(reddish(await colour(line))).toBe(false);
  expect(await page.locator("body").innerText()).not.toMatch(/turn-waiting|turn\.approve\(/);
}

describe.skipIf(!haveChromium)("browser example: two tabs in Chromium", () => {
  let built: BuiltExample;
  let server: StaticServer;
  let browser: Browser;
  const errors: string[] = [];

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    built = await buildExample();
    server = await serveStatic(built.outDir);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: chromiumArgs, timeout: 30_000 });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (built) await rm(built.outDir, { recursive: true, force: true });
  });

  interface Tabs { context: BrowserContext; a: Page; b: Page; tabA: string; tabB: string }

  /** Runs `body` on two fresh tabs; on failure, saves what each open tab showed (`FAILED-<name>-a|b.png`). */
  async function withTabs(name: string, body: (tabs: Tabs) => Promise<void>): Promise<void> {
    const tabs = await twoTabs();
    try {
      await body(tabs);
    } catch (e) {
      for (const [label, page] of [["a", tabs.a], ["b", tabs.b]] as const) if (!page.isClosed()) await shot(page, `FAILED-${name}-${label}`).catch(() => undefined);
      throw e;
    } finally {
      await tabs.context.close();
    }
  }

  /** A fresh context (fresh storage) and its two tabs on the page. */
  async function twoTabs(): Promise<Tabs> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const open = async (): Promise<Page> => {
      const page = await context.newPage();
      page.on("pageerror", (e) => errors.push(`${page.url()}: ${e.message}`));
      page.on("console", (m) => void (m.type() === "error" && !REFUSED_FETCH.test(m.text()) && errors.push(`console: ${m.text()}`)));
      await page.goto(server.url, { timeout: 15_000 });
      await page.getByTestId("tab-id").filter({ hasText: /^tab-/ }).waitFor({ timeout: 10_000 });
      return page;
    };
    const [a, b] = [await open(), await open()];
    const [tabA, tabB] = [await a.getByTestId("tab-id").innerText(), await b.getByTestId("tab-id").innerText()];
    return { context, a, b, tabA, tabB };
  }

  it("the build has no warnings and nothing from node:; #runtime is the browser's", () => {
    expect(built.warnings).toEqual([]);
    expect(built.nodeImports).toEqual([]);
    expect(built.modules).toContain("runtime/browser.ts"); // the `browser` condition picked it
    expect(built.modules).toContain("adapters/indexeddb/store.ts"); // a string store is IndexedDB
    expect(built.modules).not.toContain("runtime/node.ts");
    console.log(`[e2e] vite build of examples/browser: ${Math.round(built.ms)} ms`);
  });

  it("a turn waits in tab A; tab B approves it; both show the answer; the refund ran once", async () => {
    await withTabs("approve", async ({ a, b, tabB }) => {
        await a.getByTestId("send").click();
        await a.locator('[data-testid="event"][data-type="waiting"]').waitFor({ timeout: 10_000 });
        await turnIn(a, "waiting").waitFor({ timeout: 10_000 });
        await events(a, "waiting-note").filter({ hasText: WAITING }).waitFor({ timeout: 10_000 });
        await showsWaitingNeutrally(a);
        await shot(a, "a1-tab-a-waiting");
        await shot(a, "waiting");

        // tab B hears of it (BroadcastChannel / its refresh) and answers it
        const row = turnIn(b, "waiting");
        await row.waitFor({ timeout: 10_000 });
        expect(await row.getByTestId("approval").innerText()).toContain('desk/refund {"order_id":"A-1042","amount":39}');
        expect(await count(b, '[data-testid="refund-entry"]')).toBe(0);
        await showsWaitingNeutrally(b); // tab B's status follows the store too
        await shot(b, "a2-tab-b-before-approving");
        await row.getByTestId("approve").click();

        for (const page of [b, a]) {
          await turnIn(page, "done").getByTestId("turn-answer").filter({ hasText: ANSWER }).waitFor({ timeout: 15_000 });
        }
        await b.locator('[data-testid="event"][data-type="answered"]').filter({ hasText: ANSWER }).waitFor({ timeout: 5_000 });
        // tab B, which went on with the turn, streamed its events: the approval, the refund, the answer's text
        expect(await events(b, "approved").innerText()).toContain(`approved desk/refund by ${tabB}`);
        expect(await events(b, "tool_result").innerText()).toContain(ANSWER);
        expect(await events(b, "text").innerText()).toContain(`was lost by the carrier: ${ANSWER}`);
        expect(await events(b, "text").innerText()).not.toMatch(/<\/?result/);
        await events(b, "done").waitFor({ timeout: 5_000 });
        // tab A's status follows the store: the waiting message is gone; its panel says where it was answered
        await a.getByTestId("status").filter({ hasText: /^$/ }).waitFor({ timeout: 10_000 });
        await events(a, "elsewhere").filter({ hasText: ANSWER }).waitFor({ timeout: 10_000 });
        await shot(a, "a3-tab-a-answered");
        await shot(a, "approved-in-another-tab");
        await shot(b, "a4-tab-b-answered");

        for (const page of [a, b]) {
          expect(await count(page, '[data-testid="refund-entry"]')).toBe(1);
          expect(await count(page, `[data-testid="refund-entry"][data-tab="${tabB}"]`)).toBe(1); // it ran where it was approved
          expect(await count(page, '[data-testid="tool-run"][data-name="find_order"][data-phase="start"]')).toBe(1); // not again after the wait
          expect(await count(page, '[data-testid="tool-run"][data-name="refund"][data-phase="start"]')).toBe(1);
        }
    });
  });

  it("tab A closes mid-refund; tab B finds the turn interrupted, says it ran, resumes: one refund", async () => {
    await withTabs("close-results", async ({ a, b, tabA }) => {
        await a.getByTestId("ask-approval").uncheck();
        await a.getByTestId("slow-refund").check();
        await a.getByTestId("send").click();

        // the refund paid (tab B sees the shared log) and has not returned: close tab A now
        await until("tab B to see the refund paid", async () => (await count(b, '[data-testid="refund-entry"]')) === 1, 10_000);
        expect(await count(b, '[data-testid="tool-run"][data-name="refund"][data-phase="end"]')).toBe(0);
        await shot(a, "b1-tab-a-mid-refund");
        await a.close();
        const closed = performance.now();

        const row = turnIn(b, "interrupted");
        await row.waitFor({ timeout: 10_000 }); // leases here: ttl 2 s
        const noticedMs = performance.now() - closed;
        console.log(`[e2e] tab B saw the turn interrupted ${Math.round(noticedMs)} ms after tab A closed`);
        const unfinished = row.locator('[data-testid="unfinished"][data-name="refund"]');
        expect(await unfinished.getAttribute("data-invocation")).toBe("2");
        const status = b.getByTestId("status");
        await status.filter({ hasText: "A turn stopped midway" }).waitFor({ timeout: 10_000 });
        expect(await status.getAttribute("data-kind")).toBe("interrupted");
        expect(reddish(await colour(status))).toBe(false);
        await shot(b, "b2-tab-b-interrupted");
        await shot(b, "interrupted");

        // "it did run" needs what it returned: empty (or blank) is refused
        const didRun = unfinished.getByTestId("did-run");
        expect(await didRun.isDisabled()).toBe(true);
        await unfinished.getByTestId("result-input").fill("   ");
        expect(await didRun.isDisabled()).toBe(true);
        await unfinished.getByTestId("result-input").fill(ANSWER);
        expect(await didRun.isDisabled()).toBe(false);
        await didRun.click();
        await turnIn(b, "done").getByTestId("turn-answer").filter({ hasText: ANSWER }).waitFor({ timeout: 15_000 });
        // the continued events streamed in this tab: the answer's text and done, not one summary line
        await events(b, "done").waitFor({ timeout: 5_000 });
        expect(await events(b, "text").innerText()).toContain(`was lost by the carrier: ${ANSWER}`);
        expect(await status.innerText()).toBe("");
        await shot(b, "b3-tab-b-resumed");

        expect(await count(b, '[data-testid="refund-entry"]')).toBe(1); // one refund, not two
        expect(await count(b, `[data-testid="refund-entry"][data-tab="${tabA}"]`)).toBe(1);
        expect(await count(b, '[data-testid="tool-run"][data-name="refund"][data-phase="start"]')).toBe(1);
        expect(await count(b, '[data-testid="tool-run"][data-name="refund"][data-phase="end"]')).toBe(0); // it never returned
        expect(await count(b, '[data-testid="tool-run"][data-name="find_order"][data-phase="start"]')).toBe(1); // the recorded lookup was reused
    });
  });

  it("a question streams its answer's text in; tab B denies a refund with a reason, and nothing is paid", async () => {
    await withTabs("deny", async ({ a, b }) => {
        await a.getByTestId("message").fill("Where is my order B-2210?");
        await a.getByTestId("send").click();
        await a.locator('[data-testid="event"][data-type="answer"]').filter({ hasText: "Order B-2210 (toaster) is delivered." }).waitFor({ timeout: 10_000 });
        expect(await a.locator('[data-testid="event"][data-type="text"]').innerText()).toContain("Order B-2210 (toaster) is delivered.");
        expect(await a.locator('[data-testid="event"][data-type="text"]').innerText()).not.toMatch(/<\/?result|result>/);
        expect(await count(a, '[data-testid="tool-run"][data-name="refund"]')).toBe(0);

        await a.getByTestId("message").fill("Order C-3303 never came. My money back, please.");
        await a.getByTestId("send").click();
        const row = turnIn(b, "waiting");
        await row.waitFor({ timeout: 10_000 });
        await row.getByTestId("deny-reason").fill("refunds wait for Monday");
        await row.getByTestId("deny").click();
        for (const page of [a, b]) {
          await turnIn(page, "done").getByTestId("turn-answer").filter({ hasText: "I could not refund order C-3303: a person said no (refunds wait for Monday)." }).waitFor({ timeout: 15_000 });
        }
        await shot(a, "c1-tab-a-denied-in-b");
        expect(await count(a, '[data-testid="refund-entry"]')).toBe(0);
        expect(await count(a, '[data-testid="turn"][data-state="done"]')).toBe(2);
    });
  });

  it("tab A closes mid-refund; tab B says it did not run: it runs again there (two refunds, as asked); a waiting turn is abandoned", async () => {
    await withTabs("rerun-abandon", async ({ a, b, tabA, tabB }) => {
        await a.getByTestId("ask-approval").uncheck();
        await a.getByTestId("slow-refund").check();
        await a.getByTestId("send").click();
        await until("tab B to see the refund paid", async () => (await count(b, '[data-testid="refund-entry"]')) === 1, 10_000);
        await a.close();

        const row = turnIn(b, "interrupted");
        await row.waitFor({ timeout: 10_000 });
        await row.locator('[data-testid="unfinished"][data-name="refund"]').getByTestId("run-again").click();
        await turnIn(b, "done").getByTestId("turn-answer").filter({ hasText: ANSWER }).waitFor({ timeout: 15_000 });
        expect(await count(b, `[data-testid="refund-entry"][data-tab="${tabA}"]`)).toBe(1);
        expect(await count(b, `[data-testid="refund-entry"][data-tab="${tabB}"]`)).toBe(1);

        await b.getByTestId("send").click(); // B asks a person first (its box is ticked)
        const waiting = turnIn(b, "waiting");
        await waiting.waitFor({ timeout: 10_000 });
        await waiting.getByTestId("abandon").click();
        await turnIn(b, "abandoned").waitFor({ timeout: 10_000 });
        await shot(b, "d1-tab-b-rerun-then-abandoned");
        expect(await count(b, '[data-testid="refund-entry"]')).toBe(2);
    });
  });

  it("a model server that does not allow this page's origin is explained in a sentence: CORS, and how to allow it", async () => {
    const model = await mockServer(); // another origin (another port), sending no CORS headers
    try {
      await withTabs("cors", async ({ a }) => {
        await a.getByTestId("lm-settings").locator("summary").click();
        await a.getByTestId("lm-base-url").fill(`${model.url}/v1`);
        await a.getByTestId("lm-model").fill("llama3.1");
        await a.getByTestId("send").click();
        const status = a.getByTestId("status");
        await status.filter({ hasText: "CORS" }).waitFor({ timeout: 30_000 });
        const said = await status.innerText();
        const origin = new URL(server.url).origin;
        expect(said).toContain(`Could not reach the model at ${model.url}/v1.`);
        expect(said).toContain(`OLLAMA_ORIGINS=${origin}`);
        expect(said).toContain(`--allowed-origins '["${origin}"]'`);
        expect(said).not.toMatch(/provider-network|Connection error\.$/);
        expect(await status.getAttribute("data-kind")).toBe("error");
        expect(model.requests.some((r) => r.method === "OPTIONS")).toBe(true); // the browser asked, and was not allowed
        const failed = turnIn(a, "failed").getByTestId("turn-error");
        await failed.waitFor({ timeout: 10_000 });
        expect(await failed.innerText()).toContain("CORS");
        expect(await failed.innerText()).not.toMatch(/^\{/); // a sentence, not JSON
        await shot(a, "e1-cors-explained");
      });
    } finally {
      await model.close();
    }
  });

  // The page waits for the store's next append between refreshes; a conversation name the store refuses (an
  // empty box) makes that wait fail at once, and the page must not then refresh in a tight loop (a busy CPU,
  // IndexedDB read without pause): it still waits its 500 ms between refreshes.
  it("an empty conversation box does not make the page refresh in a tight loop", async () => {
    await withTabs("empty-name", async ({ a }) => {
      await a.evaluate(() => {
        const w = window as unknown as { lists: number };
        w.lists = 0;
        const real = IDBObjectStore.prototype.getAllKeys;
        IDBObjectStore.prototype.getAllKeys = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore["getAllKeys"]>) {
          w.lists++;
          return real.apply(this, args);
        };
      });
      await a.getByTestId("conversation-id").fill("");
      await a.getByTestId("conversation-id").dispatchEvent("change");
      await a.waitForTimeout(300);
      const from = await a.evaluate(() => (window as unknown as { lists: number }).lists);
      await a.waitForTimeout(2_000);
      const lists = (await a.evaluate(() => (window as unknown as { lists: number }).lists)) - from;
      // a refresh every 500 ms is about 4 in 2 s (a few more for the change itself); a tight loop is hundreds
      expect(lists).toBeLessThan(12);
    });
  });

  it("no page threw", () => {
    expect(errors).toEqual([]);
  });
});
