import assert from "node:assert/strict";
import { loadConfig } from "../config.ts";
import { AppError } from "../kit/errors.ts";
import { plain } from "../kit/web.ts";
import { defaultCaller } from "../tools/caller.ts";
import { whoamiToolset } from "../../tests/support/whoami.ts";
import { createHandler, type Handler } from "./handler.ts";
import { authenticate, clientNameHeader, keyringOf, resolveCaller } from "./identity.ts";

const MASTER = "m".repeat(32);
const CODEX = "c".repeat(32);
const MANUS = "n".repeat(32);
const keyring = keyringOf({
  master: MASTER,
  named: [{ name: "codex", token: CODEX }, { name: "Manus", token: MANUS }],
});
const ORIGIN = "http://127.0.0.1:8787";

function request(path: string, headers: Record<string, string> = {}): Request {
  return new Request(`${ORIGIN}/${path}`, { headers });
}

/** A header value as it arrives over the wire: the UTF-8 bytes, one character per byte. */
function wire(text: string): string {
  return String.fromCharCode(...new TextEncoder().encode(text));
}

Deno.test("authenticate() tells the master token from a named one, in the path and as bearer", async () => {
  const at = (path: string, headers: Record<string, string> = {}) => {
    const req = request(path, headers);
    return authenticate(req, new URL(req.url), keyring);
  };
  assert.deepEqual(await at(`${MASTER}/mcp`), {
    path: "mcp",
    base: `/${MASTER}/`,
    auth: { kind: "master" },
  });
  assert.deepEqual((await at(`${CODEX}/mcp`))?.auth, { kind: "named", name: "codex" });
  assert.deepEqual(await at("mcp", { authorization: `Bearer ${MANUS}` }), {
    path: "mcp",
    base: "/",
    auth: { kind: "named", name: "Manus" },
  });
  // A token in the path wins over a bearer one.
  assert.deepEqual(
    (await at(`${CODEX}/mcp`, { authorization: `Bearer ${MASTER}` }))?.auth,
    { kind: "named", name: "codex" },
  );
  assert.equal(await at(`${CODEX}x/mcp`), undefined);
  assert.equal(await at("mcp", { authorization: `Bearer ${CODEX.slice(1)}` }), undefined);
  assert.equal(await at("mcp"), undefined);
});

Deno.test("resolveCaller() ranks oauth over a named token over X-Client-Name over the default", () => {
  const req = request("mcp", { "x-client-name": "gemini" });
  const bare = request("mcp");
  const oauth = { kind: "oauth" as const, clientId: "client-1", name: "alice" };
  assert.deepEqual(resolveCaller(oauth, req, "owner"), {
    name: "alice",
    via: "oauth",
    clientId: "client-1",
  });
  assert.deepEqual(resolveCaller({ kind: "named", name: "codex" }, req, "owner"), {
    name: "codex",
    via: "token",
  });
  assert.deepEqual(resolveCaller({ kind: "master" }, req, "owner"), {
    name: "gemini",
    via: "header",
  });
  assert.deepEqual(resolveCaller({ kind: "master" }, bare, "owner"), {
    name: "owner",
    via: "default",
  });
});

Deno.test("clientNameHeader() decodes UTF-8 and refuses, never cuts, a bad or long name", () => {
  const name = (value: string) => clientNameHeader(request("mcp", { "x-client-name": value }));
  assert.equal(name(wire("Zoë 😀")), "Zoë 😀");
  assert.equal(name("a".repeat(140)), "a".repeat(140));
  assert.equal(name(wire("é".repeat(140))), "é".repeat(140));
  const refused = (value: string, pattern: RegExp) =>
    assert.throws(() => name(value), (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.kind, "invalid");
      assert.equal(error.code, "invalid_client_name");
      assert.match(error.message, pattern);
      return true;
    });
  refused("a".repeat(141), /141 characters; at most 140/);
  refused(wire("é".repeat(141)), /141 characters/);
  refused("\xe9t\xe9", /not well-formed UTF-8/);
  refused(wire("a\u0001b"), /one line/);
  refused("a\tb", /control/);
  assert.equal(clientNameHeader(request("mcp")), undefined);
});

async function withHandler(
  env: Record<string, string>,
  fn: (handler: Handler) => Promise<void>,
): Promise<void> {
  const config = loadConfig(new Map(Object.entries({ KV_PATH: ":memory:", ...env })));
  const kv = await Deno.openKv(":memory:");
  const routes = [
    { path: "open", public: true, methods: { GET: () => plain(200, "public") } },
    { path: "closed", methods: { GET: () => plain(200, "private") } },
  ];
  const handler = createHandler({
    kv,
    config,
    toolsets: [whoamiToolset(routes)],
    token: MASTER,
    caller: defaultCaller(config),
  });
  try {
    await fn(handler);
  } finally {
    await handler.close();
    kv.close();
  }
}

const ENV = { AUTH_TOKENS: `codex=${CODEX},Manus=${MANUS}`, DEFAULT_CLIENT_NAME: "team" };
const WHOAMI = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "whoami" } };

