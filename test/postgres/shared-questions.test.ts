/**
 * The lock session's question after a slow write (adapters/postgres/liveness.ts,
 * sharedQuestions): turns that ask while one question is out share the next
 * one, sent only once the first is answered (an answer proves the session
 * alive only when asked after the turn's write came back); an error, or no
 * answer within PROBE_TIMEOUT_MS, is "lost".
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { PROBE_TIMEOUT_MS } from "../../adapters/postgres/deadline.js";
import { sharedQuestions } from "../../adapters/postgres/liveness.js";
import type { Session } from "../../adapters/postgres/db.js";

/** A session whose every `SELECT 1` waits until the test answers it (ok or failing). */
function session() {
  const asked: { answer(ok: boolean): void }[] = [];
  const s: Session = {
    pid: 1,
    query: (text) => {
      expect(text).toBe("SELECT 1");
      return new Promise((resolve, reject) => asked.push({ answer: (ok) => (ok ? resolve({ rows: [] }) : reject(new Error("reset"))) }));
    },
    end: async () => undefined,
  };
  return { s, asked };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

afterEach(() => void vi.useRealTimers());

describe("the lock session's shared question", () => {
  it("asks once for a lone turn, and the answer is the session's", async () => {
    const { s, asked } = session();
    const ask = sharedQuestions(s);
    const one = ask();
    expect(asked).toHaveLength(1);
    asked[0]!.answer(true);
    expect(await one).toBe(true);
    const two = ask();
    expect(asked).toHaveLength(2);
    asked[1]!.answer(false);
    expect(await two).toBe(false);
  });

  it("ten turns asking while one question is out share one next question, sent only after the first is answered", async () => {
    const { s, asked } = session();
    const ask = sharedQuestions(s);
    const first = ask();
    const later = Array.from({ length: 10 }, () => ask());
    await tick();
    expect(asked).toHaveLength(1); // the next waits for the first's answer
    asked[0]!.answer(true);
    expect(await first).toBe(true);
    await tick();
    expect(asked).toHaveLength(2);
    asked[1]!.answer(false); // lost meanwhile: every turn that asked after the first went out hears it
    expect(await Promise.all(later)).toEqual(Array(10).fill(false));
    expect(asked).toHaveLength(2);
  });

  it("no answer within PROBE_TIMEOUT_MS is lost, and the next turn asks anew", async () => {
    vi.useFakeTimers();
    const { s, asked } = session();
    const ask = sharedQuestions(s);
    const hung = ask();
    await vi.advanceTimersByTimeAsync(PROBE_TIMEOUT_MS - 1);
    let settled = false;
    void hung.then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await hung).toBe(false);
    const again = ask();
    expect(asked).toHaveLength(2);
    asked[1]!.answer(true);
    expect(await again).toBe(true);
  });
});
