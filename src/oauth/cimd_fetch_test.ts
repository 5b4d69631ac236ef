import assert from "node:assert/strict";
import { CimdError, clientIdUrl, fetchMetadataDocument, isMetadataClientId } from "./cimd_fetch.ts";
import { loadOAuthSettings } from "./settings.ts";

const strict = loadOAuthSettings(new Map());
const testing = loadOAuthSettings(new Map([["OAUTH_CIMD_ALLOW_LOOPBACK", "on"]]));

Deno.test("clientIdUrl() takes a normalised https URL with a path, and nothing else", () => {
  assert.equal(isMetadataClientId("https://app.example/c.json"), true);
  assert.equal(isMetadataClientId("client_01jx"), false);
  assert.equal(clientIdUrl("https://app.example/c.json", strict).host, "app.example");
  const refused: [string, RegExp][] = [
    ["http://app.example/c.json", /must use https/],
    ["https://user@app.example/c.json", /user name, password or fragment/],
    ["https://app.example/c.json#x", /user name, password or fragment/],
    ["https://app.example/", /a path other than \//],
    ["https://app.example", /a path other than \//],
    ["https://APP.example/c.json", /normalised URL .*\(https:\/\/app\.example\/c\.json\)/],
    ["https://app.example/a/%2e%2e/c.json", /normalised URL without \. or \.\. segments/],
    [`https://app.example/${"x".repeat(600)}`, /at most 512 characters/],
    ["https://", /not a URL/],
  ];
  for (const [id, why] of refused) {
    assert.throws(
      () => clientIdUrl(id, strict),
      (e) => e instanceof CimdError && why.test(e.message),
      id,
    );
  }
  assert.throws(() => clientIdUrl("http://127.0.0.1:9/c.json", strict), /must use https/);
  assert.equal(clientIdUrl("http://127.0.0.1:9/c.json", testing).port, "9");
  assert.equal(clientIdUrl("http://localhost:9/c.json", testing).hostname, "localhost");
  assert.throws(() => clientIdUrl("http://app.example/c.json", testing), /must use https/);
});

Deno.test("fetchMetadataDocument() refuses loopback names and addresses without the testing setting, before any request", async () => {
  for (
    const id of ["https://localhost/c.json", "https://127.0.0.1/c.json", "https://[::1]/c.json"]
  ) {
    await assert.rejects(
      fetchMetadataDocument(new URL(id), strict),
      (e) =>
        e instanceof CimdError &&
        /loopback address \(allowed only with OAUTH_CIMD_ALLOW_LOOPBACK=on/.test(e.message),
      id,
    );
  }
  await assert.rejects(
    fetchMetadataDocument(new URL("https://10.0.0.8/c.json"), testing),
    /host 10\.0\.0\.8 is a private address/,
  );
});
