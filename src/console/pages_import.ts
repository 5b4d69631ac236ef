/**
 * `GET/POST /console/import` and `GET /console/export.zip`: the chat importer behind an upload
 * form, and the Markdown export as a download. The upload is streamed to a temporary file (never
 * held in memory, at most `CONSOLE_IMPORT_MAX_BYTES`), then read by the same importer as
 * `deno task import-chats`; its progress lines are streamed into the page as they happen.
 */

import { importChats } from "../backup/chats/importer.ts";
import { summaryLines } from "../backup/chats/cli.ts";
import { sourcesOf } from "../backup/chats/sources.ts";
import { ZipWriter } from "../backup/chats/zip_write.ts";
import { markdownFiles } from "../backup/markdown/export.ts";
import { secretMatches } from "../kit/secret.ts";
import { type ConsoleCtx, frameOf, type Signed } from "./context.ts";
import { csrfField, esc, notice, page } from "./html_layout.ts";
import { refusalPage } from "./html_login.ts";
import { boundaryOf, readUpload, UploadRefused } from "./multipart.ts";
import { CONSOLE_HEADERS, html } from "./web.ts";

/** `GET /console/import`: the upload form and the download link. */
export function showImport(ctx: ConsoleCtx, s: Signed): Promise<Response> {
  const frame = { ...frameOf(ctx, s), current: "import" as const };
  const off = ctx.handoffLimits === undefined
    ? notice("problem", "The handoff toolset is off (TOOLSETS): imported chats have nowhere to go.")
    : "";
  const body = `<h1>Import &amp; export</h1>
<section aria-labelledby="import-h"><h2 id="import-h">Import your chats</h2>${off}
<p>A ChatGPT, Claude or Gemini export (the zip as downloaded, or one of its JSON files), up to ${
    esc(mib(ctx.settings.importMaxBytes))
  } (CONSOLE_IMPORT_MAX_BYTES). Each conversation becomes a handoff; importing the same export again changes nothing.</p>
<form method="post" action="/console/import" enctype="multipart/form-data">${
    csrfField(s.session.csrf)
  }
<label for="export">Export file</label><input type="file" id="export" name="export" required>
<label class="inline"><input type="checkbox" name="keep_hidden" value="1"> Keep hidden and system messages and thoughts</label>
<div><button class="primary" type="submit">Import</button></div></form></section>
<section aria-labelledby="export-h"><h2 id="export-h">Export as Markdown</h2>
<p>Everything the server keeps as Markdown files with front matter and an index, in one zip.</p>
<p><a href="/console/export.zip" download>Download the Markdown export (zip)</a></p></section>`;
  return Promise.resolve(html(200, page("Import & export", frame, body)));
}

function mib(bytes: number): string {
  return bytes >= 2 ** 30 ? `${bytes / 2 ** 30} GiB` : `${Math.round(bytes / 2 ** 20)} MiB`;
}

/** `POST /console/import`: the upload, checked, stored in a temporary file, then imported. */
export async function runImport(ctx: ConsoleCtx, s: Signed): Promise<Response> {
  const req = s.r.req;
  const refuse = async (status: number, message: string) => {
    await req.body?.cancel().catch(() => {});
    return html(status, refusalPage("Import refused", message));
  };
  const origin = req.headers.get("origin");
  if (origin !== null && origin !== s.r.origin) {
    return await refuse(403, "This form was sent from another site.");
  }
  const boundary = boundaryOf(req.headers.get("content-type"));
  if (boundary === null || req.body === null) {
    return await refuse(415, "Send the export as multipart/form-data.");
  }
  const max = ctx.settings.importMaxBytes;
  if (Number(req.headers.get("content-length") ?? 0) > max + 64 * 1024) {
    return await refuse(413, `The upload is over ${max} bytes (CONSOLE_IMPORT_MAX_BYTES).`);
  }
  if (ctx.handoffLimits === undefined) {
    return await refuse(409, "The handoff toolset is off (TOOLSETS).");
  }
  let path: string;
  try {
    path = await Deno.makeTempFile({ prefix: "handoff-import-" });
  } catch {
    return await refuse(
      503,
      "Uploads need a writable temporary folder, which this server has not (on Deno Deploy, run deno task import-chats locally with KV_PATH set to the database's KV Connect URL).",
    );
  }
  let fileName = "export";
  let keepHidden = false;
  try {
    using file = await Deno.open(path, { write: true, truncate: true });
    const upload = await readUpload(req.body, boundary, {
      fileField: "export",
      file,
      maxBytes: max,
      setting: "CONSOLE_IMPORT_MAX_BYTES",
      beforeFile(fields) {
        if (!secretMatches(fields.get("csrf") ?? null, s.session.csrf)) {
          throw new UploadRefused(
            403,
            "The form's CSRF token is missing or does not match this sign-in. Open the page again and resend.",
          );
        }
      },
    });
    if (!upload.fileName) throw new UploadRefused(400, "No file was chosen.");
    fileName = upload.fileName;
    keepHidden = upload.fields.get("keep_hidden") === "1";
  } catch (error) {
    await Deno.remove(path).catch(() => {});
    if (error instanceof UploadRefused) return await refuse(error.status, error.message);
    throw error;
  }
  return importPage(ctx, s, path, fileName, keepHidden);
}