/** The JSON-RPC message of a plain JSON answer, or of an SSE body's one event. */
async function rpcResult(res: Response): Promise<Record<string, unknown>> {
  if (res.headers.get("content-type") === "application/json") return await res.json();
  const text = await res.text();
  const data = text.split("\n").find((line) => line.startsWith("data: "));
  assert.ok(data, text);
  return JSON.parse(data.slice(6));
}

async function whoamiOverStreamable(
  handler: Handler,
  path: string,
  headers: Record<string, string> = {},
) {
  const res = await handler(
    new Request(`${ORIGIN}/${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify(WHOAMI),
    }),
  );
  assert.equal(res.status, 200);
  const message = await rpcResult(res);
  return (message.result as { structuredContent: unknown }).structuredContent;
}

Deno.test("Streamable HTTP: the caller resolved per request reaches the tool handler", async () => {
  await withHandler(ENV, async (handler) => {
    assert.deepEqual(await whoamiOverStreamable(handler, `${CODEX}/mcp`), {
      name: "codex",
      via: "token",
    });
    assert.deepEqual(
      await whoamiOverStreamable(handler, "mcp", { authorization: `Bearer ${MANUS}` }),
      { name: "Manus", via: "token" },
    );
    assert.deepEqual(
      await whoamiOverStreamable(handler, `${CODEX}/mcp`, { "x-client-name": "label" }),
      { name: "codex", via: "token" },
    );
    assert.deepEqual(
      await whoamiOverStreamable(handler, `${MASTER}/mcp`, { "x-client-name": wire("Zoë") }),
      { name: "Zoë", via: "header" },
    );
    assert.deepEqual(await whoamiOverStreamable(handler, `${MASTER}/mcp`), {
      name: "team",
      via: "default",
    });
  });
});

Deno.test("an X-Client-Name over 140 characters is a 400 invalid_client_name, on every route", async () => {
  await withHandler(ENV, async (handler) => {
    for (const path of ["mcp", "messages?sessionId=x", "closed"]) {
      const res = await handler(
        new Request(`${ORIGIN}/${MASTER}/${path}`, {
          method: path === "closed" ? "GET" : "POST",
          headers: { "x-client-name": "x".repeat(141), "content-type": "application/json" },
          body: path === "closed" ? undefined : JSON.stringify(WHOAMI),
        }),
      );
      assert.equal(res.status, 400, path);
      const body = await res.json();
      assert.equal(body.code, "invalid_client_name");
      assert.match(body.error, /X-Client-Name is 141 characters; at most 140/);
    }
  });
});

Deno.test("legacy SSE: each POST's own caller reaches the tool handler", async () => {
  await withHandler(ENV, async (handler) => {
    const stream = await handler(request(`${MASTER}/sse`));
    assert.equal(stream.status, 200);
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    const nextEvent = async (): Promise<{ event: string; data: string }> => {
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith(":")) continue;
          const event = block.match(/^event: (.*)$/m)![1];
          const data = block.match(/^data: (.*)$/m)![1];
          return { event, data };
        }
        const { value, done } = await reader.read();
        if (done) throw new Error("stream ended");
        buffer += value;
      }
    };
    const endpoint = await nextEvent();
    assert.equal(endpoint.event, "endpoint");
    const sessionId = new URL(endpoint.data, ORIGIN).searchParams.get("sessionId");
    const post = async (path: string, headers: Record<string, string>, id: number) => {
      const res = await handler(
        new Request(`${ORIGIN}/${path}?sessionId=${sessionId}`, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: JSON.stringify({ ...WHOAMI, id }),
        }),
      );
      assert.equal(res.status, 202);
      await res.body?.cancel();
      const message = JSON.parse((await nextEvent()).data);
      assert.equal(message.id, id);
      return message.result.structuredContent;
    };
    assert.deepEqual(await post(`${CODEX}/messages`, {}, 1), { name: "codex", via: "token" });
    assert.deepEqual(await post(`${MASTER}/messages`, { "x-client-name": "gemini" }, 2), {
      name: "gemini",
      via: "header",
    });
    assert.deepEqual(await post("messages", { authorization: `Bearer ${MANUS}` }, 3), {
      name: "Manus",
      via: "token",
    });
    assert.deepEqual(await post(`${MASTER}/messages`, {}, 4), { name: "team", via: "default" });
    await reader.cancel();
  });
});

Deno.test("a public route is served without the token; other routes still need it", async () => {
  await withHandler(ENV, async (handler) => {
    const get = async (path: string) => {
      const res = await handler(request(path));
      return [res.status, await res.text()];
    };
    assert.deepEqual(await get("open"), [200, "public"]);
    assert.deepEqual(await get("closed"), [404, "Not found"]);
    assert.deepEqual(await get(`${MASTER}/closed`), [200, "private"]);
    // A public route lives at its own path only, not behind the token.
    assert.deepEqual(await get(`${MASTER}/open`), [404, "Not found"]);
  });
});
