/**
 * Runs one real agent CLI non-interactively against the stub model and an MCP server, in a home
 * folder of its own: HOME, the XDG folders, CLAUDE_CONFIG_DIR and CODEX_HOME all point into a
 * temporary folder, the environment starts empty, and telemetry and update checks are off by the
 * variables and settings each CLI documents. Any proxied dial goes to a loopback recorder
 * (`dials`), so a test can tell whether a CLI tried to reach anything but loopback.
 */

import { join } from "node:path";
import type { Cli, Clients } from "./clients.ts";
import { ROOT } from "./harness.ts";

/** The MCP server a CLI is configured with: a Streamable HTTP URL or a stdio command. */
export type McpTarget =
  | { kind: "http"; url: string; headers?: Record<string, string> }
  | { kind: "stdio"; command: string; args: string[]; env?: Record<string, string> };

/** What one CLI run produced. */
export interface AgentRun extends CliRun {
  /** The CLI's home folder (removed by `cleanup`). */
  home: string;
  cleanup(): Promise<void>;
}

/** The name the MCP server is registered under in every CLI's configuration. */
export const SERVER_NAME = "handoff";

let denoDir: Promise<string> | undefined;

/** The Deno cache folder of this machine, so a stdio server started by a CLI finds its modules. */
export function hostDenoDir(): Promise<string> {
  denoDir ??= (async () => {
    const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output();
    return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir as string;
  })();
  return denoDir;
}

let warmed: Promise<void> | undefined;

/** Caches `main.ts`'s modules once, so a CLI's stdio child starts without fetching anything. */
export function warmServerCache(): Promise<void> {
  warmed ??= (async () => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["cache", join(ROOT, "main.ts")],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  })();
  return warmed;
}

/** `main.ts --stdio` on the KV file `kvPath`, as a CLI's stdio server entry. */
export async function stdioTarget(
  kvPath: string,
  env: Record<string, string> = {},
): Promise<McpTarget> {
  await warmServerCache();
  return {
    kind: "stdio",
    command: Deno.execPath(),
    // The README's stdio command, as a desktop config has it (deno.json found beside main.ts).
    args: [
      "run",
      "--allow-env",
      "--allow-read",
      "--allow-write",
      join(ROOT, "main.ts"),
      "--stdio",
    ],
    env: {
      KV_PATH: kvPath,
      DENO_DIR: await hostDenoDir(),
      DENO_NO_UPDATE_CHECK: "1",
      NO_COLOR: "1",
      ...env,
    },
  };
}

/** The environment of a CLI in `home`: the path, the CA bundle, the locale; nothing else leaks in. */
export function baseEnv(home: string, proxy: string): Record<string, string> {
  const keep = ["PATH", "LANG", "SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS"];
  const env: Record<string, string> = {};
  for (const name of keep) {
    const value = Deno.env.get(name);
    if (value) env[name] = value;
  }
  return {
    ...env,
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_DATA_HOME: join(home, ".local/share"),
    XDG_STATE_HOME: join(home, ".local/state"),
    TMPDIR: join(home, "tmp"),
    NO_COLOR: "1",
    // A `deno run` child (a stdio server, the stand-in browser) checks dl.deno.land otherwise.
    DENO_NO_UPDATE_CHECK: "1",
    TERM: "dumb",
    CI: "1",
    // Anything that honours a proxy dials the recorder instead of the network.
    HTTP_PROXY: proxy,
    HTTPS_PROXY: proxy,
    ALL_PROXY: proxy,
    http_proxy: proxy,
    https_proxy: proxy,
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
  };
}

/** A loopback listener that records where proxied dials meant to go, and refuses them. */
export interface DialRecorder {
  url: string;
  /** The first line of each proxied request (`CONNECT host:443 HTTP/1.1`, `GET http://…`). */
  dials: string[];
  close(): void;
}

/** Starts a {@link DialRecorder}. */
export function startDialRecorder(): DialRecorder {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const dials: string[] = [];
  (async () => {
    for await (const conn of listener) {
      (async () => {
        const buf = new Uint8Array(2048);
        const n = await conn.read(buf).catch(() => null);
        if (n) dials.push(new TextDecoder().decode(buf.subarray(0, n)).split("\r\n")[0]);
        await conn.write(new TextEncoder().encode("HTTP/1.1 403 Forbidden\r\n\r\n")).catch(
          () => {},
        );
        try {
          conn.close();
        } catch { /* already closed */ }
      })();
    }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    dials,
    close: () => listener.close(),
  };
}

/** A fresh home folder with its XDG and temp folders. */
export async function makeHome(): Promise<string> {
  const home = await Deno.makeTempDir({ prefix: "handoff-compat-home-" });
  for (const sub of [".config", ".cache", ".local/share", ".local/state", "tmp", "work"]) {
    await Deno.mkdir(join(home, sub), { recursive: true });
  }
  return home;
}

/** What {@link runCli} returns. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
  /**
   * With `COMPAT_STRACE=1` (and strace installed): every `connect()` the CLI and its children made
   * to anything but loopback or a Unix socket, as `family address:port`. Undefined otherwise.
   */
  connects?: string[];
}

/** The non-loopback targets of the `connect()` calls in an strace log. */
export function outsideConnects(trace: string): string[] {
  const out: string[] = [];
  for (const m of trace.matchAll(/connect\(\d+, \{sa_family=(AF_INET6?),([^}]*)\}/g)) {
    const port = m[2].match(/htons\((\d+)\)/)?.[1] ?? "?";
    const addr = m[2].match(/inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6, "([^"]+)"/);
    const host = addr?.[1] ?? addr?.[2] ?? "?";
    if (host === "127.0.0.1" || host === "::1" || host === "::ffff:127.0.0.1") continue;
    out.push(`${m[1]} ${host}:${port}`);
  }
  return out;
}

/** Runs `cli` with `args` in `cwd`, killed after `timeoutMs`. */
export async function runCli(
  cli: Cli,
  args: string[],
  options: { env: Record<string, string>; cwd: string; timeoutMs?: number },
): Promise<CliRun> {
  const started = Date.now();
  const trace = Deno.env.get("COMPAT_STRACE") === "1"
    ? `${await Deno.makeTempDir({ prefix: "handoff-compat-strace-" })}/connect.trace`
    : undefined;
  const [command, ...leading] = trace
    ? ["strace", "-f", "-qq", "--seccomp-bpf", "-e", "trace=connect", "-o", trace, cli.command]
    : [cli.command];
  const out = await new Deno.Command(command, {
    args: [...leading, ...cli.args, ...args],
    cwd: options.cwd,
    env: options.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(options.timeoutMs ?? 180_000),
  }).output();
  const dec = new TextDecoder();
  let connects: string[] | undefined;
  if (trace) {
    connects = outsideConnects(await Deno.readTextFile(trace));
    await Deno.remove(trace.replace(/\/[^/]+$/, ""), { recursive: true });
  }
  return {
    code: out.code,
    stdout: dec.decode(out.stdout),
    stderr: dec.decode(out.stderr),
    ms: Date.now() - started,
    connects,
  };
}

/** Options shared by the three runners. */
export interface AgentOptions {
  clients: Clients;
  /** The stub model's base URL (`StubModel.url`; Codex takes `openaiUrl`). */
  modelUrl: string;
  mcp: McpTarget;
  prompt: string;
  /** Where proxied dials go (`DialRecorder.url`). */
  proxy: string;
  /** Extra variables for the CLI. */
  env?: Record<string, string>;
  timeoutMs?: number;
}
