/**
 * OAuth: median MCP `ping` over Streamable HTTP on loopback with an OAuth access token (one
 * SHA-256 and one KV read per request) against the path token, on a KV file; and the median
 * refresh (rotation: one atomic) at the token endpoint.
 */

import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "../src/client/sdk_client.ts";
import { startServer, tempKvPath } from "../tests/support/harness.ts";
import { approve, MemoryProvider } from "../tests/support/oauth.ts";
import { type BenchGroup, measure, measureInterleaved, ratio } from "./lib.ts";

const OWNER_SECRET = "bench-owner-secret-0123456789abcdef";

/** Runs the OAuth benchmark and returns medians and the OAuth-vs-path-token ratio. */
export async function benchOAuth(): Promise<Record<string, unknown>> {
  const kvFile = await tempKvPath();
  const server = await startServer({
    env: { KV_PATH: kvFile.path, OAUTH: "on", OAUTH_OWNER_SECRET: OWNER_SECRET },
  });
  const byPath = new Client({ name: "bench-path", version: "1" });
  const byOAuth = new Client({ name: "bench-oauth", version: "1" });
  try {
    const provider = new MemoryProvider("bench");
    const mcp = new URL(`${server.origin}/mcp`);
    const signIn = new StreamableHTTPClientTransport(mcp, { authProvider: provider });
    await byOAuth.connect(signIn).catch((e) => {
      if (!(e instanceof UnauthorizedError)) throw e;
    });
    await signIn.finishAuth((await approve(provider.authorizationUrl!, OWNER_SECRET)).get("code")!);
    await byOAuth.connect(new StreamableHTTPClientTransport(mcp, { authProvider: provider }));
    await byPath.connect(
      new StreamableHTTPClientTransport(new URL(`${server.origin}/${server.token}/mcp`)),
    );
    const results = await measureInterleaved(
      {
        ping_path_token: () => byPath.ping(),
        ping_oauth_bearer: () => byOAuth.ping(),
      },
      10,
      30,
    );
    const refresh = await measure(async () => {
      const res = await fetch(`${server.origin}/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: provider.saved!.refresh_token!,
          client_id: provider.client!.client_id,
        }),
      });
      const body = await res.json();
      if (!res.ok) throw new Error(`refresh failed: ${JSON.stringify(body)}`);
      provider.saved = { ...provider.saved!, ...body };
    }, 100);
    return {
      transport: "streamable-http (stateless, SSE responses), loopback",
      kv: "file",
      results: { ...results, token_refresh: refresh },
      ratio_oauth_vs_path_token: ratio(results.ping_oauth_bearer, results.ping_path_token),
    };
  } finally {
    await byPath.close();
    await byOAuth.close();
    await server.close();
    await kvFile.cleanup();
  }
}

/** The `oauth` benchmark group: latencies and the OAuth-vs-path-token ratio, no goals yet. */
export const oauthGroup: BenchGroup = {
  name: "oauth",
  what: "ping with an OAuth bearer vs the path token, and token refresh (one client, in-process)",
  run: async () => ({ goals: [], ...(await benchOAuth()) }),
};
