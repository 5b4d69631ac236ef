/**
 * The SDK's own OAuth client signs in by client ID metadata document: it skips registration
 * because the server says `client_id_metadata_document_supported`, and sends its document's
 * https URL as `client_id`. The document is served over https on loopback by a test CA the
 * server (a child process, as users run it) trusts through `DENO_CERT`.
 */

import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "../src/client/sdk_client.ts";
import { clientDocument, documentHost, testTls } from "./support/cimd.ts";
import { spawnServer, tempKvPath } from "./support/harness.ts";
import { MemoryProvider, OWNER_SECRET, signIn } from "./support/oauth.ts";

/** The SDK's provider, naming its metadata document. */
class DocumentProvider extends MemoryProvider {
  constructor(readonly clientMetadataUrl: string) {
    super("unused: the document names the client");
  }
}

Deno.test("CIMD with the SDK client: no registration, the document's URL is the client id, and the caller is recorded by it", async () => {
  const tls = await testTls();
  const docs = documentHost(tls);
  const kv = await tempKvPath();
  const server = await spawnServer({
    KV_PATH: kv.path,
    OAUTH: "on",
    OAUTH_OWNER_SECRET: OWNER_SECRET,
    OAUTH_CIMD_ALLOW_LOOPBACK: "on",
    DENO_CERT: tls.caFile,
  });
  try {
    const clientId = docs.url("/sdk/client.json");
    docs.set("/sdk/client.json", clientDocument(clientId, { client_name: "SDK by document" }));
    const provider = new DocumentProvider(clientId);
    await signIn(server.origin, provider);
    assert.equal(provider.client?.client_id, clientId, "the SDK used the URL, not a registration");
    assert.ok(provider.saved?.access_token);
    assert.equal(docs.fetches("/sdk/client.json"), 1);

    const client = new Client({ name: "sdk-cimd", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), {
        authProvider: provider,
      }),
    );
    try {
      const r = await client.callTool({ name: "get_workspace_context", arguments: {} });
      const you = (r.structuredContent as { you_are: Record<string, unknown> }).you_are;
      assert.deepEqual([you.name, you.via, you.client_id], ["SDK by document", "oauth", clientId]);
    } finally {
      await client.close();
    }
  } finally {
    await server.close();
    await docs.close();
    await kv.cleanup();
    await tls.cleanup();
  }
});
