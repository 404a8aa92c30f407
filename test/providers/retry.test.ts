import { describe, expect, it } from "vitest";
import { ProviderError, type ProviderErrorCode } from "../../src/errors.js";
import { abortableSleep, backoffMs, MAX_RETRY_AFTER_MS, parseRetryAfter, withRetry } from "../../src/providers/retry.js";

const fail = (code: ProviderErrorCode, retryAfterMs?: number) =>
  new ProviderError(code, code, { provider: "test", retryAfterMs });

/** Records the waits instead of waiting. */
const fakeSleep = () => {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
};

describe("parseRetryAfter", () => {
  it("reads retry-after-ms, retry-after seconds and an HTTP date, from Headers or a record", () => {
    const now = Date.parse("2026-11-29T12:00:00Z");
    expect(parseRetryAfter(new Headers({ "retry-after-ms": "250" }), now)).toBe(250);
    expect(parseRetryAfter(new Headers({ "retry-after": "3" }), now)).toBe(3000);
    expect(parseRetryAfter(new Headers({ "retry-after": "0.5" }), now)).toBe(500);
    expect(parseRetryAfter({ "retry-after": "Sun, 29 Nov 2026 12:00:07 GMT" }, now)).toBe(7000);
    // retry-after-ms is the more precise of the two.
    expect(parseRetryAfter(new Headers({ "retry-after-ms": "120", "retry-after": "9" }), now)).toBe(120);
  });

  it("says nothing when the server said nothing readable", () => {
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter(new Headers())).toBeUndefined();
    expect(parseRetryAfter(new Headers({ "retry-after": "soon" }))).toBeUndefined();
    expect(parseRetryAfter(new Headers({ "retry-after": "-4" }))).toBeUndefined();
  });
});

describe("backoffMs", () => {
  it("doubles from 500 ms up to 8 s, jittered within the upper half", () => {
    expect([0, 1, 2, 3, 4, 5, 9].map((n) => backoffMs(n, () => 1))).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
    expect([0, 1, 4].map((n) => backoffMs(n, () => 0))).toEqual([250, 500, 4000]);
  });
});

describe("withRetry", () => {
  it("retries retryable codes with backoff, then returns the success", async () => {
    const { waits, sleep } = fakeSleep();
    const codes: ProviderErrorCode[] = ["provider-server", "provider-network"];
    const result = await withRetry(
      async (n) => {
        if (n < codes.length) throw fail(codes[n]!);
        return `ok after ${n}`;
      },
      { maxRetries: 2, sleep, random: () => 1 },
    );
    expect(result).toBe("ok after 2");
    expect(waits).toEqual([500, 1000]);
  });

  it("waits what the server asked for when it said", async () => {
    const { waits, sleep } = fakeSleep();
    let calls = 0;
    await withRetry(async () => {
      if (calls++ === 0) throw fail("provider-rate-limit", 1234);
      return "ok";
    }, { maxRetries: 1, sleep });
    expect(waits).toEqual([1234]);
  });

  it("gives the last error once retries run out", async () => {
    const { waits, sleep } = fakeSleep();
    let calls = 0;
    const e = await withRetry(async () => {
      calls++;
      throw fail("provider-overloaded");
    }, { maxRetries: 3, sleep }).catch((x: unknown) => x);
    expect(calls).toBe(4);
    expect(waits).toHaveLength(3);
    expect((e as ProviderError).code).toBe("provider-overloaded");
  });

  it("does not retry bad requests, auth failures, foreign errors, or when canRetry says no", async () => {
    const { waits, sleep } = fakeSleep();
    for (const error of [fail("provider-bad-request"), fail("provider-auth"), new TypeError("bug")]) {
      let calls = 0;
      const e = await withRetry(async () => {
        calls++;
        throw error;
      }, { maxRetries: 3, sleep }).catch((x: unknown) => x);
      expect(e).toBe(error);
      expect(calls).toBe(1);
    }
    let calls = 0;
    await withRetry(async () => {
      calls++;
      throw fail("provider-server");
    }, { maxRetries: 3, sleep, canRetry: () => false }).catch(() => undefined);
    expect(calls).toBe(1);
    expect(waits).toEqual([]);
  });

  it("does not wait past MAX_RETRY_AFTER_MS: the error goes to the caller with its retryAfterMs", async () => {
    const { waits, sleep } = fakeSleep();
    const e = await withRetry(async () => {
      throw fail("provider-rate-limit", MAX_RETRY_AFTER_MS + 1);
    }, { maxRetries: 3, sleep }).catch((x: unknown) => x);
    expect((e as ProviderError).retryAfterMs).toBe(MAX_RETRY_AFTER_MS + 1);
    expect(waits).toEqual([]);
  });

  it("an abort during the backoff wait rejects at once with the signal's reason", async () => {
    const controller = new AbortController();
    const reason = new Error("stop now");
    setTimeout(() => controller.abort(reason), 20);
    const started = Date.now();
    const e = await withRetry(async () => {
      throw fail("provider-server", 10_000);
    }, { maxRetries: 1, signal: controller.signal }).catch((x: unknown) => x);
    expect(e).toBe(reason);
    expect(Date.now() - started).toBeLessThan(9_000); // (the backoff it cut short waits 10 s: generous for a loaded machine)
  });

  it("abortableSleep resolves after its time and rejects at once when already aborted", async () => {
    await expect(abortableSleep(1)).resolves.toBeUndefined();
    await expect(abortableSleep(10_000, AbortSignal.abort(new Error("gone")))).rejects.toThrow("gone");
  });
});
