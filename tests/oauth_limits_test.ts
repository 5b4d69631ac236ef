/** The consent page's limit on wrong owner secrets, under concurrency and behind a proxy. */

import assert from "node:assert/strict";
import { attemptsKey, type AttemptsRecord } from "../src/oauth/store_keys.ts";
import { CONSENT_FORMS_MAX } from "../src/oauth/settings.ts";
import { startServer } from "./support/harness.ts";
import {
  authorizationUrl,
  oauthWorld,
  openConsent,
  OWNER_SECRET,
  registerClient,
  signedIn,
} from "./support/oauth4webapi.ts";

Deno.test("OAuth consent: concurrent wrong secrets are never compared beyond OAUTH_MAX_FAILED_ATTEMPTS", async () => {
  const world = await oauthWorld({ OAUTH_MAX_FAILED_ATTEMPTS: "3" });
  try {
    const reg = await registerClient(world.as, { name: "Parallel Guesser" });
    const request = await authorizationUrl(world.as, reg.client);
    const form = await openConsent(request.url);
    // One form, submitted many times at once: every try reads the counter before any is counted.
    const answers = await Promise.all(
      Array.from({ length: 24 }, async (_, i) => {
        const res = await fetch(new URL("/authorize", request.url), {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded", cookie: form.cookie },
          body: new URLSearchParams({ csrf: form.csrf, secret: `guess-${i}`, decision: "approve" }),
        });
        await res.body?.cancel();
        return res.status;
      }),
    );
    assert.ok(answers.every((s) => s === 403 || s === 429), answers.join(","));
    const counted = await world.server.kv.get<AttemptsRecord>(
      attemptsKey("client", reg.client.client_id),
    );
    assert.ok(
      counted.value !== null && counted.value.count <= 3,
      `${counted.value?.count} secrets were compared; at most 3 may be`,
    );
  } finally {
    await world.close();
  }
});

Deno.test("OAuth consent: right secrets are not counted as failed tries, however many apps one address approves", async () => {
  const world = await oauthWorld({ OAUTH_MAX_FAILED_ATTEMPTS: "2" });
  try {
    for (let round = 0; round < 3; round++) {
      const reg = await registerClient(world.as, { name: `App ${round}` });
      const request = await authorizationUrl(world.as, reg.client);
      const form = await openConsent(request.url);
      const res = await fetch(new URL("/authorize", request.url), {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie: form.cookie },
        body: new URLSearchParams({ csrf: form.csrf, secret: OWNER_SECRET, decision: "approve" }),
      });
      await res.body?.cancel();
      assert.equal(res.status, 303, `approval ${round} from the same address`);
    }
  } finally {
    await world.close();
  }
});

Deno.test("TRUST_PROXY: failed tries count under the address the proxy appended, not one the caller wrote", async () => {
  const world = await oauthWorld({ OAUTH_MAX_FAILED_ATTEMPTS: "2", TRUST_PROXY: "on" });
  try {
    const tryWith = async (forwardedFor: string, secret: string) => {
      // A new app each time, so only the address counter can stop the try.
      const reg = await registerClient(world.as, { name: "Spoofer" });
      const request = await authorizationUrl(world.as, reg.client);
      const form = await openConsent(request.url);
      const res = await fetch(new URL("/authorize", request.url), {
        method: "POST",
        redirect: "manual",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          cookie: form.cookie,
          // The caller wrote the first value; the proxy appended the real address.
          "x-forwarded-for": forwardedFor,
        },
        body: new URLSearchParams({ csrf: form.csrf, secret, decision: "approve" }),
      });
      await res.body?.cancel();
      return res.status;
    };
    assert.equal(await tryWith("198.51.100.1, 203.0.113.7", "wrong"), 403);
    assert.equal(await tryWith("198.51.100.2, 203.0.113.7", "wrong"), 429);
    assert.equal(await tryWith("198.51.100.3, 203.0.113.7", OWNER_SECRET), 429);
    assert.equal(await tryWith("198.51.100.3, 203.0.113.8", OWNER_SECRET), 303);
  } finally {
    await world.close();
  }
});

Deno.test("registrations sent all at once stay within OAUTH_MAX_REGISTRATIONS", async () => {
  const world = await oauthWorld({ OAUTH_MAX_REGISTRATIONS: "2" });
  try {
    const statuses = await Promise.all(Array.from({ length: 12 }, async () => {
      const res = await fetch(new URL("/register", world.as.issuer), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "n", redirect_uris: ["https://app.example/cb"] }),
      });
      await res.body?.cancel();
      return res.status;
    }));
    // oauthWorld's discovery registered nothing, so two may succeed.
    assert.equal(statuses.filter((s) => s === 201).length, 2, statuses.join(","));
    assert.equal(statuses.filter((s) => s === 429).length, 10, statuses.join(","));
  } finally {
    await world.close();
  }
});

Deno.test("consent forms opened from one address are limited, so anonymous GETs cannot fill KV", async () => {
  const world = await oauthWorld();
  try {
    const reg = await registerClient(world.as, { name: "Form Opener" });
    const request = await authorizationUrl(world.as, reg.client);
    const statuses: number[] = [];
    for (let i = 0; i < CONSENT_FORMS_MAX + 1; i++) {
      const res = await fetch(request.url, { redirect: "manual" });
      await res.body?.cancel();
      statuses.push(res.status);
    }
    assert.deepEqual(statuses.slice(0, CONSENT_FORMS_MAX), Array(CONSENT_FORMS_MAX).fill(200));
    const refused = await fetch(request.url, { redirect: "manual" });
    assert.equal(refused.status, 429);
    assert.match(
      await refused.text(),
      new RegExp(`at most ${CONSENT_FORMS_MAX} from this address in 15 minutes`),
    );
    let stored = 0;
    for await (const _ of world.server.kv.list({ prefix: ["oauth_consent"] })) stored++;
    assert.equal(stored, CONSENT_FORMS_MAX, "no consent record beyond the limit");
  } finally {
    await world.close();
  }
});

