/** Random bytes drawn 4 KiB at a time (a call into the random source costs more than 16 bytes of it). */
const pool = new Uint8Array(4096);
let used = pool.length;
function randomInto(bytes: Uint8Array): void {
  if (used + bytes.length > pool.length) {
    crypto.getRandomValues(pool);
    used = 0;
  }
  bytes.set(pool.subarray(used, used + bytes.length));
  used += bytes.length;
}

/** Each byte's two hex digits. */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

/** The millisecond of the last id made here, and the counter its ids carry (RFC 9562, 6.2, method 1). */
let lastMs = -1;
let counter = 0;

/**
 * A time-ordered id (UUID version 7): turns sort by when they were sent.
 * Ids made here within one millisecond carry a counter in the 12 bits after
 * the version (started at a random value below 2,048), so they sort in the
 * order they were made: at least 2,048 in a millisecond, after which the
 * counter starts again at random. The other 62 bits are random.
 */
export function newTurnId(at = Date.now()): string {
  // the millisecond (a clock may give fractions of one: performance.now(), a fakeClock advanced by 0.5): each
  // fraction taken for a millisecond of its own started the counter again at random, out of the order made
  const now = Math.floor(at);
  const bytes = new Uint8Array(16);
  randomInto(bytes);
  if (now === lastMs && counter < 0xfff) counter += 1;
  else {
    lastMs = now;
    counter = ((bytes[6]! & 0x07) << 8) | bytes[7]!;
  }
  let t = now;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = t % 256;
    t = Math.floor(t / 256);
  }
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  let id = "";
  for (let i = 0; i < 16; i++) id += (i === 4 || i === 6 || i === 8 || i === 10 ? "-" : "") + HEX[bytes[i]!];
  return id;
}

/** Who holds a lease: this process (or tab) and a random part. */
export const newHolder = (): string => `h:${Math.random().toString(36).slice(2, 10)}:${Date.now().toString(36)}`;
