/**
 * The server under test as its own process, as a user runs it (`deno task start`), and what the
 * benchmark reads from outside it: CPU time and resident memory from `/proc`.
 */

import { ROOT } from "../tests/support/harness.ts";
import { randomToken } from "../src/kit/ids.ts";

/** A running `main.ts` child process serving HTTP. */
export interface ServerProcess {
  pid: number;
  origin: string;
  token: string;
  /** The Streamable HTTP endpoint with the token in the path. */
  mcpUrl: string;
  /** CPU time (user + system) the process has used so far, in milliseconds. */
  cpuMs(): Promise<number>;
  /** Resident memory now, in MiB. */
  rssMiB(): Promise<number>;
  close(): Promise<void>;
}

/** Clock ticks per second of `/proc/<pid>/stat` (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU milliseconds (utime + stime, every thread) `pid` has used, from `/proc/<pid>/stat`. */
export async function processTicksMs(pid: number): Promise<number> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  // The command name may hold spaces; the fields after its closing parenthesis do not.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** Each process's threads as last read: nanoseconds on a CPU, by thread id. */
const threadsSeen = new Map<number, Map<string, number>>();

/**
 * CPU milliseconds (user + system, every thread) `pid` has used, in the scheduler's nanosecond
 * count of each thread's time on a CPU (`/proc/<pid>/task/<tid>/schedstat`; a thread running as
 * it is read may lag by a scheduler tick, 1–4 ms, against 10 ms ticks per thread before). The
 * tick count of `/proc/<pid>/stat` (10 ms) is too coarse for a round of a few hundred calls: a
 * case of the `eras` group holds 13–40 ticks, so one tick more or less moved a ratio by up to
 * 15 %. A thread that has ended counts what it had used when last read, and one that started
 * and ended between two readings is missed; both are rare: the runtime's threads live as long
 * as it does, and its blocking pool lets a thread go only after seconds without work. Falls back
 * to the ticks where no thread's count can be read.
 */
export async function processCpuMs(pid: number): Promise<number> {
  const seen = threadsSeen.get(pid) ?? new Map<string, number>();
  let read = 0;
  for await (const task of Deno.readDir(`/proc/${pid}/task`)) {
    try {
      const text = await Deno.readTextFile(`/proc/${pid}/task/${task.name}/schedstat`);
      seen.set(task.name, Number(text.split(" ")[0]));
      read++;
    } catch (error) {
      // Ended between the listing and the read: its last reading stands.
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  if (read === 0 && !threadsSeen.has(pid)) return await processTicksMs(pid);
  threadsSeen.set(pid, seen);
  let ns = 0;
  for (const value of seen.values()) ns += value;
  return ns / 1e6;
}

/** Resident set size of `pid` in MiB, from `/proc/<pid>/status`. */
export async function processRssMiB(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kib = Number(status.match(/^VmRSS:\s+(\d+)\s+kB/m)?.[1] ?? NaN);
  return Math.round((kib / 1024) * 10) / 10;
}

/**
 * Starts `main.ts` (or another `script` that prints `listening on <origin>` and serves
 * `/<AUTH_TOKEN>/mcp`) on a free loopback port with the given environment (e.g. `KV_PATH`).
 */
export async function startServerProcess(
  env: Record<string, string>,
  script = "main.ts",
): Promise<ServerProcess> {
  const token = randomToken(32);
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net",
      "--allow-env",
      "--allow-read",
      "--allow-write",
      ...(script === "main.ts" ? [] : ["--lock=deno.test.lock"]),
      script,
    ],
    cwd: ROOT,
    env: { PORT: "0", HOST: "127.0.0.1", AUTH_TOKEN: token, NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  // A process id can come back: threads an earlier process of this id had are not this one's.
  threadsSeen.delete(child.pid);
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let output = "";
  while (!/listening on (http:\/\/\S+)/.test(output)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server exited before listening:\n${output}`);
    output += value;
  }
  // Keep draining stdout so the child never blocks on a full pipe.
  const drained = (async () => {
    while (!(await reader.read()).done);
  })().catch(() => {});
  const origin = output.match(/listening on (http:\/\/\S+)/)![1];
  return {
    pid: child.pid,
    origin,
    token,
    mcpUrl: `${origin}/${token}/mcp`,
    cpuMs: () => processCpuMs(child.pid),
    rssMiB: () => processRssMiB(child.pid),
    async close() {
      child.kill("SIGTERM");
      await child.status;
      await drained;
      threadsSeen.delete(child.pid);
    },
  };
}

/**
 * Waits until `server` has fallen quiet: under 5 % of a core over each of two windows of
 * `windowMs` in a row. A server started on a seeded KV first indexes what it finds for search
 * (issue 28: "search: queued N existing items"); a group that measures per-call CPU waits for
 * that, which the `search` group measures on its own (first-start passages/s). Returns the
 * seconds it waited; throws after `timeoutMs`.
 */
export async function waitQuiet(
  server: Pick<ServerProcess, "cpuMs">,
  windowMs = 500,
  timeoutMs = 180_000,
): Promise<number> {
  const started = performance.now();
  let quiet = 0;
  let before = await server.cpuMs();
  while (quiet < 2) {
    if (performance.now() - started > timeoutMs) {
      throw new Error(`the server did not fall quiet within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const now = await server.cpuMs();
    quiet = now - before < windowMs * 0.05 ? quiet + 1 : 0;
    before = now;
  }
  return Math.round((performance.now() - started) / 100) / 10;
}
