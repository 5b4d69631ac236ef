/** End to end: the real HTTP server and the SDK's own clients; the caller reaches the tool. */

import assert from "node:assert/strict";
import { randomToken } from "../src/kit/ids.ts";
import { withKv } from "./support/kv.ts";
import { whoami, withWhoamiServer } from "./support/whoami.ts";

const CODEX = randomToken(24);

/** Runs `fn` on a whoami server that also knows the named token `codex`. */
function withServer(fn: (origin: string, master: string) => Promise<void>): Promise<void> {
  return withKv((kv) => withWhoamiServer(kv, { AUTH_TOKENS: `codex=${CODEX}` }, fn));
}

for (const kind of ["http", "sse"] as const) {
  Deno.test(`${kind}: a named token, X-Client-Name and the default each reach the tool as the caller`, async () => {
    await withServer(async (origin, master) => {
      assert.deepEqual(await whoami(kind, `${origin}/${CODEX}`), { name: "codex", via: "token" });
      assert.deepEqual(
        await whoami(kind, `${origin}/${CODEX}`, { headers: { "x-client-name": "claude" } }),
        {
          name: "codex",
          via: "token",
        },
      );
      assert.deepEqual(
        await whoami(kind, `${origin}/${master}`, { headers: { "x-client-name": "claude" } }),
        {
          name: "claude",
          via: "header",
        },
      );
      assert.deepEqual(await whoami(kind, `${origin}/${master}`), {
        name: "anonymous",
        via: "default",
      });
    });
  });
}
