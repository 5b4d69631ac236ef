/**
 * The owner console over plain HTTP: absent without an owner secret, sign-in limited per
 * address, sessions hashed in KV and ended by signing out or by a new secret, every form
 * refused without its CSRF token, pages never framed and free of script.
 */

import assert from "node:assert/strict";
import { openKv } from "../src/kit/open_kv.ts";
import { startServer } from "./support/harness.ts";
import {
  APPROVAL,
  CODEX,
  codexClient,
  CONSOLE_ENV,
  fetchSignIn,
  OWNER_SECRET,
  postLogin,
  seededConsole,
  value,
} from "./support/console.ts";

Deno.test("/console is absent (404) without an owner secret of at least 16 characters", async () => {
  const server = await startServer({ env: { AUTH_TOKEN: "short-token-1" } });
  try {
    for (const path of ["/console", "/console/login"]) {
      const res = await fetch(`${server.origin}${path}`);
      assert.equal(res.status, 404, path);
      await res.body?.cancel();
    }
  } finally {
    await server.close();
  }
});

Deno.test("console sign-in: a wrong secret is refused and counted per address; the limit holds", async () => {
  const server = await startServer({
    env: { ...CONSOLE_ENV, OAUTH_MAX_FAILED_ATTEMPTS: "2" },
  });
  try {
    const wrong = await postLogin(server.origin, "not-the-owner-secret");
    assert.equal(wrong.status, 401);
    assert.match(await wrong.text(), /That is not the owner secret/);
    const limited = await postLogin(server.origin, "still-not-the-secret");
    assert.equal(limited.status, 429);
    assert.match(await limited.text(), /OAUTH_MAX_FAILED_ATTEMPTS/);
    const right = await postLogin(server.origin, OWNER_SECRET);
    assert.equal(right.status, 429, "even the right secret waits out the window");
    await right.body?.cancel();
    const noCookie = await fetch(`${server.origin}/console/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf: "", secret: OWNER_SECRET }),
    });
    assert.equal(noCookie.status, 403, "the sign-in form has a CSRF token too");
    await noCookie.body?.cancel();
  } finally {
    await server.close();
  }
});

Deno.test("console session: HttpOnly SameSite=Strict cookie, only its hash in KV, ended by sign-out", async () => {
  const { server } = await seededConsole();
  try {
    const res = await postLogin(server.origin, OWNER_SECRET);
    await res.body?.cancel();
    const set = res.headers.getSetCookie()[0];
    assert.match(
      set,
      /^handoff_console=[\w-]{43}; Path=\/console; HttpOnly; SameSite=Strict; Max-Age=43200$/,
    );
    const token = set.split(";")[0].split("=")[1];
    const stored: string[] = [];
    for await (const e of server.kv.list({ prefix: ["console_session"] })) {
      stored.push(JSON.stringify(e.key) + JSON.stringify(e.value));
    }
    assert.equal(stored.length, 1);
    assert.ok(!stored[0].includes(token) && !stored[0].includes(OWNER_SECRET), "hashes only");
    const s = await fetchSignIn(server.origin);
    const page = await fetch(`${server.origin}/console`, { headers: { cookie: s.cookie } });
    assert.equal(page.status, 200);
    const csp = page.headers.get("content-security-policy")!;
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(csp, /script-src/);
    assert.equal(page.headers.get("x-frame-options"), "DENY");
    const html = await page.text();
    assert.doesNotMatch(html, /<script/i);
    assert.match(html, /Waiting for <bdi>Ada<\/bdi>/, "stored names are direction-isolated");
    const apps = await (await fetch(`${server.origin}/console/apps`, {
      headers: { cookie: s.cookie },
    })).text();
    assert.match(apps, /<li><bdi>codex<\/bdi><\/li>/, "named tokens are listed by name");
    for (const secret of [CODEX, OWNER_SECRET, server.token]) {
      assert.ok(!apps.includes(secret), "no token or secret value is ever shown");
    }
    const out = await fetch(`${server.origin}/console/logout`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: s.cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf: s.csrf }),
    });
    assert.equal(out.status, 303);
    assert.match(out.headers.get("set-cookie")!, /Max-Age=0/);
    await out.body?.cancel();
    const replay = await fetch(`${server.origin}/console`, {
      redirect: "manual",
      headers: { cookie: s.cookie },
    });
    assert.equal(replay.status, 303, "the signed-out cookie no longer opens the console");
    assert.equal(replay.headers.get("location"), "/console/login");
    await replay.body?.cancel();
  } finally {
    await server.close();
  }
});

Deno.test("console forms without their CSRF token, or from another origin, are refused and write nothing", async () => {
  const { server, discussionId, decisionId } = await seededConsole();
  try {
    const s = await fetchSignIn(server.origin);
    const post = (path: string, fields: Record<string, string>, headers = {}) =>
      fetch(`${server.origin}${path}`, {
        method: "POST",
        redirect: "manual",
        headers: {
          cookie: s.cookie,
          "content-type": "application/x-www-form-urlencoded",
          ...headers,
        },
        body: new URLSearchParams(fields),
      });
    const cases = [
      await post(`/console/discussions/${discussionId}`, { body: "no token" }),
      await post(`/console/discussions/${discussionId}`, { body: "wrong", csrf: "x".repeat(43) }),
      await post(`/console/decisions/${decisionId}`, { verdict: "approve", reason: "r" }),
    ];
    for (const res of cases) {
      assert.equal(res.status, 403);
      assert.match(await res.text(), /Form refused.*CSRF token is missing or does not match/s);
    }
    // Another site's form: the loopback guard refuses its Origin before the console sees it.
    const cross = await post(`/console/discussions/${discussionId}`, {
      body: "cross",
      csrf: s.csrf,
    }, { origin: "https://evil.example" });
    assert.equal(cross.status, 403);
    await cross.body?.cancel();
    const unsigned = await fetch(`${server.origin}/console/discussions/${discussionId}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ body: "who am I", csrf: s.csrf }),
    });
    assert.equal(unsigned.status, 401);
    await unsigned.body?.cancel();
    const page = await fetch(`${server.origin}/console/discussions/${discussionId}`, {
      headers: { cookie: s.cookie },
    });
    const html = await page.text();
    assert.match(html, /1 message\(s\)/, "nothing was posted");
    assert.match(html, /&lt;script&gt;window\.pwned = 1&lt;\/script&gt;/);
  } finally {
    await server.close();
  }
});

