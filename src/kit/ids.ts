/** Ids: monotonic ULIDs for records, ULIDs of past times for imports, random tokens. */

import { base64url } from "./base64url.ts";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/** Last ULID handed out by this process, so ids made in one millisecond still sort in order. */
const lastUlid = { time: -1, random: new Uint8Array(10) };

/** A monotonic ULID: 48 bits of milliseconds then 80 random bits, sortable as text. */
export function ulid(now: number = Date.now()): string {
  if (now <= lastUlid.time) {
    incrementRandom(lastUlid.random);
  } else {
    lastUlid.time = now;
    crypto.getRandomValues(lastUlid.random);
  }
  return encodeTime(lastUlid.time) + encodeRandom(lastUlid.random);
}

/**
 * A ULID of a past time `ms` with fresh random bits, outside the monotonic sequence `ulid()`
 * keeps: it sorts among others by that time (an imported conversation by when it happened).
 */
export function ulidAt(ms: number): string {
  return encodeTime(Math.max(0, Math.floor(ms))) +
    encodeRandom(crypto.getRandomValues(new Uint8Array(10)));
}

/** A ULID's first ten characters: `ms` in Crockford base32. */
function encodeTime(ms: number): string {
  let time = "";
  let t = ms;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return time;
}

function incrementRandom(bytes: Uint8Array): void {
  for (let i = bytes.length - 1; i >= 0; i--) {
    if (bytes[i] < 255) {
      bytes[i]++;
      return;
    }
    bytes[i] = 0;
  }
}

/** The 80 random bits as 16 Crockford characters, five bits each, most significant first. */
function encodeRandom(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let held = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xfff; // at most 12 bits are ever held
    held += 8;
    while (held >= 5) {
      held -= 5;
      out += CROCKFORD[(buffer >> held) & 31];
    }
  }
  return out;
}

/** True when `id` has the shape of a ULID. */
export function isUlid(id: string): boolean {
  return /^[0-9A-HJKMNP-TV-Z]{26}$/.test(id);
}

/** `bytes` random bytes as base64url text without padding. */
export function randomToken(bytes: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}
