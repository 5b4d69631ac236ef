/**
 * The `search` group's yardstick: SQLite FTS5 (bm25, `node:sqlite`) over the same corpus,
 * served by the SDK's minimal `createMcpHandler` server with one `search` tool. Reads the corpus
 * from the JSON lines file `CORPUS` (`{ id, title, body }`); prints `listening on <origin>` and
 * serves `/<AUTH_TOKEN>/mcp`.
 */

import { DatabaseSync } from "node:sqlite";
import { createMcpHandler, McpServer } from "../src/mcp/sdk.ts";
import { z } from "zod";
import { serveHandler } from "./serve_handler.ts";

const db = new DatabaseSync(":memory:");
db.exec(
  "CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, title, body, tokenize='unicode61 remove_diacritics 2')",
);
const insert = db.prepare("INSERT INTO docs VALUES (?, ?, ?)");
db.exec("BEGIN");
for (const line of (await Deno.readTextFile(Deno.env.get("CORPUS")!)).split("\n")) {
  if (line === "") continue;
  const d = JSON.parse(line) as { id: string; title: string; body: string };
  insert.run(d.id, d.title, d.body);
}
db.exec("COMMIT");
const query = db.prepare(
  "SELECT id, title, snippet(docs, 2, '«', '»', '…', 40) AS snippet FROM docs WHERE docs MATCH ? ORDER BY bm25(docs, 0, 3, 1) LIMIT 10",
);

const path = `/${Deno.env.get("AUTH_TOKEN")}/mcp`;
const input = z.object({ query: z.string() });
const handler = createMcpHandler(() => {
  const server = new McpServer({ name: "fts5", version: "1" });
  server.registerTool("search", { description: "FTS5 search", inputSchema: input }, (args) => {
    // Each word quoted, so FTS5's query syntax never misreads a word.
    const match = args.query.split(/\s+/).filter((w) => w !== "").map((w) =>
      `"${w.replaceAll('"', '""')}"`
    ).join(" ");
    const rows = query.all(match) as { id: string; title: string; snippet: string }[];
    const results = rows.map((r) => ({
      id: r.id,
      title: r.title,
      url: `x:${r.id}`,
      snippet: r.snippet,
    }));
    return { content: [{ type: "text", text: JSON.stringify({ results }) }] };
  });
  return server;
});

serveHandler(path, handler);
