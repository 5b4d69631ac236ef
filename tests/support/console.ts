/** Owner console fixtures: a seeded server, and signing in with fetch as a browser would. */

import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "../../src/client/sdk_client.ts";
import { randomToken } from "../../src/kit/ids.ts";
import { call, startServer, type TestServer } from "./harness.ts";
import { OWNER_SECRET } from "./oauth.ts";

export { OWNER_SECRET };

/** A stored text that would run if a page ever parsed it as HTML. */
export const EVIL = `<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">`;
/** The named token of the seeding AI. */
export const CODEX = randomToken(24);
/** The approval code of the seeded server. */
export const APPROVAL = "approval-code-for-tests";

/** The environment of a console test server. */
export const CONSOLE_ENV = {
  OAUTH: "on",
  OAUTH_OWNER_SECRET: OWNER_SECRET,
  OWNER_NAME: "Ada",
  AUTH_TOKENS: `codex=${CODEX}`,
  APPROVAL_SECRET: APPROVAL,
  VIEW_TIME_ZONE: "Europe/Berlin",
  TABLE_DEFAULT_WORKSPACE: "acme/shop",
};

/** An SDK client speaking as `codex` (its named token). */
export async function codexClient(origin: string) {
  const c = new Client({ name: "console-seed", version: "1.0.0" });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${origin}/${CODEX}/mcp`)));
  return c;
}

/** Calls a tool and returns its structured result, failing the test on a tool error. */
export async function value(
  c: InstanceType<typeof Client>,
  tool: string,
  args: Record<string, unknown>,
) {
  const r = await call(c, tool, args);
  assert.equal(r.isError, false, r.text);
  // deno-lint-ignore no-explicit-any
  return r.structured as any;
}

/** What the seeded table holds. */
export interface Seeded {
  server: TestServer;
  discussionId: string;
  decisionId: string;
  handoffId: string;
  relayedId: string;
  codedId: string;
}

/**
 * A server with a discussion holding a stored `<script>`, a decision awaiting a person, one
 * relayed and one approved with the code, and a task handed to Ada.
 */
export async function seededConsole(env: Record<string, string> = {}): Promise<Seeded> {
  const server = await startServer({ env: { ...CONSOLE_ENV, ...env } });
  const codex = await codexClient(server.origin);
  try {
    const d = await value(codex, "create_discussion", {
      title: "Checkout: retry failed payments?",
      body: "Proposal: retry a failed card payment once.\n" + EVIL,
      kind: "proposal",
    });
    const decision = await value(codex, "record_decision", {
      title: "Retry card payments once",
      detail: "With the same idempotency key.",
      discussion_id: d.discussion.id,
    });
    const relayed = await value(codex, "record_decision", { title: "Use REST", detail: "d" });
    await value(codex, "resolve_decision", {
      decision_id: relayed.decision.id,
      verdict: "approved",
      reason: "the user said so in chat",
    });
    const coded = await value(codex, "record_decision", { title: "Ship Friday", detail: "d" });
    await value(codex, "resolve_decision", {
      decision_id: coded.decision.id,
      verdict: "approved",
      reason: "code given",
      approval_code: APPROVAL,
    });
    const task = await value(codex, "create_task", { title: "Test the double-charge case" });
    const h = await value(codex, "create_handoff", {
      task_id: task.task.id,
      to: "ada",
      context: "Payment mock is in tests/support/pay.ts",
    });
    return {
      server,
      discussionId: d.discussion.id,
      decisionId: decision.decision.id,
      handoffId: h.handoff.id,
      relayedId: relayed.decision.id,
      codedId: coded.decision.id,
    };
  } finally {
    await codex.close();
  }
}

/** A signed-in fetch session: its cookie and the CSRF token its pages carry. */
export interface FetchSession {
  cookie: string;
  csrf: string;
}

/** Signs in to the console at `origin` with `secret`; returns the response of the form post. */
export async function postLogin(origin: string, secret: string): Promise<Response> {
  const form = await fetch(`${origin}/console/login`);
  const html = await form.text();
  const csrf = html.match(/name="csrf" value="([^"]+)"/)?.[1] ?? "";
  const cookie = (form.headers.get("set-cookie") ?? "").split(";")[0];
  return await fetch(`${origin}/console/login`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrf, secret }),
  });
}

/** Signs in with the right secret and reads the CSRF token of the first page. */
export async function fetchSignIn(origin: string, secret = OWNER_SECRET): Promise<FetchSession> {
  const res = await postLogin(origin, secret);
  await res.body?.cancel();
  assert.equal(res.status, 303);
  const cookie = res.headers.getSetCookie()[0].split(";")[0];
  const page = await fetch(`${origin}/console`, { headers: { cookie } });
  const csrf = (await page.text()).match(/name="csrf" value="([^"]+)"/)?.[1] ?? "";
  return { cookie, csrf };
}
