/** Runs the agent hooks (`--brief`, `--save-transcript`) in this process, capturing their output. */

import { runHook } from "../../src/hooks/cli.ts";
import { connect } from "../../src/hooks/connection.ts";
import { ROOT, tempKvPath } from "./harness.ts";
import { startStubModel, type StubModel, type StubModelOptions } from "./stub_model.ts";
import { type Cli, type Clients, installClients } from "./clients.ts";
import { startDialRecorder, warmServerCache } from "./agents.ts";

/** What one hook run printed. */
export interface HookOutput {
  code: number;
  stdout: string;
  /** Each stderr line. */
  stderr: string[];
}

/** Runs hook `kind` with `env`, `args` and `stdin` (none: as from a terminal). */
export async function runHookHere(
  kind: "brief" | "save-transcript",
  options: { env: Record<string, string>; args?: string[]; stdin?: string },
): Promise<HookOutput> {
  let stdout = "";
  const stderr: string[] = [];
  const code = await runHook(kind, {
    args: options.args ?? [],
    env: new Map(Object.entries(options.env)),
    baseDir: ROOT,
    readStdin: () => Promise.resolve(options.stdin),
    write: (text) => stdout += text,
    warn: (line) => stderr.push(line),
  });
  return { code, stdout, stderr };
}

/** Calls tools on the store `env` names (a local KV or `HANDOFF_URL`), failing on an error. */
export async function withHookStore<T>(
  env: Record<string, string>,
  fn: (
    call: (name: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>,
  ) => Promise<T>,
): Promise<T> {
  const conn = await connect({ env: new Map(Object.entries(env)), baseDir: ROOT, args: [] });
  try {
    return await fn(async (name, args) => {
      const result = await conn.call(name, args);
      if (result.isError) throw new Error(`${name}: ${result.text}`);
      return result.structured;
    });
  } finally {
    await conn.close();
  }
}

/**
 * `cli` started inside a fresh git repository (the CLI's working folder) whose origin is
 * `Acme/Widget`, after the shell commands `prepare` (writing a project's hook settings).
 */
export function inGitRepo(cli: Cli, prepare = ":"): Cli {
  return {
    command: "sh",
    args: [
      "-c",
      `git init -q && git remote add origin git@github.com:Acme/Widget.git && ${prepare} && exec "$0" "$@"`,
      cli.command,
      ...cli.args,
    ],
  };
}

/** The pinned CLIs with the server's modules cached; `undefined` (said why) when npm is out of reach. */
export async function readyClients(): Promise<Clients | undefined> {
  const clients = await installClients();
  if ("skip" in clients) {
    console.warn(clients.skip);
    return undefined;
  }
  await warmServerCache();
  return clients;
}

/** What an agent CLI test runs against: a KV file, the stub model, and the dial recorder. */
export interface AgentRig {
  kvPath: string;
  stub: StubModel;
  /** The proxy URL every dial off loopback goes to (`DialRecorder.url`). */
  proxy: string;
}

/** Runs `fn` with a fresh {@link AgentRig}, and closes it after. */
export async function withAgentRig(
  stub: StubModelOptions,
  fn: (rig: AgentRig) => Promise<void>,
): Promise<void> {
  const kv = await tempKvPath();
  const model = await startStubModel(stub);
  const dials = startDialRecorder();
  try {
    await fn({ kvPath: kv.path, stub: model, proxy: dials.url });
  } finally {
    dials.close();
    await model.close();
    await kv.cleanup();
  }
}
