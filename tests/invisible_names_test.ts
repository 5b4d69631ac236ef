/**
 * Names that look like others (issue 23 case 6): zero-width and bidi-control characters are
 * refused where a name enters (X-Client-Name, OAuth registration), naming the character, and a
 * stored name a page shows cannot reorder the page's own text.
 */

import assert from "node:assert/strict";
import { renderConsent } from "../src/oauth/consent.ts";
import { browserTest } from "./support/browser.ts";
import { startServer } from "./support/harness.ts";

/** `text`'s UTF-8 bytes as a header value (fetch sends each char below 256 as one byte). */
function headerBytes(text: string): string {
  return String.fromCharCode(...new TextEncoder().encode(text));
}

Deno.test("X-Client-Name bob\\u200B is a 400 naming U+200B, and nothing is called", async () => {
  const server = await startServer();
  try {
    for (const [name, code] of [["bob\u200B", "U+200B"], ["\u202EedualC", "U+202E"]]) {
      const res = await fetch(`${server.origin}/${server.token}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "x-client-name": headerBytes(name),
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
      assert.equal(res.status, 400, code);
      const body = await res.json();
      assert.equal(body.code, "invalid_client_name");
      assert.match(body.error, new RegExp(`X-Client-Name holds ${code.replace("+", "\\+")}`));
    }
  } finally {
    await server.close();
  }
});

Deno.test("OAuth registration refuses a client_name with U+202E, naming it, and registers nothing", async () => {
  const server = await startServer({ env: { OAUTH: "on", OAUTH_OWNER_SECRET: "s".repeat(32) } });
  try {
    const register = (name: string) =>
      fetch(`${server.origin}/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: name, redirect_uris: ["https://app.example/cb"] }),
      });
    for (const [name, code] of [["\u202EedualC", "U+202E"], ["Claude\u200D", "U+200D"]]) {
      const refused = await register(name);
      assert.equal(refused.status, 400);
      const body = await refused.json();
      assert.equal(body.error, "invalid_client_metadata");
      assert.match(
        body.error_description,
        new RegExp(`client_name holds ${code.replace("+", "\\+")}`),
      );
    }
    const ok = await register("Claude");
    assert.equal(ok.status, 201);
    assert.equal((await ok.json()).client_name, "Claude");
  } finally {
    await server.close();
  }
});

/** A consent page for an app whose stored name is `name` (one registered before names were checked). */
function consentFor(name: string): string {
  return renderConsent({
    clientName: name,
    clientId: "client_01",
    redirectHost: "127.0.0.1:9",
    csrf: "c",
    ownerSecretSet: true,
  });
}

Deno.test("the consent page isolates the app's name and shows its direction controls", () => {
  const html = consentFor("\u202EedualC");
  assert.match(html, /<q><bdi>\[U\+202E\]edualC<\/bdi><\/q>/);
  assert.match(html, /<strong><bdi>\[U\+202E\]edualC<\/bdi><\/strong> asks to use/);
  assert.doesNotMatch(html, /\u202E/, "no override reaches the page");
});

/**
 * Run in the page (a string: the DOM's types are not this program's): the left edge of each
 * letter of "asks" in the sentence after the name, and of the name's "e" and "C".
 */
const WHERE_DRAWN = `(() => {
  const at = (node, i) => {
    const range = document.createRange();
    range.setStart(node, i);
    range.setEnd(node, i + 1);
    return range.getBoundingClientRect().left;
  };
  const p = [...document.querySelectorAll("p")].find((e) => e.textContent.includes("asks"));
  const after = [...p.childNodes].find((n) => n.nodeType === 3 && n.textContent.includes("asks"));
  const asks = after.textContent.indexOf("asks");
  const name = (document.querySelector("strong bdi") ?? document.querySelector("strong")).firstChild;
  const shown = name.textContent;
  return {
    asks: [0, 1, 2, 3].map((i) => at(after, asks + i)),
    name: [shown.indexOf("e"), shown.indexOf("C")].map((i) => at(name, i)),
    heading: document.querySelector("h1").textContent,
  };
})()`;

browserTest(
  "in Chromium, a name \\u202EedualC neither shows as Claude nor reverses the consent sentence",
  async (browser) => {
    const page = await browser.newPage({ viewport: { width: 900, height: 700 } });
    await page.setContent(consentFor("\u202EedualC"));
    // Where each letter is drawn: the server's own words must read left to right after the name.
    const lefts = await page.evaluate(WHERE_DRAWN) as {
      asks: number[];
      name: number[];
      heading: string;
    };
    const [a, s, k, s2] = lefts.asks;
    assert.ok(a < s && s < k && k < s2, `"asks" reads left to right: ${lefts.asks}`);
    const [e, c] = lefts.name;
    assert.ok(e < c, `the name reads as stored (edualC), never as Claude: ${lefts.name}`);
    assert.match(String(lefts.heading), /Connect \[U\+202E\]edualC\?/);
    await page.close();
  },
);
