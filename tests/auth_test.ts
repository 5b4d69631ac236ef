/** Token checks on every route, the bearer header, the loopback guard, and failing closed. */

import assert from "node:assert/strict";
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
} from "../src/client/sdk_client.ts";
import { call, startServer } from "./support/harness.ts";
import { initializeBody, MCP_POST_HEADERS } from "./support/rpc.ts";

const INIT = initializeBody();

async function status(url: string, init: RequestInit = {}): Promise<number> {
  const res = await fetch(url, init);
  await res.body?.cancel();
  return res.status;
}

/** Status of a POST initialize sent with the given Host header over a raw socket. */
async function rawStatus(origin: string, path: string, host: string): Promise<number> {
  const { hostname, port } = new URL(origin);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const request = `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n` +
    `Accept: application/json, text/event-stream\r\nConnection: close\r\n` +
    `Content-Length: ${new TextEncoder().encode(INIT).length}\r\n\r\n${INIT}`;
  await conn.write(new TextEncoder().encode(request));
  const reader = conn.readable.getReader();
  const { value } = await reader.read();
  await reader.cancel();
  return Number(new TextDecoder().decode(value).split(" ")[1]);
}

Deno.test("a wrong, missing or misplaced token gets 404 on every route", async () => {
  const server = await startServer();
  const { origin, token } = server;
  const post = (headers: Record<string, string> = {}) => ({
    method: "POST",
    headers: { ...MCP_POST_HEADERS, ...headers },
    body: INIT,
  });
  try {
    const cases: [string, RequestInit][] = [
      [`${origin}/wrong-token/mcp`, post()],
      [`${origin}/${token}x/mcp`, post()],
      [`${origin}/${token.slice(0, -1)}/mcp`, post()],
      [`${origin}/mcp`, post()],
      [`${origin}/sse`, {}],
      [`${origin}/messages?sessionId=x`, post()],
      [`${origin}/wrong-token/sse`, {}],
      [`${origin}/mcp?token=${token}`, post()],
      [`${origin}/mcp/${token}`, post()],
      [`${origin}/mcp`, post({ "x-auth-token": token })],
      [`${origin}/mcp`, post({ authorization: `Basic ${token}` })],
      [`${origin}/mcp`, post({ authorization: `Bearer ${token}x` })],
      [`${origin}/${token}`, {}],
      [`${origin}/`, {}],
      [`${origin}/${token}/nothing-here`, {}],
    ];
    for (const [url, init] of cases) {
      assert.equal(
        await status(url, init),
        404,
        `${init.method ?? "GET"} ${url.replace(token, "<token>")}`,
      );
    }
  } finally {
    await server.close();
  }
});

Deno.test("the bearer header works on /mcp and /sse", async () => {
  const server = await startServer();
  const headers = { authorization: `Bearer ${server.token}` };
  try {
    for (
      const make of [
        () =>
          new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), {
            requestInit: { headers },
          }),
        () => new SSEClientTransport(new URL(`${server.origin}/sse`), { requestInit: { headers } }),
      ]
    ) {
      const client = new Client({ name: "bearer", version: "1" });
      await client.connect(make());
      const result = await call(client, "get_state", { project_id: "bearer" });
      assert.equal(result.isError, false);
      assert.match(result.text, /^🎯 NORTH STAR: \(未設定\)/);
      await client.close();
    }
  } finally {
    await server.close();
  }
});

Deno.test("/healthz answers without auth and reveals nothing", async () => {
  const server = await startServer();
  try {
    const res = await fetch(`${server.origin}/healthz`);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), "ok");
  } finally {
    await server.close();
  }
});

Deno.test("a foreign Origin or Host is refused on loopback; a local Origin is served", async () => {
  const server = await startServer();
  const url = `${server.origin}/${server.token}/mcp`;
  try {
    assert.equal(
      await status(url, {
        method: "POST",
        headers: { ...MCP_POST_HEADERS, origin: "https://evil.example" },
        body: INIT,
      }),
      403,
    );
    // fetch() will not send a forged Host header, so speak HTTP/1.1 over a socket.
    assert.equal(await rawStatus(server.origin, `/${server.token}/mcp`, "evil.example"), 403);
    assert.equal(await rawStatus(server.origin, `/${server.token}/mcp`, "localhost"), 200);
    assert.equal(
      await status(url, {
        method: "POST",
        headers: { ...MCP_POST_HEADERS, origin: server.origin },
        body: INIT,
      }),
      200,
    );
  } finally {
    await server.close();
  }
});

Deno.test("Streamable HTTP is stateless: GET and DELETE on /mcp get 405", async () => {
  const server = await startServer();
  const url = `${server.origin}/${server.token}/mcp`;
  try {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(url, { method, headers: { accept: "text/event-stream" } });
      assert.equal(res.status, 405);
      assert.equal(res.headers.get("allow"), "POST");
      await res.body?.cancel();
    }
    const res = await fetch(url, { method: "POST", headers: MCP_POST_HEADERS, body: INIT });
    assert.equal(res.headers.get("content-type"), "application/json", "answers plain JSON");
    assert.equal(res.headers.get("mcp-session-id"), null);
    assert.match(await res.text(), /"serverInfo":\{"name":"handoff-mcp"/);
  } finally {
    await server.close();
  }
});

Deno.test("on Deno Deploy without a long enough AUTH_TOKEN every request gets 503", async () => {
  for (const token of ["", "too-short"]) {
    const server = await startServer({ env: { DENO_DEPLOYMENT_ID: "test", AUTH_TOKEN: token } });
    try {
      for (const path of ["/healthz", "/mcp", "/anything/mcp", "/sse"]) {
        const res = await fetch(`${server.origin}${path}`, {
          method: path === "/mcp" ? "POST" : "GET",
        });
        assert.equal(res.status, 503);
        assert.match(await res.text(), /AUTH_TOKEN/);
      }
    } finally {
      await server.close();
    }
  }
});

Deno.test("on Deno Deploy with a long token, requests from other sites are served", async () => {
  const token = "d".repeat(40);
  const server = await startServer({ env: { DENO_DEPLOYMENT_ID: "test", AUTH_TOKEN: token } });
  try {
    const res = await fetch(`${server.origin}/${token}/mcp`, {
      method: "POST",
      headers: { ...MCP_POST_HEADERS, origin: "https://claude.ai" },
      body: INIT,
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    assert.equal(await rawStatus(server.origin, `/${token}/mcp`, "handoff.deno.dev"), 200);
  } finally {
    await server.close();
  }
});
