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

/** A time-ordered id (UUID version 7): turns sort by when they were sent. */
export function newTurnId(now = Date.now()): string {
  const bytes = new Uint8Array(16);
  randomInto(bytes);
  let t = now;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = t % 256;
    t = Math.floor(t / 256);
  }
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Who holds a lease: this process (or tab) and a random part. */
export const newHolder = (): string => `h:${Math.random().toString(36).slice(2, 10)}:${Date.now().toString(36)}`;
