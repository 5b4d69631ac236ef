import assert from "node:assert/strict";
import { attemptsExhausted, consentCounters, recordAttempt } from "./store_attempts.ts";
import { withKv } from "../../tests/support/kv.ts";

const WINDOW = 15 * 60_000;

Deno.test("failed attempts count per client and per address, and the window ends", async () => {
  await withKv(async (kv) => {
    const a = { clientId: "c1", address: "203.0.113.1" };
    for (let i = 0; i < 3; i++) {
      assert.equal(await attemptsExhausted(kv, consentCounters(a), 3, 0), false);
      await recordAttempt(kv, consentCounters(a), WINDOW, i);
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

Deno.test("concurrent failed attempts are all counted", async () => {
  await withKv(async (kv) => {
    const a = { clientId: "c1", address: "x" };
    await Promise.all(
      Array.from({ length: 10 }, () => recordAttempt(kv, consentCounters(a), WINDOW, 0)),
    );
    assert.equal(await attemptsExhausted(kv, consentCounters(a), 10, 1), true);
    assert.equal(await attemptsExhausted(kv, consentCounters(a), 11, 1), false);
  });
});
