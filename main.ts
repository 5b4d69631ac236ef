/** handoff-mcp: durable AI work across chats, sessions and vendors, over MCP. */

import { fileURLToPath } from "node:url";
import { closedReason, type Config, loadConfig } from "./src/config.ts";
import { startHttpServer } from "./src/http/serve.ts";
import { serveStdio } from "./src/mcp/stdio.ts";
import { stdioCaller } from "./src/tools/caller.ts";
import { openKv } from "./src/kit/open_kv.ts";
import {
  defaultSelection,
  loadToolsets,
  prepareToolsets,
  reindexSearch,
  startSearchIndexer,
} from "./src/toolsets.ts";
import { checkSpeedSwitches } from "./src/kit/speed_switches.ts";
import { collectWhenIdle } from "./src/idle_collect.ts";
import { ownerConsole } from "./src/console/console.ts";
import { NoticeBus } from "./src/kit/notices.ts";
import { unfinishedImport } from "./src/backup/marker.ts";

/** Runs a start-up step; a failure ends the process with one clear line, not a stack trace. */
async function orExit<T>(what: string, step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    console.error(`handoff-mcp: ${what}: ${(error as Error).message}`);
    Deno.exit(1);
  }
}

/** The project folder: the default KV file lives here, whichever folder the process starts in. */
const projectDir = fileURLToPath(new URL(".", import.meta.url));

// Agent hooks (`--brief`, `--save-transcript`) always exit 0 and open KV only when they need it.
// Imported only here, so the server's module graph never loads the SDK's client side.
const hook = Deno.args.includes("--brief")
  ? "brief"
  : Deno.args.includes("--save-transcript")
  ? "save-transcript"
  : undefined;
if (hook !== undefined) {
  const { processHookRun, runHook } = await import("./src/hooks/cli.ts");
  Deno.exit(await runHook(hook, processHookRun(projectDir)));
}

const config: Config = await orExit(
  "configuration error",
  () => loadConfig(Deno.env, projectDir),
);
const toolsets = await orExit("configuration error", () => loadToolsets(Deno.env));
await orExit("configuration error", checkSpeedSwitches);
const kv = await orExit(
  `cannot open KV at ${config.kvPath ?? "the platform default"}`,
  () => openKv(config.kvPath),
);
await orExit("cannot bring the stored data up to date", () => prepareToolsets(toolsets, kv));

// A database an import left unfinished holds part of a file: serving it would hide the rest.
const unfinished = await orExit("cannot read KV", () => unfinishedImport(kv));
if (unfinished !== undefined) {
  console.error(`handoff-mcp: refusing to serve: ${unfinished}`);
  kv.close();
  Deno.exit(1);
}

// deno task reindex: rebuild the search index from the records, with a progress line.
if (Deno.args.includes("--reindex")) {
  let last = 0;
  const done = await reindexSearch(kv, (line) => {
    if (Date.now() - last < 1000) return;
    last = Date.now();
    console.error(line);
  });
  console.log(
    `search index rebuilt: ${done.items} items, ${done.passages} passages, ${done.ms} ms`,
  );
  kv.close();
  Deno.exit(0);
}

// The search index folds writes into segments in the background, in every server process.
const indexing = new AbortController();
startSearchIndexer(kv, Deno.env, indexing.signal);
// A server that falls idle after a busy spell gives back the memory the spell left behind.
collectWhenIdle(config.idleCollectMiB, indexing.signal);

if (Deno.args.includes("--stdio")) {
  const caller = await orExit("configuration error", () => stdioCaller(config, Deno.args));
  // A signal stops the reading of stdin, as its end would (the SDK's client closes stdin, then
  // sends SIGTERM two seconds later): what was received is still answered.
  const stop = new AbortController();
  stopOnSignals(() => stop.abort());
  await serveStdio({ kv, config, caller }, defaultSelection(toolsets), undefined, stop.signal);
  indexing.abort();
  kv.close();
  // Every answer is written by now. Requests still running after the grace period, or a read of
  // stdin still pending after a signal, must not keep the process alive.
  Deno.exit(0);
} else {
  // One notice bus for the process: the console's writes are heard as the tools' are.
  const notices = new NoticeBus(config.notices);
  const routes = await orExit(
    "configuration error",
    () => ownerConsole(Deno.env, config, kv, toolsets, notices),
  );
  const server = await orExit(
    `cannot listen on ${config.host}:${config.port}`,
    () => startHttpServer(config, kv, toolsets, { routes, notices }),
  );
  const shown = config.authToken === undefined
    ? server.mcpUrl
    : `${server.origin}/<AUTH_TOKEN>/mcp`;
  console.log(
    `handoff-mcp listening on ${server.origin} (toolsets: ${
      toolsets.map((t) => t.byDefault === false ? `${t.name} (when named)` : t.name).join(", ")
    })`,
  );
  console.log(`Connect an MCP client to: ${shown}`);
  if (config.oauth.enabled) {
    const origin = config.oauth.publicUrl ?? server.origin;
    console.log(
      `OAuth sign-in is on: hosted clients (Claude.ai, ChatGPT) connect to ${origin}/mcp`,
    );
  }
  const closed = closedReason(config);
  if (closed !== undefined) console.error(`handoff-mcp: refusing every request: ${closed}`);
  const signalled = config.onDeploy ? () => false : stopOnSignals(() => server.shutdown());
  await server.finished;
  indexing.abort();
  kv.close();
  // Connections still open after the grace period must not keep the process alive.
  if (signalled()) Deno.exit(0);
}

/**
 * Calls `stop` (which lets work in flight finish) on SIGINT or SIGTERM; a second signal exits at
 * once (the user gave up on the grace period). Returns whether a signal came. Used by the HTTP
 * server and by stdio, so it lives with the process, not in `http/`.
 */
function stopOnSignals(stop: () => unknown): () => boolean {
  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => {
      if (stopping) Deno.exit(130);
      stopping = true;
      void stop();
    });
  }
  return () => stopping;
}
