/**
 * The real agent CLIs of the compatibility suite, installed from npm at pinned versions into
 * `.cache/clients/<versions>/` (gitignored) and reused while the versions stay the same.
 *
 * Without a reachable registry the suite skips with a message; under `CI=true` (or
 * `REQUIRE_CLIENTS=1`, set by `.ci/run`) an unreachable registry is an error instead, so CI never
 * passes without the clients. A failed install is always an error.
 */

import { join } from "node:path";
import { ROOT } from "./harness.ts";

/** The pinned npm packages, all of which run on Node 20. */
export const CLIENT_PACKAGES = {
  "@anthropic-ai/claude-code": "2.1.197",
  "@google/gemini-cli": "0.61.0",
  "@openai/codex": "0.171.0",
  "mcp-remote": "0.15.1",
} as const;

/**
 * The newest Claude Code, tested beside the pinned one: it defers every MCP tool behind its
 * ToolSearch step. Installed in a folder of its own (its platform package would clash with the
 * pinned one's in one `node_modules`).
 */
export const NEWEST_CLAUDE = { "@anthropic-ai/claude-code": "2.1.332" } as const;

/** A command and the leading arguments that start one CLI. */
export interface Cli {
  command: string;
  args: string[];
}

/** The installed CLIs. */
export interface Clients {
  /** The install folder (holds `node_modules/`). */
  dir: string;
  claude: Cli;
  /** The newest Claude Code ({@link NEWEST_CLAUDE}). */
  claudeNewest: Cli;
  gemini: Cli;
  codex: Cli;
  /** `mcp-remote`'s stdio proxy (`dist/proxy.js`). */
  mcpRemote: Cli;
  /** The versions installed, as pinned. */
  versions: typeof CLIENT_PACKAGES & { claudeNewest: string };
  /** How long getting them took and whether the cache had them. */
  install: { ms: number; cached: boolean };
}

/** Why the suite is skipped (no registry), when it is. */
export interface Skipped {
  skip: string;
}

const CACHE = join(ROOT, ".cache", "clients");

/** A package set's folder name under `.cache/clients/`: its names and versions. */
function keyOf(packages: Record<string, string>): string {
  return Object.entries(packages)
    .map(([name, version]) => `${name.replace(/^@[^/]+\//, "")}-${version}`).join("_");
}

/** True under CI, where the suite must run and never skip. */
export function inCi(): boolean {
  return Deno.env.get("CI") === "true" || Deno.env.get("REQUIRE_CLIENTS") === "1";
}

let pending: Promise<Clients | Skipped> | undefined;

/** The CLIs, installed on first use (once per process); `{ skip }` when npm is unreachable. */
export function installClients(): Promise<Clients | Skipped> {
  pending ??= install();
  return pending;
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

async function npm(args: string[], cwd: string, timeoutMs: number) {
  const out = await new Deno.Command("npm", {
    args,
    cwd,
    env: { NO_UPDATE_NOTIFIER: "1", npm_config_update_notifier: "false", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(timeoutMs),
  }).output();
  const dec = new TextDecoder();
  return { ok: out.success, text: dec.decode(out.stdout) + dec.decode(out.stderr) };
}

async function install(): Promise<Clients | Skipped> {
  const started = Date.now();
  const [pinned, newest] = await Promise.all([
    installSet(CLIENT_PACKAGES),
    installSet(NEWEST_CLAUDE),
  ]);
  if ("skip" in pinned) return pinned;
  if ("skip" in newest) return newest;
  const modules = join(pinned.dir, "node_modules");
  return {
    dir: pinned.dir,
    ...await commands(modules),
    claudeNewest: await claudeOf(join(newest.dir, "node_modules")),
    versions: { ...CLIENT_PACKAGES, claudeNewest: NEWEST_CLAUDE["@anthropic-ai/claude-code"] },
    install: { ms: Date.now() - started, cached: pinned.cached && newest.cached },
  };
}

/** Installs `packages` into their own folder (once), or says why the suite is skipped. */
async function installSet(
  packages: Record<string, string>,
): Promise<{ dir: string; cached: boolean } | Skipped> {
  const key = keyOf(packages);
  const dir = join(CACHE, key);
  const cached = await exists(join(dir, "installed"));
  if (cached) return { dir, cached };
  await Deno.mkdir(CACHE, { recursive: true });
  // One quick try: each test file asks again when the registry is away.
  const probe = await npm(
    ["view", "mcp-remote@0.15.1", "version", "--fetch-retries=0", "--fetch-timeout=15000"],
    CACHE,
    30_000,
  ).catch((e) => ({ ok: false, text: String(e) }));
  if (!probe.ok) {
    const said = probe.text.trim().slice(0, 300) || "no answer within 30 s";
    const why = `npm registry unreachable (npm view failed: ${said})`;
    if (inCi()) throw new Error(`compatibility suite: ${why}; CI requires the real clients`);
    return { skip: `compatibility suite skipped: ${why}` };
  }
  // Install beside the final folder and rename it in place, so a second process installing
  // at the same time never sees (or leaves) a half-installed folder.
  const tmp = `${dir}.tmp-${Deno.pid}-${Date.now()}`;
  await Deno.mkdir(tmp, { recursive: true });
  await Deno.writeTextFile(
    join(tmp, "package.json"),
    JSON.stringify({ private: true, dependencies: packages }, null, 2),
  );
  // Install scripts stay off: the CLIs run without them (Claude Code's native binary is taken
  // from its platform package), and no build step of a dependency runs on this machine.
  const res = await npm(
    ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--no-package-lock"],
    tmp,
    600_000,
  );
  if (!res.ok) {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
    throw new Error(`compatibility suite: npm install of ${key} failed:\n${res.text}`);
  }
  await Deno.writeTextFile(join(tmp, "installed"), key + "\n");
  try {
    await Deno.rename(tmp, dir);
  } catch {
    await Deno.remove(tmp, { recursive: true }).catch(() => {}); // another process won
  }
  return { dir, cached };
}

/** Claude Code's native binary from its platform package, or its Node wrapper. */
async function claudeOf(modules: string): Promise<Cli> {
  const platform = `${Deno.build.os === "darwin" ? "darwin" : "linux"}-${
    Deno.build.arch === "aarch64" ? "arm64" : "x64"
  }`;
  const native = join(modules, "@anthropic-ai", `claude-code-${platform}`, "claude");
  return await exists(native)
    ? { command: native, args: [] }
    : { command: "node", args: [join(modules, "@anthropic-ai/claude-code/cli-wrapper.cjs")] };
}

async function commands(
  modules: string,
): Promise<Omit<Clients, "dir" | "versions" | "install" | "claudeNewest">> {
  const node = (script: string): Cli => ({ command: "node", args: [join(modules, script)] });
  return {
    claude: await claudeOf(modules),
    gemini: node("@google/gemini-cli/bundle/gemini.js"),
    codex: node("@openai/codex/bin/codex.js"),
    mcpRemote: node("mcp-remote/dist/proxy.js"),
  };
}
