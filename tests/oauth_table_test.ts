/**
 * End to end with the table toolset: messages posted by a client signed in with OAuth (the SDK's
 * own flow) are recorded under its registered name, `via: oauth`, with its client id, over
 * Streamable HTTP and SSE, and an `X-Client-Name` header claiming another name changes nothing.
 */

import assert from "node:assert/strict";
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
} from "../src/client/sdk_client.ts";
import { call, startServer } from "./support/harness.ts";
import { MemoryProvider, OAUTH_ENV, signIn } from "./support/oauth.ts";

async function ok(client: InstanceType<typeof Client>, tool: string, args = {}) {
  const r = await call(client, tool, args);
  assert.equal(r.isError, false, `${tool}: ${r.text}`);
  return { text: r.text, data: r.structured as Record<string, unknown> };
}

Deno.test("an OAuth client's table messages carry its registered name via oauth; X-Client-Name changes nothing", async () => {
  const server = await startServer({
    env: { ...OAUTH_ENV, TOOLSETS: "table" },
  });
  const clients: InstanceType<typeof Client>[] = [];
  try {
    const provider = new MemoryProvider("Claude.ai connector");
    const mcp = new URL(`${server.origin}/mcp`);
    await signIn(server.origin, provider);
    const clientId = provider.client!.client_id;

    // The OAuth client claims to be someone else in a header, over both transports.
    const claim = { requestInit: { headers: { "x-client-name": "ChatGPT" } } };
    const overHttp = new Client({ name: "oauth-http", version: "1" });
    await overHttp.connect(
      new StreamableHTTPClientTransport(mcp, { authProvider: provider, ...claim }),
    );
    const overSse = new Client({ name: "oauth-sse", version: "1" });
    await overSse.connect(
      new SSEClientTransport(new URL(`${server.origin}/sse`), { authProvider: provider, ...claim }),
    );
    // The owner reads with the path token and the same false header.
    const owner = new Client({ name: "owner", version: "1" });
    await owner.connect(
      new StreamableHTTPClientTransport(new URL(`${server.origin}/${server.token}/mcp`), claim),
    );
    clients.push(overHttp, overSse, owner);

    const opened = await ok(overHttp, "create_discussion", { title: "Sign-in", body: "By URL" });
    const id = (opened.data.discussion as { id: string }).id;
    await ok(overSse, "post_message", { discussion_id: id, body: "Also over SSE" });
    await ok(owner, "post_message", { discussion_id: id, body: "Approved it" });

    const read = await ok(owner, "get_discussion", { discussion_id: id });
    const authors = (read.data.messages as { author: unknown }[]).map((m) => m.author);
    const oauth = { name: "Claude.ai connector", via: "oauth", client_id: clientId };
    assert.deepEqual(authors, [oauth, oauth, { name: "ChatGPT", via: "header" }]);
    assert.match(
      read.text,
      new RegExp(`Claude\\.ai connector \\(via oauth, client ${clientId}\\)`),
    );
    const participants = await ok(owner, "get_participants");
    assert.match(participants.text, /Claude\.ai connector: 2 message/);
  } finally {
    for (const client of clients) await client.close();
    await server.close();
  }
});
