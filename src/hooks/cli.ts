/**
 * `main.ts --brief` and `main.ts --save-transcript`, as agent hooks run them. A hook never breaks
 * a session: whatever fails (no server, a KV file that cannot be opened, a bad transcript, the
 * time running out) is said once on stderr, secrets masked, and the process exits 0.
 */

import type { EnvSource } from "../kit/env.ts";
import { intVar } from "../kit/env.ts";
import { buildBrief } from "./brief.ts";
import { connect, type HookConnection } from "./connection.ts";
import { maskSecrets } from "./mask.ts";
import { resolveProjectId } from "./project_id.ts";
import { saveSession } from "./save.ts";
import { loadTranscriptLimits, openTranscript } from "./transcript_file.ts";

/** Default time a hook may take before it gives up (`HOOK_TIMEOUT_MS`), under the agents' own. */
export const DEFAULT_HOOK_TIMEOUT_MS = 20_000;
/** How long the brief waits for hook JSON on stdin before going on without it. */
const BRIEF_STDIN_MS = 1_000;

/** What a hook run needs from its process. */
export interface HookRun {
  args: readonly string[];
  env: EnvSource;
  /** The project folder (where `main.ts` is), for the default KV file. */
  baseDir: string;
  /** Reads all of stdin; `undefined` when it is a terminal. */
  readStdin(): Promise<string | undefined>;
  write(text: string): void;
  warn(line: string): void;
}

/** Runs the hook `kind`; always resolves (to the exit code, 0). */
export async function runHook(kind: "brief" | "save-transcript", run: HookRun): Promise<number> {
  const secrets: string[] = [run.env.get("HANDOFF_TOKEN") ?? "", run.env.get("AUTH_TOKEN") ?? ""];
  const say = (what: string) =>
    run.warn(`handoff-mcp ${kind}: ${maskSecrets(what, secrets).split("\n")[0]}`);
  let timeoutMs: number;
  try {
    timeoutMs = intVar(run.env, "HOOK_TIMEOUT_MS", DEFAULT_HOOK_TIMEOUT_MS, 100, 600_000);
  } catch (error) {
    say((error as Error).message);
    return 0;
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) =>
    timer = setTimeout(() => resolve("late"), timeoutMs)
  );
  const work = (kind === "brief" ? brief(run) : saveTranscript(run)).then(
    (line) => ({ line }),
    (error: Error) => ({ error }),
  );
  const outcome = await Promise.race([work, late]);
  clearTimeout(timer);
  if (outcome === "late") {
    say(
      `gave up after HOOK_TIMEOUT_MS (${timeoutMs} ms); ` +
        (kind === "brief"
          ? "the session goes on without the brief"
          : "the transcript stays, and the next save of this session catches up"),
    );
  } else if ("error" in outcome) say(outcome.error.message);
  else if (outcome.line) run.warn(maskSecrets(outcome.line, secrets));
  return 0;
}

/** The flag's value: `--name value` or `--name=value`. */
export function flagValue(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i >= 0) {
    const value = args[i + 1];
    if (value === undefined || value.startsWith("--")) throw new Error(`${name} needs a value`);
    return value;
  }
  return args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

/** Hook JSON from stdin, or `{}` when there is none (a terminal, nothing sent, not JSON). */
async function hookInput(run: HookRun, waitMs?: number): Promise<Record<string, unknown>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const reading = run.readStdin();
  const raw = waitMs === undefined ? await reading : await Promise.race([
    reading,
    new Promise<undefined>((resolve) => timer = setTimeout(() => resolve(undefined), waitMs)),
  ]);
  clearTimeout(timer);
  if (raw === undefined || raw.trim() === "") return {};
  try {
    const parsed = JSON.parse(raw);
    return typeof parsed === "object" && parsed !== null ? parsed : {};
  } catch {
    throw new Error("stdin is not hook JSON (an object with session_id, transcript_path, cwd)");
  }
}

