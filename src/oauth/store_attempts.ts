/**
 * Counters in a fixed window: failed owner-secret attempts per client, per address and in total,
 * registrations per address and in total, consent forms per address. The totals are the ceiling
 * no address rotation escapes (a caller behind `TRUST_PROXY=on` picks its own address); they live
 * in KV like the rest, so every process sharing the database shares them. A counter's key is built
 * in `store_keys.ts`.
 */

import { atomic, commitWithRetry } from "../kit/commit.ts";
import { getAll } from "../kit/reads.ts";
import { CONSENT_FORMS_MAX, type OAuthSettings } from "./settings.ts";
import { attemptsKey, type AttemptsRecord } from "./store_keys.ts";

/** One counter and its limit per window, with the words its refusal uses. */
export interface Counter {
  key: Deno.KvKey;
  max: number;
  /** Whose attempts it counts, as a refusal says it: "from this address". */
  scope: string;
  /** The setting its limit comes from, named in the refusal; none for a fixed limit. */
  setting?: string;
}

/** Whose failed consent attempts are counted. */
export interface AttemptScopes {
  clientId: string;
  address: string;
}

type Limits = Pick<
  OAuthSettings,
  | "maxFailedAttempts"
  | "maxFailedAttemptsTotal"
  | "maxRegistrations"
  | "maxRegistrationsTotal"
  | "maxConsentFormsTotal"
>;

/** The ceiling on wrong owner secrets from every address together (consent page and console). */
function secretsTotal(settings: Limits): Counter {
  return {
    key: attemptsKey("total", "owner_secret"),
    max: settings.maxFailedAttemptsTotal,
    scope: "from all addresses together",
    setting: "OAUTH_MAX_FAILED_ATTEMPTS_TOTAL",
  };
}

function secretsFromAddress(settings: Limits, address: string): Counter {
  return {
    key: attemptsKey("address", address),
    max: settings.maxFailedAttempts,
    scope: "from this address",
    setting: "OAUTH_MAX_FAILED_ATTEMPTS",
  };
}

/** The counters a wrong owner secret on the consent page adds to: the client's, the address's, the total. */
export function consentCounters(settings: Limits, scopes: AttemptScopes): Counter[] {
  return [
    {
      key: attemptsKey("client", scopes.clientId),
      max: settings.maxFailedAttempts,
      scope: "for this app",
      setting: "OAUTH_MAX_FAILED_ATTEMPTS",
    },
    secretsFromAddress(settings, scopes.address),
    secretsTotal(settings),
  ];
}

/**
 * The counters a wrong owner secret adds to where no app is involved (the owner console): the
 * address's and the total, the same ones the consent page counts, so the two pages share limits.
 */
export function ownerSecretCounters(settings: Limits, address: string): Counter[] {
  return [secretsFromAddress(settings, address), secretsTotal(settings)];
}

/** The counters of registrations: from one address, and from all together. */
export function registrationCounters(settings: Limits, address: string): Counter[] {
  return [
    {
      key: attemptsKey("register", address),
      max: settings.maxRegistrations,
      scope: "from this address",
      setting: "OAUTH_MAX_REGISTRATIONS",
    },
    {
      key: attemptsKey("total", "register"),
      max: settings.maxRegistrationsTotal,
      scope: "from all addresses together",
      setting: "OAUTH_MAX_REGISTRATIONS_TOTAL",
    },
  ];
}

/**
 * The counters of consent forms opened: from one address, and from all together (each form
 * stores a pending request, and opening one needs no credentials).
 */
export function consentFormCounters(settings: Limits, address: string): Counter[] {
  return [
    {
      key: attemptsKey("consent_form", address),
      max: CONSENT_FORMS_MAX,
      scope: "from this address",
    },
    formsTotal(settings, "consent_form"),
  ];
}

/**
 * The counters of metadata documents fetched: for one address, and for all together (each
 * sign-in with a document `client_id` not in the cache makes this server fetch a URL the caller
 * chose).
 */
export function documentFetchCounters(settings: Limits, address: string): Counter[] {
  return [
    {
      key: attemptsKey("document_fetch", address),
      max: CONSENT_FORMS_MAX,
      scope: "from this address",
    },
    formsTotal(settings, "document_fetch"),
  ];
}

function formsTotal(settings: Limits, what: "consent_form" | "document_fetch"): Counter {
  return {
    key: attemptsKey("total", what),
    max: settings.maxConsentFormsTotal,
    scope: "from all addresses together",
    setting: "OAUTH_MAX_CONSENT_FORMS_TOTAL",
  };
}

/** "at most 5 in 15 minutes, OAUTH_MAX_FAILED_ATTEMPTS": the limit a refusal names. */
export function limitText(counter: Counter, windowMs: number): string {
  const setting = counter.setting === undefined ? "" : `, ${counter.setting}`;
  return `at most ${counter.max} ${counter.scope} in ${
    Math.round(windowMs / 60_000)
  } minutes${setting}`;
}

/** The first of `counters` that has reached its limit in its current window, if any. */
export async function exhaustedCounter(
  kv: Deno.Kv,
  counters: Counter[],
  now: number,
): Promise<Counter | undefined> {
  const entries = await getAll<AttemptsRecord>(kv, counters.map((c) => c.key));
  return counters.find((c, i) => {
    const v = entries[i].value;
    return v !== null && v.windowEnds > now && v.count >= c.max;
  });
}

/**
 * Counts one attempt in each of `counters`, in one atomic, unless one has already reached its
 * limit in its window: then nothing is counted and that counter is returned (`undefined` means
 * counted). Counting before the secret is compared, not after, keeps tries sent all at once
 * within the limit.
 */
export async function reserveAttempt(
  kv: Deno.Kv,
  counters: Counter[],
  windowMs: number,
  now: number,
): Promise<Counter | undefined> {
  return await commitWithRetry(async () => {
    const entries = await getAll<AttemptsRecord>(kv, counters.map((c) => c.key));
    const op = atomic(kv);
    for (const [i, entry] of entries.entries()) {
      const live = entry.value !== null && entry.value.windowEnds > now;
      if (live && entry.value!.count >= counters[i].max) return { value: counters[i] };
      const next: AttemptsRecord = live
        ? { count: entry.value!.count + 1, windowEnds: entry.value!.windowEnds }
        : { count: 1, windowEnds: now + windowMs };
      op.check(entry).set(entry.key, next, { expireIn: Math.max(1, next.windowEnds - now) });
    }
    return { op, value: undefined };
  });
}

/** Takes back an attempt `reserveAttempt` counted, when it turned out not to be a failure. */
export async function releaseAttempt(
  kv: Deno.Kv,
  counters: Counter[],
  now: number,
): Promise<void> {
  await commitWithRetry(async () => {
    const entries = await getAll<AttemptsRecord>(kv, counters.map((c) => c.key));
    const op = atomic(kv);
    for (const entry of entries) {
      if (entry.value === null || entry.value.windowEnds <= now) continue;
      const next = { ...entry.value, count: Math.max(0, entry.value.count - 1) };
      op.check(entry).set(entry.key, next, { expireIn: Math.max(1, next.windowEnds - now) });
    }
    return { op, value: undefined };
  });
}
