/**
 * The console's chat import and Markdown download: in headless Chromium a person uploads a
 * ChatGPT export zip and sees its progress and summary, then downloads the Markdown zip; with
 * fetch, an upload without the CSRF token, signed out or over CONSOLE_IMPORT_MAX_BYTES is refused
 * and writes nothing. What was imported is read back over MCP inside the untrusted wrapper.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { zipEntries } from "../src/backup/chats/zip.ts";
import { zipBytes } from "../src/backup/chats/zip_write.ts";
import { browserTest, screenshotPath } from "./support/browser.ts";
import { gptConversation } from "./support/chat_exports.ts";
import { codexClient, CONSOLE_ENV, fetchSignIn, OWNER_SECRET } from "./support/console.ts";
import { startServer } from "./support/harness.ts";

async function exportZip(): Promise<Uint8Array> {
  return await zipBytes([
    {
      name: "conversations-000.json",
      data: JSON.stringify([gptConversation("a", { branch: true })]),
    },
    {
      name: "conversations-001.json",
      data: JSON.stringify([gptConversation("b", { title: null })]),
    },
    { name: "user.json", data: "{}" },
  ]);
}

function multipart(
  fields: [string, string][],
  file: Uint8Array | null,
): { body: Blob; type: string } {
  const boundary = "----handoff" + crypto.randomUUID();
  const parts: BlobPart[] = [];
  for (const [name, value] of fields) {
    parts.push(
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
    );
  }
  if (file) {
    parts.push(
      `--${boundary}\r\nContent-Disposition: form-data; name="export"; filename="export.zip"\r\nContent-Type: application/zip\r\n\r\n`,
      file as Uint8Array<ArrayBuffer>,
      "\r\n",
    );
  }
  parts.push(`--${boundary}--\r\n`);
  return { body: new Blob(parts), type: `multipart/form-data; boundary=${boundary}` };
}

browserTest(
  "console in Chromium: upload a ChatGPT export, see its summary, download the Markdown",
  async (browser) => {
    const server = await startServer({ env: CONSOLE_ENV });
    const dir = await Deno.makeTempDir({ prefix: "console-import-" });
    const context = await browser.newContext({
      viewport: { width: 1000, height: 900 },
      acceptDownloads: true,
    });
    try {
      const zip = join(dir, "chatgpt-export.zip");
      await Deno.writeFile(zip, await exportZip());
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(`${server.origin}/console/login`);
      await page.getByLabel("Owner secret (OAUTH_OWNER_SECRET)").fill(OWNER_SECRET);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("link", { name: "Import & export" }).click();
      await page.getByRole("heading", { name: "Import your chats" }).waitFor();
      await page.getByLabel("Export file").setInputFiles(zip);
      await page.getByRole("button", { name: "Import" }).click();
      await page.getByRole("heading", { name: "Summary" }).waitFor();
      const main = String(await page.locator("main").textContent());
      assert.match(main, /Importing chatgpt-export\.zip/);
      assert.match(main, /imported 2, updated 0, unchanged 0, skipped 0; branches left out 1/);
      assert.match(main, /2 conversations done .* read/);
      assert.doesNotMatch(main, /handoff-import-/, "the temporary file is never named");
      await page.screenshot({ path: await screenshotPath("console_import"), fullPage: true });

      // Again: nothing changes.
      await page.getByRole("link", { name: "Import another" }).click();
      await page.getByLabel("Export file").setInputFiles(zip);
      await page.getByRole("button", { name: "Import" }).click();
      await page.getByRole("heading", { name: "Summary" }).waitFor();
      assert.match(
        String(await page.locator("main").textContent()),
        /imported 0, updated 0, unchanged 2/,
      );

      // What was imported is another session's text: fenced when an AI reads it.
      const codex = await codexClient(server.origin);
      try {
        const loaded = await codex.callTool({
          name: "handoff_load",
          arguments: { key: "chatgpt-a" },
        });
        const text = (loaded.content as { text: string }[]).map((c) => c.text).join("\n");
        assert.match(
          text,
          /UNTRUSTED DATA [\s\S]*## User[^\n]*\n\nuser 1 of a[\s\S]*END OF SAVED DATA/,
        );
        assert.doesNotMatch(text, /ABANDONED/);
      } finally {
        await codex.close();
      }

      await page.goto(`${server.origin}/console/import`);
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("link", { name: /Download the Markdown export/ }).click(),
      ]);
      const saved = join(dir, "md.zip");
      await download.saveAs(saved);
      const names = (await zipEntries(saved)).map((e) => e.name);
      assert.ok(names.includes("handoff-mcp-export/index.md"), names.join(" "));
      assert.ok(names.includes("handoff-mcp-export/handoffs/chatgpt-a.md"));
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
      await server.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test("console import: refused without the CSRF token, signed out, or over CONSOLE_IMPORT_MAX_BYTES; nothing written", async () => {
  const server = await startServer({
    env: { ...CONSOLE_ENV, CONSOLE_IMPORT_MAX_BYTES: String(2 ** 20) },
  });
  try {
    const session = await fetchSignIn(server.origin);
    const post = (fields: [string, string][], file: Uint8Array | null, cookie = session.cookie) => {
      const { body, type } = multipart(fields, file);
      return fetch(`${server.origin}/console/import`, {
        method: "POST",
        headers: { cookie, "content-type": type },
        body,
      });
    };
    const zip = await exportZip();
    const noCsrf = await post([], zip);
    assert.equal(noCsrf.status, 403);
    assert.match(await noCsrf.text(), /CSRF token is missing/);
    const signedOut = await post([["csrf", session.csrf]], zip, "");
    assert.equal(signedOut.status, 401);
    await signedOut.body?.cancel();
    const big = new Uint8Array(2 ** 20 + 10);
    const tooBig = await post([["csrf", session.csrf]], big);
    assert.equal(tooBig.status, 413);
    assert.match(await tooBig.text(), /over 1048576 bytes \(CONSOLE_IMPORT_MAX_BYTES\)/);
    assert.equal((await server.kv.get(["handoff", "chatgpt-a"])).value, null);
    const ok = await post([["csrf", session.csrf]], zip);
    assert.equal(ok.status, 200);
    assert.match(await ok.text(), /imported 2, updated 0/);
    assert.notEqual((await server.kv.get(["handoff", "chatgpt-a"])).value, null);
  } finally {
    await server.close();
  }
});
