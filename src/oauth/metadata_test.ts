import assert from "node:assert/strict";
import { isOwnResource, publicOrigin } from "./metadata.ts";
import { loadOAuthSettings } from "./settings.ts";

Deno.test("isOwnResource() accepts this server's origin and MCP endpoints, nothing else", () => {
  const origin = "https://handoff.example";
  for (
    const ok of [
      "https://handoff.example",
      "https://handoff.example/",
      "https://handoff.example/mcp",
      "https://handoff.example/mcp/",
      "https://handoff.example/mcp?toolsets=focus",
      "https://handoff.example/mcp?toolsets=memory&graph=shop",
      "https://handoff.example/sse?graph=shop",
      "https://handoff.example/sse",
    ]
  ) assert.equal(isOwnResource(ok, origin), true, ok);
  for (
    const bad of [
      "https://other.example/mcp",
      "http://handoff.example/mcp",
      "https://handoff.example:8443/mcp",
      "https://handoff.example/mcp#x",
      "https://handoff.example/api",
      "not a url",
    ]
  ) assert.equal(isOwnResource(bad, origin), false, bad);
});

Deno.test("isOwnResource() refuses userinfo, other queries and text the parser would clean (issue 23, case 15)", () => {
  const origin = "http://127.0.0.1:8787";
  assert.equal(isOwnResource("http://127.0.0.1:8787/mcp", origin), true);
  for (
    const bad of [
      "http://x@127.0.0.1:8787/mcp",
      "http://x:y@127.0.0.1:8787/mcp",
      "http://@127.0.0.1:8787/mcp",
      "http://:@127.0.0.1:8787/",
      "http://127.0.0.1:8787/mcp?toolsets=focus&next=https://other.example",
      "http://127.0.0.1:8787/mcp?x=1",
      "http:\\\\127.0.0.1:8787\\mcp",
      " http://127.0.0.1:8787/mcp",
      "http://127.0.0.1:8787/mcp#",
    ]
  ) assert.equal(isOwnResource(bad, origin), false, bad);
});

Deno.test("publicOrigin() ignores a malformed forwarded host even when trusted", () => {
  const settings = loadOAuthSettings(new Map([["TRUST_PROXY", "on"]]));
  const req = new Request("http://127.0.0.1:8787/mcp", {
    headers: { "x-forwarded-proto": "https", "x-forwarded-host": "evil.example/path" },
  });
  assert.equal(publicOrigin(req, settings), "https://127.0.0.1:8787");
});
