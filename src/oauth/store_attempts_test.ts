import assert from "node:assert/strict";
import {
  consentCounters,
  consentFormCounters,
  documentFetchCounters,
  exhaustedCounter,
  limitText,
  ownerSecretCounters,
  registrationCounters,
  releaseAttempt,
  reserveAttempt,
} from "./store_attempts.ts";
import { loadOAuthSettings } from "./settings.ts";
import { withKv } from "../../tests/support/kv.ts";

const WINDOW = 15 * 60_000;

function limits(perAddress: number, total = 1000) {
  return loadOAuthSettings(
    new Map([
      ["OAUTH_MAX_FAILED_ATTEMPTS", String(perAddress)],
      ["OAUTH_MAX_FAILED_ATTEMPTS_TOTAL", String(total)],
      ["OAUTH_MAX_REGISTRATIONS", String(perAddress)],
      ["OAUTH_MAX_REGISTRATIONS_TOTAL", String(total)],
      ["OAUTH_MAX_CONSENT_FORMS_TOTAL", String(total)],
    ]),
  );
}

Deno.test("failed attempts count per client and per address, and the window ends", async () => {
  await withKv(async (kv) => {
    const s = limits(3);
    const counters = (clientId: string, address: string) =>
      consentCounters(s, { clientId, address });
    const a = counters("c1", "203.0.113.1");
    for (let i = 0; i < 3; i++) {
      assert.equal(await exhaustedCounter(kv, a, 0), undefined);
      assert.equal(await reserveAttempt(kv, a, WINDOW, i), undefined);
    }
    assert.equal((await exhaustedCounter(kv, a, 10))?.scope, "for this app");
    assert.equal((await exhaustedCounter(kv, counters("c1", "other"), 10))?.scope, "for this app");
    assert.equal(
      (await exhaustedCounter(kv, counters("c2", "203.0.113.1"), 10))?.scope,
      "from this address",
    );
    assert.equal(await exhaustedCounter(kv, counters("c2", "other"), 10), undefined);
    assert.equal(await exhaustedCounter(kv, a, WINDOW), undefined, "a new window starts");
  });
});

Deno.test("reserveAttempt() lets exactly max of many concurrent tries through, and counts only those", async () => {
  await withKv(async (kv) => {
    const a = consentCounters(limits(4), { clientId: "c1", address: "x" });
    const refused = await Promise.all(
      Array.from({ length: 10 }, () => reserveAttempt(kv, a, WINDOW, 0)),
    );
    assert.equal(refused.filter((r) => r === undefined).length, 4);
    assert.notEqual(await exhaustedCounter(kv, a, 1), undefined);
    const five = consentCounters(limits(5), { clientId: "c1", address: "x" });
    assert.equal(await exhaustedCounter(kv, five, 1), undefined);
  });
});

Deno.test("releaseAttempt() gives back a try that was not a failure", async () => {
  await withKv(async (kv) => {
    const a = consentCounters(limits(1), { clientId: "c1", address: "x" });
    assert.equal(await reserveAttempt(kv, a, WINDOW, 0), undefined);
    assert.notEqual(await reserveAttempt(kv, a, WINDOW, 1), undefined);
    await releaseAttempt(kv, a, 2);
    assert.equal(await exhaustedCounter(kv, a, 3), undefined);
    assert.equal(await reserveAttempt(kv, a, WINDOW, 3), undefined);
  });
});

Deno.test("a new address each time still meets the total ceiling (issue 23, case 8)", async () => {
  await withKv(async (kv) => {
    const s = limits(5, 7);
    for (
      const counters of [
        (ip: string) => ownerSecretCounters(s, ip),
        (ip: string) => registrationCounters(s, ip),
        (ip: string) => consentFormCounters(s, ip),
        (ip: string) => documentFetchCounters(s, ip),
      ]
    ) {
      const refused = [];
      for (let i = 0; i < 10; i++) {
        refused.push(await reserveAttempt(kv, counters(`198.51.100.${i}`), WINDOW, i));
      }
      assert.equal(refused.filter((r) => r === undefined).length, 7);
      const full = refused.at(-1)!;
      assert.equal(full.scope, "from all addresses together");
      assert.match(
        limitText(full, WINDOW),
        /at most 7 from all addresses together in 15 minutes, OAUTH_MAX_(FAILED_ATTEMPTS|REGISTRATIONS|CONSENT_FORMS)_TOTAL/,
      );
    }
  });
});
