/**
 * MCP 2026-07-28 beside 2025 on the same `/mcp` (and on stdio): the SDK v2 client pinned to
 * 2026-07-28 and in `auto` mode, the v1 client, the SSE client and stdio in both eras each call
 * every toolset; and the 2026 rules a server must keep (header checks, unknown versions, no
 * batches, cache hints, `server/discover`), as raw POSTs.
 */

import assert from "node:assert/strict";
import { connect, connectStdio, ROOT, startServer, tempKvPath } from "./support/harness.ts";
import { callEveryToolset } from "./support/every_toolset.ts";
import { withWhoamiServer } from "./support/whoami.ts";
import {
  ClientV2,
  StdioClientTransportV2,
  StreamableHTTPClientTransportV2,
} from "../src/client/sdk_client_v2.ts";
import { LIST_TTL_MS } from "../src/mcp/server.ts";
import { VIEW_CACHE_HINT } from "../src/tools/apps.ts";

const MODERN = "2026-07-28";
type Mode = { pin: typeof MODERN } | "auto";

/** A v2 client on `url` in `mode`, counting the HTTP requests its transport makes. */
async function modernClient(url: string, mode: Mode, headers: Record<string, string> = {}) {
  const requests: string[] = [];
  const client = new ClientV2({ name: "v2-test", version: "1.0.0" }, {
    versionNegotiation: { mode },
  });
  const transport = new StreamableHTTPClientTransportV2(new URL(url), {
    requestInit: { headers },
    fetch: (input, init) => {
      requests.push(`${init?.method ?? "GET"} ${new Headers(init?.headers).get("mcp-method")}`);
      return fetch(input, init);
    },
  });
  await client.connect(transport);
  return { client, requests };
}

Deno.test("the v2 client, pinned to 2026-07-28 and in auto mode, calls every toolset in 2026", async () => {
  const server = await startServer();
  try {
    const url = `${server.origin}/${server.token}/mcp`;
    for (const mode of [{ pin: MODERN } as const, "auto" as const]) {
      const via = `v2 ${JSON.stringify(mode)}`;
      const { client, requests } = await modernClient(url, mode);
      try {
        assert.equal(client.getProtocolEra(), "modern", via);
        await client.callTool({ name: "list_projects", arguments: {} });
        // Goal 3: connect and the first call, in two HTTP requests.
        assert.deepEqual(requests, ["POST server/discover", "POST tools/call"], via);
        await callEveryToolset(client, via);
        const { tools } = await client.listTools();
        assert.ok(tools.some((t) => t.name === "sequentialthinking"), via);
        const { prompts } = await client.listPrompts();
        assert.deepEqual(prompts.map((p) => p.name), ["resume"], via);
        const { resourceTemplates } = await client.listResourceTemplates();
        assert.ok(resourceTemplates.length > 0, via);
        const view = await client.readResource({ uri: "ui://handoff/list.html" });
        assert.match(String((view.contents[0] as { text?: string }).text), /<html/i, via);
        const prompt = await client.getPrompt({ name: "resume", arguments: { project_id: "p" } });
        assert.match(JSON.stringify(prompt.messages), /UNTRUSTED|Resume project/, via);
        const completed = await client.complete({
          ref: { type: "ref/prompt", name: "resume" },
          argument: { name: "project_id", value: "" },
        });
        assert.ok(Array.isArray(completed.completion.values), via);
      } finally {
        await client.close();
      }
    }
  } finally {
    await server.close();
  }
});

Deno.test("the v1 client and the SSE client call every toolset under 2025 rules", async () => {
  const server = await startServer();
  try {
    for (const kind of ["http", "sse"] as const) {
      const client = await connect(server, kind);
      try {
        assert.equal(client.getServerVersion()?.name, "handoff-mcp");
        await callEveryToolset(client, `v1 ${kind}`);
      } finally {
        await client.close();
      }
    }
  } finally {
    await server.close();
  }
});

Deno.test({
  name: "stdio answers a 2025 initialize and a 2026 server/discover, every toolset in each",
  sanitizeResources: false,
  async fn() {
    const kv = await tempKvPath();
    try {
      const legacy = await connectStdio(kv.path);
      try {
        await callEveryToolset(legacy, "stdio v1");
      } finally {
        await legacy.close();
      }
      const modern = new ClientV2({ name: "v2-stdio", version: "1.0.0" }, {
        versionNegotiation: { mode: { pin: MODERN } },
      });
      await modern.connect(
        new StdioClientTransportV2({
          command: Deno.execPath(),
          args: ["run", "--allow-env", "--allow-read", "--allow-write", "main.ts", "--stdio"],
          cwd: ROOT,
          env: { ...Deno.env.toObject(), KV_PATH: kv.path, NO_COLOR: "1" },
          stderr: "pipe",
        }),
      );
      try {
        assert.equal(modern.getProtocolEra(), "modern");
        await callEveryToolset(modern, "stdio v2");
      } finally {
        await modern.close();
      }
    } finally {
      await kv.cleanup();
    }
  },
});