Deno.test("a new owner secret ends every console session", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite`;
  const kv = await openKv(path);
  try {
    const first = await startServer({ kv, env: { ...CONSOLE_ENV, KV_PATH: path } });
    const s = await fetchSignIn(first.origin);
    const ok = await fetch(`${first.origin}/console`, { headers: { cookie: s.cookie } });
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
    await first.close();
    const rotated = await startServer({
      kv,
      env: { ...CONSOLE_ENV, KV_PATH: path, OAUTH_OWNER_SECRET: "a-brand-new-owner-secret-42" },
    });
    try {
      const res = await fetch(`${rotated.origin}/console`, {
        redirect: "manual",
        headers: { cookie: s.cookie },
      });
      assert.equal(res.status, 303);
      assert.equal(res.headers.get("location"), "/console/login");
      await res.body?.cancel();
      assert.equal((await Array.fromAsync(kv.list({ prefix: ["console_session"] }))).length, 0);
    } finally {
      await rotated.close();
    }
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("over https (PUBLIC_URL) the session cookie is Secure with the __Host- prefix and Path=/", async () => {
  const server = await startServer({
    env: { ...CONSOLE_ENV, PUBLIC_URL: "https://handoff.example" },
  });
  try {
    const form = await fetch(`${server.origin}/console/login`);
    await form.body?.cancel();
    assert.match(
      form.headers.get("set-cookie")!,
      /^__Host-handoff_console_login=[\w-]+; Path=\/; Secure; HttpOnly; SameSite=Strict/,
    );
    const res = await postLogin(server.origin, OWNER_SECRET);
    await res.body?.cancel();
    assert.equal(res.status, 303);
    assert.match(
      res.headers.getSetCookie()[0],
      /^__Host-handoff_console=[\w-]{43}; Path=\/; Secure; HttpOnly; SameSite=Strict; Max-Age=43200$/,
    );
  } finally {
    await server.close();
  }
});

Deno.test("a discussion reads page by page in the console", async () => {
  const { server, discussionId } = await seededConsole();
  const codex = await codexClient(server.origin);
  try {
    for (let i = 2; i <= 52; i++) {
      await value(codex, "post_message", { discussion_id: discussionId, body: `message ${i}` });
    }
    const s = await fetchSignIn(server.origin);
    const first = await (await fetch(`${server.origin}/console/discussions/${discussionId}`, {
      headers: { cookie: s.cookie },
    })).text();
    assert.match(first, /Messages 1–50 of 52/);
    assert.match(first, new RegExp(`href="/console/discussions/${discussionId}\\?after=50"`));
    assert.doesNotMatch(first, /Earlier messages/);
    const next = await (await fetch(
      `${server.origin}/console/discussions/${discussionId}?after=50`,
      { headers: { cookie: s.cookie } },
    )).text();
    assert.match(next, /Messages 51–52 of 52/);
    assert.match(next, /message 52/);
    assert.match(next, /Earlier messages/);
    assert.doesNotMatch(next, /Later messages/);
  } finally {
    await codex.close();
    await server.close();
  }
});

Deno.test("a task assigned to the owner is handed on from its console page, as the owner", async () => {
  const { server } = await seededConsole();
  const codex = await codexClient(server.origin);
  try {
    const t = await value(codex, "create_task", { title: "Write the runbook", assigned_to: "Ada" });
    const s = await fetchSignIn(server.origin);
    const waiting = await (await fetch(`${server.origin}/console`, {
      headers: { cookie: s.cookie },
    })).text();
    assert.match(waiting, new RegExp(`data-id="${t.task.id}".*Write the runbook`));
    const post = (fields: Record<string, string>) =>
      fetch(`${server.origin}/console/tasks/${t.task.id}`, {
        method: "POST",
        redirect: "manual",
        headers: { cookie: s.cookie, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrf: s.csrf, action: "hand_on", ...fields }),
      });
    const blank = await post({ to: "claude", context: "  " });
    assert.equal(blank.status, 400);
    assert.match(await blank.text(), /context must not be empty or blank/);
    const invisible = await post({ to: "claude\u200B", context: "Draft" });
    assert.equal(invisible.status, 400);
    assert.match(await invisible.text(), /to holds U\+200B, an invisible or direction-control/);
    const res = await post({ to: "claude", context: "Draft is in docs/runbook.md" });
    assert.equal(res.status, 303);
    assert.match(res.headers.get("location")!, /^\/console\/handoffs\/\w+\?done=handed_on$/);
    await res.body?.cancel();
    const h = await value(codex, "get_handoffs", { to: "claude" });
    assert.deepEqual(
      [h.handoffs[0].task_id, h.handoffs[0].from],
      [t.task.id, { name: "Ada", via: "console" }],
    );
  } finally {
    await codex.close();
    await server.close();
  }
});

Deno.test("/view tells the three proofs apart: the console, the approval code, relayed", async () => {
  const viewKey = "view-key-for-console-tests-0123";
  const seeded = await seededConsole({ VIEW_TOKEN: viewKey });
  const { server } = seeded;
  const codex = await codexClient(server.origin);
  try {
    const s = await fetchSignIn(server.origin);
    const res = await fetch(`${server.origin}/console/decisions/${seeded.decisionId}`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: s.cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf: s.csrf, verdict: "approve", reason: "yes" }),
    });
    assert.equal(res.status, 303);
    await res.body?.cancel();
    for (const id of [seeded.decisionId, seeded.codedId, seeded.relayedId]) {
      await value(codex, "set_decision_scope", {
        decision_id: id,
        scope: "workspace",
        approval_code: APPROVAL,
      });
    }
    const view = await (await fetch(`${server.origin}/view`, {
      headers: { authorization: `Bearer ${viewKey}` },
    })).text();
    assert.match(
      view,
      /Retry card payments once<\/bdi> .*via console<\/span> \(a person, in the owner console\)/,
    );
    assert.match(view, /Ship Friday<\/bdi> .*\(a person, with the approval code\)/);
    assert.match(view, /Use REST<\/bdi> .*\(relayed by an AI, unproven\)/);
    assert.doesNotMatch(view, /<form method="post"/, "/view stays read-only");
  } finally {
    await codex.close();
    await server.close();
  }
});

Deno.test("without the table toolset the console still manages apps; table pages say it is off", async () => {
  const server = await startServer({ env: { ...CONSOLE_ENV, TOOLSETS: "focus" } });
  try {
    const s = await fetchSignIn(server.origin);
    const home = await fetch(`${server.origin}/console`, {
      redirect: "manual",
      headers: { cookie: s.cookie },
    });
    assert.equal(home.headers.get("location"), "/console/apps");
    await home.body?.cancel();
    const apps = await fetch(`${server.origin}/console/apps`, { headers: { cookie: s.cookie } });
    assert.match(await apps.text(), /Toolsets<\/dt><dd>focus</);
    const d = await fetch(`${server.origin}/console/decisions/01ARZ3NDEKTSV4RRFFQ69G5FAV`, {
      headers: { cookie: s.cookie },
    });
    assert.equal(d.status, 404);
    assert.match(await d.text(), /table toolset is off/);
  } finally {
    await server.close();
  }
});
