/**
 * End to end: a client signed in with OAuth reaches tools as its registered name, `via: oauth`,
 * whatever `X-Client-Name` claims, over Streamable HTTP and SSE; aliases rename it; OAuth
 * outranks a named token.
 */

import assert from "node:assert/strict";
import { randomToken } from "../src/kit/ids.ts";
import { withKv } from "./support/kv.ts";
import { MemoryProvider, signIn } from "./support/oauth.ts";
import { whoami, withWhoamiServer } from "./support/whoami.ts";

const OWNER_SECRET = randomToken(32);
const CODEX = randomToken(24);

/** Runs `fn` on a whoami server with OAuth on that also knows the named token `codex`. */
function withServer(
  kv: Deno.Kv,
  env: Record<string, string>,
  fn: (origin: string) => Promise<void>,
): Promise<void> {
  const oauth = { AUTH_TOKENS: `codex=${CODEX}`, OAUTH: "on", OAUTH_OWNER_SECRET: OWNER_SECRET };
  return withWhoamiServer(kv, { ...oauth, ...env }, fn);
}

Deno.test("an OAuth client reaches tools as its registered name via oauth; X-Client-Name changes nothing", async () => {
  await withKv(async (kv) => {
    await withServer(kv, {}, async (origin) => {
      const provider = new MemoryProvider("Claude.ai connector");
      await signIn(origin, provider, OWNER_SECRET);
      const expected = {
        name: "Claude.ai connector",
        via: "oauth",
        clientId: provider.client!.client_id,
      };
      for (const kind of ["http", "sse"] as const) {
        assert.deepEqual(await whoami(kind, origin, { authProvider: provider }), expected, kind);
        assert.deepEqual(
          await whoami(kind, origin, {
            authProvider: provider,
            headers: { "x-client-name": "ChatGPT" },
          }),
          expected,
          `${kind} with a header claiming another name`,
        );
      }
      // OAuth outranks a named token in the path.
      assert.deepEqual(
        await whoami("http", `${origin}/${CODEX}`, { authProvider: provider }),
        expected,
      );
      assert.deepEqual(await whoami("http", `${origin}/${CODEX}`), {
        name: "codex",
        via: "token",
      });
    });
  });
});

Deno.test("CLIENT_NAME_ALIASES renames an OAuth client for every request, tokens unchanged", async () => {
  await withKv(async (kv) => {
    // The same port for both servers: a token is bound to the origin it was issued for.
    const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const PORT = String(probe.addr.port);
    probe.close();
    const provider = new MemoryProvider("chatgpt-connector-7f3a");
    await withServer(kv, { PORT }, (origin) => signIn(origin, provider, OWNER_SECRET));
    const id = provider.client!.client_id;
    await withServer(kv, { PORT, CLIENT_NAME_ALIASES: `${id}=ChatGPT` }, async (origin) => {
      assert.deepEqual(await whoami("http", origin, { authProvider: provider }), {
        name: "ChatGPT",
        via: "oauth",
        clientId: id,
      });
    });
  });
});