async function withConnection<T>(run: HookRun, fn: (c: HookConnection) => Promise<T>): Promise<T> {
  let conn: HookConnection;
  try {
    conn = await connect(run);
  } catch (error) {
    const url = run.env.get("HANDOFF_URL");
    throw new Error(
      `cannot reach ${url ? `the server at ${url}` : "the local KV"}: ${(error as Error).message}`,
    );
  }
  try {
    return await fn(conn);
  } finally {
    await conn.close().catch(() => {});
  }
}

/** Prints the brief on stdout (JSON for Gemini CLI with `--json`). */
async function brief(run: HookRun): Promise<string | undefined> {
  const input = await hookInput(run, BRIEF_STDIN_MS).catch(() => ({} as Record<string, unknown>));
  const project = await resolveProjectId(
    workingFolder(run, input),
    flagValue(run.args, "--project"),
  );
  // Stored text is shown as it is, but a key someone pasted into a north star is not.
  const text = await withConnection(
    run,
    async (conn) => maskSecrets(await buildBrief(conn, project), conn.secrets),
  );
  run.write(
    run.args.includes("--json")
      ? JSON.stringify({
        hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: text },
      }) + "\n"
      : text + "\n",
  );
  return undefined;
}

/** Saves the transcript named on stdin or by `--transcript`; says what it did on stderr. */
async function saveTranscript(run: HookRun): Promise<string> {
  const file = flagValue(run.args, "--transcript");
  const input = file === undefined ? await hookInput(run) : {};
  const path = file ?? (typeof input.transcript_path === "string" ? input.transcript_path : "");
  if (path === "") {
    throw new Error(
      "no transcript: pass hook JSON with transcript_path on stdin, or --transcript <file>",
    );
  }
  const sessionId = flagValue(run.args, "--session-id") ??
    (typeof input.session_id === "string" ? input.session_id : sessionIdOf(path));
  // Checked and opened before anything connects: a device or a huge file is refused at once.
  const transcript = await openTranscript(path, loadTranscriptLimits(run.env));
  try {
    const project = await resolveProjectId(
      workingFolder(run, input),
      flagValue(run.args, "--project"),
    );
    const outcome = await withConnection(
      run,
      (conn) => saveSession(conn, { sessionId, transcript, project }),
    );
    const dropped = outcome.droppedMessages > 0
      ? ` (${outcome.droppedMessages} oldest left out: over the handoff limit)`
      : "";
    const skipped = outcome.skippedLines > 0
      ? `; ${outcome.skippedLines} line(s) skipped (not a JSON object, or over TRANSCRIPT_LINE_MAX_BYTES)`
      : "";
    if (outcome.action === "nothing") {
      return `handoff-mcp save-transcript: nothing to save for ${outcome.key}: no conversation turns (only commands or client notes)${skipped}`;
    }
    return `handoff-mcp save-transcript: ${outcome.action} ${outcome.key}: ${outcome.messages} messages, ${outcome.bytes} bytes${dropped}${skipped}`;
  } finally {
    transcript.close();
  }
}

/**
 * The folder the project is derived from: the hook JSON's `cwd`, else the folder `deno task` was
 * started in (`INIT_CWD`: the task itself runs in the project's folder), else this process's.
 */
function workingFolder(run: HookRun, input: Record<string, unknown>): string {
  if (typeof input.cwd === "string" && input.cwd !== "") return input.cwd;
  return run.env.get("INIT_CWD") || Deno.cwd();
}

/** A transcript's session id from its file name (`<session_id>.jsonl`). */
function sessionIdOf(path: string): string {
  return path.split(/[/\\]/).pop()!.replace(/\.jsonl$/, "");
}

/** The hook run of this process: its arguments, environment, stdin, stdout and stderr. */
export function processHookRun(baseDir: string): HookRun {
  const encoder = new TextEncoder();
  return {
    args: Deno.args,
    env: Deno.env,
    baseDir,
    readStdin: () =>
      Deno.stdin.isTerminal()
        ? Promise.resolve(undefined)
        : new Response(Deno.stdin.readable).text(),
    write: (text) => {
      const bytes = encoder.encode(text);
      for (let at = 0; at < bytes.length;) at += Deno.stdout.writeSync(bytes.subarray(at));
    },
    warn: (line) => console.error(line),
  };
}
