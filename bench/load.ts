/**
 * Concurrent load on a server process: N SDK clients spread over a few client processes
 * (`load_worker.ts`), several named cases run in alternating short rounds after a warmup, so
 * machine noise lands on every case alike. For each case it reports the server's own CPU time per
 * call (from `/proc`, read around each round), calls per second, and p50/p99 latency.
 */

import { ROOT } from "../tests/support/harness.ts";
import { percentile, round } from "./lib.ts";
import type { ServerProcess } from "./process.ts";

/** One call: a tool with arguments, or `ping`. */
export interface CallSpec {
  tool: string;
  /**
   * Arguments; in strings `${client}` becomes the client's index, the exact string `$n` becomes
   * the client's call number in this case (from 1, or 2 after a setup), `$kept` the kept value.
   */
  args?: Record<string, unknown>;
  /** For a setup call: the field of its structured content to keep (e.g. `sequenceId`). */
  keep?: string;
}

/** One case of a load run: what every client calls, after an optional setup call per client. */
export interface CaseSpec {
  call: CallSpec;
  setup?: CallSpec;
}

/** What a case measured over all its rounds. */
export interface CaseResult {
  calls: number;
  /** Server CPU time (user + system) per call, in milliseconds. */
  cpu_ms_per_call: number;
  calls_per_s: number;
  p50_ms: number;
  p99_ms: number;
}

/** The protocol era bench clients speak: 2025 (SDK v1 client) or 2026-07-28 (SDK v2, pinned). */
export type Era = "2025" | "2026";

/** How to drive a load run. */
export interface LoadOptions {
  /** The era the clients speak (default 2025). */
  era?: Era;
  /** Concurrent clients in total (default 16). */
  clients?: number;
  /** Client processes they are spread over (default 4). */
  processes?: number;
  /** Calls each client makes per round (default 10). */
  callsPerRound?: number;
  /** Measured rounds per case (default 8). */
  rounds?: number;
  /** Unmeasured rounds per case first (default 2). */
  warmupRounds?: number;
}

/** A command to a worker process. */
export type WorkerCommand =
  | { op: "connect"; url: string; clients: number; first: number; era?: Era }
  | { op: "prepare"; cases: Record<string, CaseSpec> }
  | { op: "round"; case: string; calls: number }
  | { op: "close" };

/** A worker's answer to one command. */
export type WorkerReply = { ok: true; latencies?: number[] } | { ok: false; error: string };

/** One client process and a way to send it a command and await the reply. */
interface Worker {
  send(command: WorkerCommand): Promise<WorkerReply & { ok: true }>;
  done: Promise<Deno.CommandStatus>;
}

function startWorker(): Worker {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--lock=deno.test.lock", "bench/load_worker.ts"],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const encoder = new TextEncoder();
  let buffer = "";
  const nextLine = async (): Promise<string> => {
    for (;;) {
      const newline = buffer.indexOf("\n");
      if (newline >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        return line;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("bench client process exited");
      buffer += value;
    }
  };
  return {
    async send(command) {
      await writer.write(encoder.encode(JSON.stringify(command) + "\n"));
      const reply = JSON.parse(await nextLine()) as WorkerReply;
      if (!reply.ok) throw new Error(`bench client: ${reply.error}`);
      if (command.op === "close") {
        await writer.close().catch(() => {});
        await reader.cancel().catch(() => {});
      }
      return reply;
    },
    done: child.status,
  };
}

/**
 * Runs `cases` against `server` with concurrent clients, alternating cases round by round, and
 * returns each case's server CPU per call, throughput and latency percentiles.
 */
export async function runLoad(
  server: Pick<ServerProcess, "mcpUrl" | "cpuMs">,
  cases: Record<string, CaseSpec>,
  options: LoadOptions = {},
): Promise<Record<string, CaseResult>> {
  const clients = options.clients ?? 16;
  const processes = Math.min(options.processes ?? 4, clients);
  const callsPerRound = options.callsPerRound ?? 10;
  const rounds = options.rounds ?? 8;
  const warmupRounds = options.warmupRounds ?? 2;
  const workers = Array.from({ length: processes }, startWorker);
  try {
    let first = 0;
    await Promise.all(workers.map((w, i) => {
      const count = Math.floor(clients / processes) + (i < clients % processes ? 1 : 0);
      const command: WorkerCommand = {
        op: "connect",
        url: server.mcpUrl,
        clients: count,
        first,
        era: options.era,
      };
      first += count;
      return w.send(command);
    }));
    await Promise.all(workers.map((w) => w.send({ op: "prepare", cases })));
    const totals = Object.fromEntries(
      Object.keys(cases).map((name) => [name, { cpuMs: 0, wallMs: 0, latencies: [] as number[] }]),
    );
    for (let r = 0; r < warmupRounds + rounds; r++) {
      for (const name of Object.keys(cases)) {
        const cpuBefore = await server.cpuMs();
        const started = performance.now();
        const replies = await Promise.all(
          workers.map((w) => w.send({ op: "round", case: name, calls: callsPerRound })),
        );
        const wallMs = performance.now() - started;
        const cpuMs = (await server.cpuMs()) - cpuBefore;
        if (r < warmupRounds) continue;
        const total = totals[name];
        total.cpuMs += cpuMs;
        total.wallMs += wallMs;
        for (const reply of replies) total.latencies.push(...reply.latencies!);
      }
    }
    return Object.fromEntries(
      Object.entries(totals).map(([name, t]) => {
        const calls = t.latencies.length;
        return [name, {
          calls,
          cpu_ms_per_call: round(t.cpuMs / calls),
          calls_per_s: Math.round((calls / t.wallMs) * 1000),
          p50_ms: round(percentile(t.latencies, 0.5)),
          p99_ms: round(percentile(t.latencies, 0.99)),
        }];
      }),
    );
  } finally {
    await Promise.all(workers.map((w) => w.send({ op: "close" }).catch(() => {})));
    await Promise.all(workers.map((w) => w.done));
  }
}
