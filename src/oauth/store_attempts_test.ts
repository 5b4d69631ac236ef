import assert from "node:assert/strict";
import {
  attemptsExhausted,
  consentCounters,
  releaseAttempt,
  reserveAttempt,
} from "./store_attempts.ts";
import { withKv } from "../../tests/support/kv.ts";

const WINDOW = 15 * 60_000;

Deno.test("failed attempts count per client and per address, and the window ends", async () => {
  await withKv(async (kv) => {
    const a = { clientId: "c1", address: "203.0.113.1" };
    for (let i = 0; i < 3; i++) {
      assert.equal(await attemptsExhausted(kv, consentCounters(a), 3, 0), false);
      assert.equal(await reserveAttempt(kv, consentCounters(a), 3, WINDOW, i), true);
    }
    assert.equal(await attemptsExhausted(kv, consentCounters(a), 3, 10), true);
    assert.equal(
      await attemptsExhausted(kv, consentCounters({ clientId: "c1", address: "other" }), 3, 10),
      true,
    );
    assert.equal(
      await attemptsExhausted(
        kv,
        consentCounters({ clientId: "c2", address: "203.0.113.1" }),
        3,
        10,
      ),
      true,
    );
    assert.equal(
      await attemptsExhausted(kv, consentCounters({ clientId: "c2", address: "other" }), 3, 10),
      false,
    );
    assert.equal(
      await attemptsExhausted(kv, consentCounters(a), 3, WINDOW),
      false,
      "a new window starts",
    );
  });
});

Deno.test("reserveAttempt() lets exactly max of many concurrent tries through, and counts only those", async () => {
  await withKv(async (kv) => {
    const a = { clientId: "c1", address: "x" };
    const granted = await Promise.all(
      Array.from({ length: 10 }, () => reserveAttempt(kv, consentCounters(a), 4, WINDOW, 0)),
    );
    assert.equal(granted.filter(Boolean).length, 4);
    assert.equal(await attemptsExhausted(kv, consentCounters(a), 4, 1), true);
    assert.equal(await attemptsExhausted(kv, consentCounters(a), 5, 1), false);
  });
});

Deno.test("releaseAttempt() gives back a try that was not a failure", async () => {
  await withKv(async (kv) => {
    const a = consentCounters({ clientId: "c1", address: "x" });
    assert.equal(await reserveAttempt(kv, a, 1, WINDOW, 0), true);
    assert.equal(await reserveAttempt(kv, a, 1, WINDOW, 1), false);
    await releaseAttempt(kv, a, 2);
    assert.equal(await attemptsExhausted(kv, a, 1, 3), false);
    assert.equal(await reserveAttempt(kv, a, 1, WINDOW, 3), true);
  });
});
