/** End-to-end test harness: the real server on a free port, and SDK clients over each transport. */

import { fileURLToPath } from "node:url";
import { loadConfig } from "../../src/config.ts";
import { loadToolsets } from "../../src/toolsets.ts";
import { ownerConsole } from "../../src/console/console.ts";
import { type RunningServer, startHttpServer } from "../../src/http/serve.ts";
import {
  Client,
  SSEClientTransport,
  StdioClientTransport,
  StreamableHTTPClientTransport,
} from "../../src/client/sdk_client.ts";
import { randomToken } from "../../src/kit/ids.ts";
import { openKv } from "../../src/kit/open_kv.ts";
import { NoticeBus } from "../../src/kit/notices.ts";

/** The project's root folder, where `main.ts` lives. */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** A server started in this process for one test. */
export interface TestServer extends RunningServer {
  kv: Deno.Kv;
  token: string;
  /** Stops the server and closes its KV (unless the test passed its own). */
  close(): Promise<void>;
}

/** Starts the real HTTP server on a free loopback port with a fresh token. */
export async function startServer(
  options: { env?: Record<string, string>; kv?: Deno.Kv; now?: () => number } = {},
): Promise<TestServer> {
  const env = new Map(Object.entries({
    PORT: "0",
    KV_PATH: ":memory:",
    AUTH_TOKEN: randomToken(32),
    ...options.env,
  }));
  const config = loadConfig(env);
  const kv = options.kv ?? await openKv(config.kvPath);
  const toolsets = loadToolsets(env);
  const notices = new NoticeBus(config.notices);
  const routes = ownerConsole(env, config, kv, toolsets, notices, options.now);
  const running = await startHttpServer(config, kv, toolsets, {
    now: options.now,
    routes,
    notices,
  });
  return {
    ...running,
    kv,
    token: running.token!,
    async close() {
      await running.shutdown();
      if (!options.kv) kv.close();
    },
  };
}

/** The transports a test can reach a server over. */
export type HttpKind = "http" | "sse";

/**
 * An SDK client connected to `server` over Streamable HTTP or legacy SSE, sending `headers` with
 * every request (`x-client-name` to be someone else).
 */
export async function connect(
  server: { origin: string; token?: string },
  kind: HttpKind,
  headers: Record<string, string> = {},
) {
  const client = new Client({ name: `test-${kind}`, version: "1.0.0" });
  const base = `${server.origin}/${server.token}`;
  const requestInit = { headers };
  const transport = kind === "http"
    ? new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit })
    : new SSEClientTransport(new URL(`${base}/sse`), { requestInit });
  await client.connect(transport);
  return client;
}

/**
 * An SDK client talking to `main.ts --stdio` in a child process on the given KV file, with `env`
 * and command-line `flags` added.
 */
export async function connectStdio(
  kvPath: string,
  env: Record<string, string> = {},
  flags: string[] = [],
) {
  const client = new Client({ name: "test-stdio", version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "--allow-env", "--allow-read", "--allow-write", "main.ts", "--stdio", ...flags],
    cwd: ROOT,
    // The SDK passes only a few variables by default; DENO_DIR, proxies and the like must reach
    // the child too, or it cannot load its modules on a machine that sets them.
    env: { ...Deno.env.toObject(), KV_PATH: kvPath, NO_COLOR: "1", ...env },
    stderr: "pipe",
  });
  await client.connect(transport);
  return client;
}

/** A server running `main.ts` in a child process, as a user starts it. */
export interface ChildServer {
  origin: string;
  /** Everything the child printed on stdout. */
  output: string;
  /** Everything the child printed on stderr, once it has exited (after `close`). */
  stderr: Promise<string>;
  /** Stops the child: SIGTERM lets it shut down, SIGKILL does not. */
  close(signal?: Deno.Signal): Promise<void>;
}

/** Starts `main.ts` in a child process on a free port and waits for its connector line. */
export async function spawnServer(env: Record<string, string>): Promise<ChildServer> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net", "--allow-env", "--allow-read", "--allow-write", "main.ts"],
    cwd: ROOT,
    env: { PORT: "0", NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  // Read as it comes, so a talkative child never blocks on a full pipe.
  const stderr = new Response(child.stderr).text();
  let output = "";
  while (!/Connect an MCP client to: \S+\n/.test(output)) {
    const { value, done } = await reader.read();
    if (done) {
      throw new Error(`server exited before listening:\n${output}\n${await stderr}`);
    }
    output += value;
  }
  const origin = output.match(/listening on (http:\/\/\S+)/)![1];
  return {
    origin,
    output,
    stderr,
    async close(signal: Deno.Signal = "SIGTERM") {
      child.kill(signal);
      await child.status;
      await reader.cancel();
      await stderr;
    },
  };
}

export { call, type CallOutcome } from "./mcp.ts";

/** A fresh temporary KV file path; the folder is removed by `cleanup`. */
export async function tempKvPath(): Promise<{ path: string; cleanup(): Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "handoff-mcp-test-" });
  return {
    path: `${dir}/test.kv`,
    cleanup: () => Deno.remove(dir, { recursive: true }),
  };
}

/** Runs `deno task -q <args>` in the repository with `env` (NO_COLOR set), and its outcome. */
export async function runTask(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}
