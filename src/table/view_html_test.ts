import assert from "node:assert/strict";
import { discussionPage } from "./view_html.ts";

Deno.test("/view's discussion page shows stored names and titles direction-isolated", () => {
  const author = { name: "\u202Eevil", via: "header" as const };
  const html = discussionPage(
    {
      id: "01J",
      workspace: "acme/\u2067shop",
      title: "Plan \u202Eoh",
      created_by: author,
      created_at: "2026-03-01T09:00:00.000Z",
      latest_seq: 1,
      last_message_at: "2026-03-01T09:00:00.000Z",
    },
    [{
      discussion_id: "01J",
      seq: 1,
      kind: "note",
      body: "hi",
      in_reply_to: null,
      author,
      created_at: "2026-03-01T09:00:00.000Z",
    }],
    "UTC",
  );
  assert.match(html, /<h1><bdi>Plan \[U\+202E\]oh<\/bdi><\/h1>/);
  assert.match(html, /← <bdi>acme\/\[U\+2067\]shop<\/bdi>/);
  assert.match(html, /Opened by <bdi>\[U\+202E\]evil<\/bdi> <span class="via">via header/);
  assert.match(html, /<title>\u2068Plan \[U\+202E\]oh\u2069<\/title>/);
  assert.doesNotMatch(html, /[\u202A-\u202E\u2066\u2067]/, "no direction control reaches the page");
});
