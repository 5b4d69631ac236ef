/**
 * Nothing on stderr that is not an error, in the 2026-07-28 era too: clients log a server's
 * stderr as errors (Claude Code, for a stdio server), and operators read it as trouble. Deno
 * warned "request.signal aborts on successful responses (legacy behavior)" at the first 2026
 * request or listen stream until deno.json opted in to the new behavior (`no-legacy-abort`);
 * with it, a listen stream must still be let go when its client goes away.
 */

import assert from "node:assert/strict";
import { randomToken } from "../src/kit/ids.ts";
import {
  ClientV2,
  StdioClientTransportV2,
  StreamableHTTPClientTransportV2,
} from "../src/client/sdk_client_v2.ts";
import { waitingUri } from "../src/table/tools_resources.ts";
import { ROOT, spawnServer, tempKvPath } from "./support/harness.ts";

const MODERN = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "quiet", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A raw 2026 POST to `url` (a stream is read by the caller), cancelled by `signal`. */
function post(url: string, body: unknown, method: string, signal: AbortSignal) {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": method,
      "x-client-name": "claude",
    },
    body: JSON.stringify(body),
    signal,
  });
}

/** Opens a `subscriptions/listen` stream and reads its first event (the acknowledgement). */
async function openListen(url: string, signal: AbortSignal): Promise<string> {
  const res = await post(
    url,
    {
      jsonrpc: "2.0",
      id: "listen:1",
      method: "subscriptions/listen",
      params: { _meta: META, notifications: { resourceSubscriptions: [waitingUri("main")] } },
    },
    "subscriptions/listen",
    signal,
  );
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  reader.releaseLock();
  return text;
}

Deno.test("a 2026 request and listen over HTTP write nothing to stderr; a dropped listen is let go", async () => {
  const file = await tempKvPath();
  const token = randomToken(32);
  // One stream at most: a second listen is served only once the dropped one was let go.
  const server = await spawnServer({
    KV_PATH: file.path,
    AUTH_TOKEN: token,
    TOOLSETS: "table",
    NOTICE_STREAMS_MAX: "1",
  });
  const url = `${server.origin}/${token}/mcp`;
  try {
    const client = new ClientV2({ name: "quiet", version: "1.0.0" }, {
      versionNegotiation: { mode: { pin: MODERN } },
    });
    await client.connect(new StreamableHTTPClientTransportV2(new URL(url)));
    const called = await client.callTool({ name: "get_workspace_context", arguments: {} });
    assert.notEqual(called.isError, true);
    await client.close();

    const first = new AbortController();
    assert.match(await openListen(url, first.signal), /"result"|notifications\//);
    first.abort(); // the client goes away without a word
    let second = "";
    for (let i = 0; i < 100 && !second.includes("event: message"); i++) {
      const again = new AbortController();
      second = await openListen(url, again.signal);
      again.abort();
      if (!second.includes("event: message") || /NOTICE_STREAMS_MAX/.test(second)) {
        second = "";
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    assert.ok(second, "the dropped listen stream was never let go (NOTICE_STREAMS_MAX=1)");
  } finally {
    await server.close();
    await file.cleanup();
  }
  assert.equal(await server.stderr, "");
});

Deno.test("a 2026 stdio session writes nothing to stderr", async () => {
  const file = await tempKvPath();
  const transport = new StdioClientTransportV2({
    command: Deno.execPath(),
    args: ["run", "--allow-env", "--allow-read", "--allow-write", "main.ts", "--stdio"],
    cwd: ROOT,
    env: { PATH: Deno.env.get("PATH") ?? "", KV_PATH: file.path, NO_COLOR: "1" },
    stderr: "pipe",
  });
  let stderr = "";
  const decoder = new TextDecoder();
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += decoder.decode(chunk));
  const client = new ClientV2({ name: "quiet", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: MODERN } },
  });
  try {
    await client.connect(transport);
    const listed = await client.listTools();
    assert.ok(listed.tools.length > 30);
    const called = await client.callTool({ name: "list_projects", arguments: {} });
    assert.notEqual(called.isError, true);
    const sub = await client.listen({ resourcesListChanged: true });
    await sub.close();
  } finally {
    await client.close();
    await file.cleanup();
  }
  assert.equal(stderr, "");
});
