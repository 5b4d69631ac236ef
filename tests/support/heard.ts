/** What a listener was told, and a bounded wait for it. */

import assert from "node:assert/strict";

/** The URIs a listener heard, in order. */
export type Heard = string[];

/** Waits (bounded: 5 s) until `heard` is `expected`, and fails if it grew past it. */
export async function heardUntil(heard: Heard, expected: string[], what: string): Promise<void> {
  for (let i = 0; i < 250 && heard.length < expected.length; i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.deepEqual(heard, expected, what);
}