Deno.test("the caller reaches a tool in 2026 as in 2025: named token and X-Client-Name", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await withWhoamiServer(kv, { AUTH_TOKENS: "codex=" + "c".repeat(32) }, async (origin) => {
      const named = await modernClient(`${origin}/${"c".repeat(32)}/mcp`, { pin: MODERN });
      const who = await named.client.callTool({ name: "whoami", arguments: {} });
      assert.deepEqual(who.structuredContent, { name: "codex", via: "token" });
      await named.client.close();
    });
    await withWhoamiServer(kv, {}, async (origin, master) => {
      const header = await modernClient(`${origin}/${master}/mcp`, { pin: MODERN }, {
        "x-client-name": "gemini",
      });
      const who = await header.client.callTool({ name: "whoami", arguments: {} });
      assert.deepEqual(who.structuredContent, { name: "gemini", via: "header" });
      await header.client.close();
    });
  } finally {
    kv.close();
  }
});

/** A raw 2026-07-28 request: the envelope in `_meta`, and the standard headers. */
function modernPost(
  url: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

function request(id: number, method: string, params: Record<string, unknown> = {}, v = MODERN) {
  return {
    jsonrpc: "2.0",
    id,
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": v,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
      },
    },
  };
}

Deno.test("2026 rules on /mcp: header checks, unknown versions, no batches, discover, cache hints", async () => {
  const server = await startServer();
  try {
    const url = `${server.origin}/${server.token}/mcp`;
    const mismatch = await modernPost(url, request(1, "tools/list"), {
      "mcp-method": "tools/call",
    });
    assert.equal(mismatch.status, 400);
    assert.equal((await mismatch.json()).error.code, -32020);

    const unknown = await modernPost(url, request(2, "tools/list", {}, "2099-01-01"), {
      "mcp-method": "tools/list",
      "mcp-protocol-version": "2099-01-01",
    });
    const refused = await unknown.json();
    assert.equal(refused.error.code, -32022);
    assert.ok(refused.error.data.supported.includes(MODERN), JSON.stringify(refused));

    const batch = await modernPost(url, [request(3, "tools/list"), request(4, "tools/list")], {
      "mcp-method": "tools/list",
    });
    assert.equal(batch.status, 400);
    assert.equal((await batch.json()).error.code, -32600);

    const discover = await (await modernPost(url, request(5, "server/discover"), {
      "mcp-method": "server/discover",
    })).json();
    assert.ok(discover.result.supportedVersions.includes(MODERN));
    assert.match(discover.result.instructions, /handoff-mcp keeps AI work durable/);
    assert.ok(discover.result.capabilities.tools);
    assert.equal(discover.result._meta["io.modelcontextprotocol/serverInfo"].name, "handoff-mcp");

    for (const method of ["tools/list", "prompts/list", "resources/templates/list"]) {
      const answer = await (await modernPost(url, request(6, method), { "mcp-method": method }))
        .json();
      assert.equal(answer.result.resultType, "complete", method);
      assert.equal(answer.result.ttlMs, LIST_TTL_MS, method);
      assert.equal(answer.result.cacheScope, "public", method);
    }
    // Project state is live: it must not be cached.
    const uri = "handoff://projects/p/state";
    const state = await (await modernPost(url, request(7, "resources/read", { uri }), {
      "mcp-method": "resources/read",
      "mcp-name": uri,
    })).json();
    assert.equal(state.result.ttlMs, 0);
    assert.equal(state.result.cacheScope, "private");
    const viewUri = "ui://handoff/list.html";
    const view = await (await modernPost(url, request(8, "resources/read", { uri: viewUri }), {
      "mcp-method": "resources/read",
      "mcp-name": viewUri,
    })).json();
    assert.equal(view.result.ttlMs, VIEW_CACHE_HINT.ttlMs);
    assert.equal(view.result.cacheScope, "public");
  } finally {
    await server.close();
  }
});

Deno.test("progress notifications reach a 2026 client on a long handoff_save", async () => {
  const server = await startServer();
  try {
    const { client } = await modernClient(`${server.origin}/${server.token}/mcp`, { pin: MODERN });
    try {
      const seen: number[] = [];
      const conversation = "## User\n" + "ü".repeat(240_000);
      const result = await client.callTool(
        { name: "handoff_save", arguments: { key: "a", summary: "s", conversation } },
        { onprogress: (p) => void seen.push(p.progress) },
      );
      assert.notEqual(result.isError, true, JSON.stringify(result.content));
      assert.ok(seen.length >= 3, `save: ${seen.length} notifications`);
    } finally {
      await client.close();
    }
  } finally {
    await server.close();
  }
});

Deno.test("with OAUTH=on a 2026 probe without credentials gets the 401 challenge, and the bearer token serves it", async () => {
  const server = await startServer({ env: { OAUTH: "on" } });
  try {
    const probe = await modernPost(`${server.origin}/mcp`, request(1, "server/discover"), {
      "mcp-method": "server/discover",
    });
    assert.equal(probe.status, 401);
    assert.equal(
      probe.headers.get("www-authenticate"),
      `Bearer resource_metadata="${server.origin}/.well-known/oauth-protected-resource"`,
    );
    await probe.body?.cancel();
    const { client } = await modernClient(`${server.origin}/mcp`, { pin: MODERN }, {
      authorization: `Bearer ${server.token}`,
    });
    try {
      await callEveryToolset(client, "v2 bearer");
    } finally {
      await client.close();
    }
  } finally {
    await server.close();
  }
});