/** The page that shows the import as it runs: progress lines, then the summary. */
function importPage(
  ctx: ConsoleCtx,
  s: Signed,
  path: string,
  fileName: string,
  keepHidden: boolean,
): Response {
  const encoder = new TextEncoder();
  const frame = { ...frameOf(ctx, s), current: "import" as const };
  const [head, foot] = page("Importing", frame, "\u0000").split("\u0000");
  // The temporary file's name means nothing to the person: lines name the uploaded file.
  const named = (line: string) => line.split(path).join(fileName);
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      // A person who closes the page does not stop the import: it runs to its end.
      let open = true;
      const send = (text: string) => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          open = false;
        }
      };
      send(
        `${head}<h1>Importing ${
          esc(fileName)
        }</h1><section aria-labelledby="progress-h"><h2 id="progress-h">Progress</h2><ol id="progress">`,
      );
      try {
        const { sources, problems } = await sourcesOf([path]);
        for (const p of problems) send(`<li>${esc(named(p))}</li>`);
        const summary = await importChats(
          {
            kv: ctx.kv,
            limits: ctx.handoffLimits!,
            report: (line) => send(`<li>${esc(named(line))}</li>\n`),
          },
          sources,
          { ...ctx.importOptions, keepHidden },
        );
        send(`</ol></section><section aria-labelledby="summary-h"><h2 id="summary-h">Summary</h2>`);
        for (const line of summaryLines(summary, problems.length, false)) {
          send(`<p class="done" role="status">${esc(named(line))}</p>`);
        }
        if (summary.skipped.length > 0) {
          send(
            `<h2>Skipped</h2><ul>${
              summary.skipped.map((l) => `<li>${esc(named(l))}</li>`).join("")
            }</ul>`,
          );
        }
      } catch (error) {
        send(
          `</ol></section>${notice("problem", `The import failed: ${(error as Error).message}`)}`,
        );
      } finally {
        await Deno.remove(path).catch(() => {});
      }
      send(`<p><a href="/console/import">Import another</a></p></section>${foot}`);
      if (open) controller.close();
    },
  });
  return new Response(body, {
    status: 200,
    headers: { "content-type": "text/html; charset=utf-8", ...CONSOLE_HEADERS },
  });
}

/**
 * `GET /console/export.zip`: the Markdown export as one zip, written as it is read: one file is
 * held at a time, and the next is made only when the browser has taken the last.
 */
export function downloadExport(ctx: ConsoleCtx, _s: Signed): Promise<Response> {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const zip = new ZipWriter((bytes) => writer.write(bytes));
  (async () => {
    await markdownFiles(
      ctx.kv,
      (file) => zip.add({ name: `handoff-mcp-export/${file.path}`, data: file.text }),
    );
    await zip.finish();
    await writer.close();
  })().catch((error) => writer.abort(error).catch(() => {}));
  return Promise.resolve(
    new Response(readable, {
      status: 200,
      headers: {
        ...CONSOLE_HEADERS,
        "content-type": "application/zip",
        "content-disposition": 'attachment; filename="handoff-mcp-export.zip"',
      },
    }),
  );
}