Deno.test("OAuth: a health check's registration never counts against the owner's sign-in, and expires", async () => {
  const world = await oauthWorld({ OAUTH_MAX_FAILED_ATTEMPTS: "1" });
  try {
    // What `claude mcp list` does: discovery, then a registration nobody approves.
    const probe = await registerClient(world.as, { name: "health check" });
    for (const scope of ["client", "address", "consent_form"] as const) {
      const id = scope === "client" ? probe.client.client_id : "127.0.0.1";
      const counted = await world.server.kv.get(attemptsKey(scope, id));
      assert.equal(counted.value, null, `the registration counts nothing in ${scope}`);
    }
    const signed = await signedIn(world);
    assert.equal(signed.tokens.token_type, "bearer", "the owner signs in from the same address");
    world.clock.advance(86_400_000);
    const res = await fetch(
      (await authorizationUrl(world.as, probe.client)).url,
      { redirect: "manual" },
    );
    assert.equal(res.status, 400);
    assert.match(await res.text(), /Unknown app/, "the unapproved registration expired");
  } finally {
    await world.close();
  }
});

Deno.test("TRUST_PROXY: a new X-Forwarded-For each time still meets the total ceilings (issue 23, case 8)", async () => {
  const server = await startServer({
    env: {
      OAUTH: "on",
      OAUTH_OWNER_SECRET: OWNER_SECRET,
      TRUST_PROXY: "on",
      OAUTH_MAX_FAILED_ATTEMPTS: "2",
      OAUTH_MAX_FAILED_ATTEMPTS_TOTAL: "4",
      OAUTH_MAX_REGISTRATIONS: "2",
      OAUTH_MAX_REGISTRATIONS_TOTAL: "3",
    },
  });
  try {
    const register = async (i: number) => {
      const res = await fetch(`${server.origin}/register`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": `198.51.100.${i}` },
        body: JSON.stringify({ client_name: "n", redirect_uris: ["https://app.example/cb"] }),
      });
      return { status: res.status, body: await res.json() };
    };
    const registrations = [];
    for (let i = 0; i < 8; i++) registrations.push(await register(i));
    assert.deepEqual(registrations.map((r) => r.status), [201, 201, 201, 429, 429, 429, 429, 429]);
    assert.match(
      registrations[3].body.error_description,
      /at most 3 from all addresses together in 15 minutes, OAUTH_MAX_REGISTRATIONS_TOTAL/,
    );

    const login = async (i: number, secret: string) => {
      const form = await fetch(`${server.origin}/console/login`);
      const csrf = (await form.text()).match(/name="csrf" value="([^"]+)"/)?.[1] ?? "";
      const cookie = (form.headers.get("set-cookie") ?? "").split(";")[0];
      const res = await fetch(`${server.origin}/console/login`, {
        method: "POST",
        redirect: "manual",
        headers: {
          cookie,
          "content-type": "application/x-www-form-urlencoded",
          "x-forwarded-for": `203.0.113.${i}`,
        },
        body: new URLSearchParams({ csrf, secret }),
      });
      return { status: res.status, text: await res.text() };
    };
    const guesses = [];
    for (let i = 0; i < 8; i++) guesses.push(await login(i, `wrong-guess-${i}`));
    assert.deepEqual(guesses.map((g) => g.status), [401, 401, 401, 429, 429, 429, 429, 429]);
    assert.match(guesses[3].text, /OAUTH_MAX_FAILED_ATTEMPTS_TOTAL/);
    const total = await server.kv.get<AttemptsRecord>(attemptsKey("total", "owner_secret"));
    assert.equal(total.value?.count, 4, "the ceiling is kept in KV, shared by every process");
    // Until the window ends, even the right secret waits: a ceiling that let it through would
    // let a guesser through too.
    assert.equal((await login(99, OWNER_SECRET)).status, 429);
  } finally {
    await server.close();
  }
});

Deno.test("TRUST_PROXY: an X-Forwarded-For value too long for a KV key is not an address; the caller is counted, never a 500", async () => {
  const server = await startServer({
    env: { OAUTH: "on", OAUTH_OWNER_SECRET: OWNER_SECRET, TRUST_PROXY: "on" },
  });
  try {
    const long = "a".repeat(3000);
    const registered = await fetch(`${server.origin}/register`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": long },
      body: JSON.stringify({ client_name: "n", redirect_uris: ["https://app.example/cb"] }),
    });
    assert.equal(registered.status, 201, await registered.text());
    const form = await fetch(`${server.origin}/console/login`);
    const csrf = (await form.text()).match(/name="csrf" value="([^"]+)"/)?.[1] ?? "";
    const cookie = (form.headers.get("set-cookie") ?? "").split(";")[0];
    const guess = await fetch(`${server.origin}/console/login`, {
      method: "POST",
      redirect: "manual",
      headers: {
        cookie,
        "content-type": "application/x-www-form-urlencoded",
        "x-forwarded-for": `203.0.113.9, ${long}`,
      },
      body: new URLSearchParams({ csrf, secret: "wrong-guess" }),
    });
    assert.equal(guess.status, 401, await guess.text());
    const counted = await Array.fromAsync(
      server.kv.list<AttemptsRecord>({ prefix: ["oauth_attempts", "address"] }),
    );
    assert.deepEqual(counted.map((e) => [e.key[2], e.value.count]), [["127.0.0.1", 1]]);
  } finally {
    await server.close();
  }
});
