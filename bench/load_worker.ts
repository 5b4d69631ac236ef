/**
 * One benchmark client process: a few SDK clients over Streamable HTTP, driven by the
 * coordinator (`bench/load.ts`) with one JSON command per stdin line and one JSON reply per
 * stdout line. Clients live in separate processes so their CPU never counts as the server's.
 */

import { Client, StreamableHTTPClientTransport } from "../src/client/sdk_client.ts";
import { ClientV2, StreamableHTTPClientTransportV2 } from "../src/client/sdk_client_v2.ts";
import type { CallSpec, CaseSpec, Era, WorkerCommand, WorkerReply } from "./load.ts";

/** What a bench client does, whichever SDK and era it speaks. */
interface McpClient {
  ping(): Promise<unknown>;
  callTool(request: { name: string; arguments?: Record<string, unknown> }): Promise<{
    isError?: boolean;
    content?: unknown;
    structuredContent?: unknown;
  }>;
  close(): Promise<void>;
}

/**
 * A connected client: the v1 SDK client (2025, as old hosts run it), or the v2 client pinned to
 * 2026-07-28.
 */
async function connectClient(url: string, name: string, era: Era): Promise<McpClient> {
  if (era === "2026") {
    const client = new ClientV2({ name, version: "1" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    await client.connect(new StreamableHTTPClientTransportV2(new URL(url)));
    return client;
  }
  const client = new Client({ name, version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client as unknown as McpClient;
}

interface BenchClient {
  /** Index of this client among all clients of the run, from 0. */
  index: number;
  client: McpClient;
  /** Per case: the value its setup kept, and the next `$n`. */
  state: Map<string, { kept?: unknown; n: number }>;
}

const clients: BenchClient[] = [];
let cases: Record<string, CaseSpec> = {};

/** `args` with `${client}` in strings, and the exact strings `$n` and `$kept`, filled in. */
function fill(value: unknown, client: number, n: number, kept: unknown): unknown {
  if (value === "$n") return n;
  if (value === "$kept") return kept;
  if (typeof value === "string") return value.replaceAll("${client}", String(client));
  if (Array.isArray(value)) return value.map((v) => fill(v, client, n, kept));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, fill(v, client, n, kept)]),
    );
  }
  return value;
}

/** Runs one call; returns its structured content, or throws with the tool's error text. */
async function invoke(c: BenchClient, spec: CallSpec, n: number, kept: unknown) {
  if (spec.tool === "ping") {
    await c.client.ping();
    return undefined;
  }
  const args = fill(spec.args ?? {}, c.index, n, kept) as Record<string, unknown>;
  const result = await c.client.callTool({ name: spec.tool, arguments: args });
  if (result.isError) {
    const text = (result.content as { text?: string }[])[0]?.text ?? "";
    throw new Error(`${spec.tool} failed: ${text.slice(0, 300)}`);
  }
  return result.structuredContent as Record<string, unknown> | undefined;
}

async function handle(command: WorkerCommand): Promise<WorkerReply> {
  switch (command.op) {
    case "connect": {
      for (let i = 0; i < command.clients; i++) {
        const name = `bench-${command.first + i}`;
        const client = await connectClient(command.url, name, command.era ?? "2025");
        clients.push({ index: command.first + i, client, state: new Map() });
      }
      return { ok: true };
    }
    case "prepare": {
      cases = command.cases;
      await Promise.all(clients.map(async (c) => {
        for (const [name, spec] of Object.entries(cases)) {
          const state = { kept: undefined as unknown, n: spec.setup ? 2 : 1 };
          if (spec.setup) {
            const structured = await invoke(c, spec.setup, 1, undefined);
            state.kept = structured?.[spec.setup.keep ?? ""];
          }
          c.state.set(name, state);
        }
      }));
      return { ok: true };
    }
    case "round": {
      const spec = cases[command.case];
      const latencies: number[] = [];
      await Promise.all(clients.map(async (c) => {
        const state = c.state.get(command.case)!;
        for (let i = 0; i < command.calls; i++) {
          const start = performance.now();
          await invoke(c, spec.call, state.n++, state.kept);
          latencies.push(performance.now() - start);
        }
      }));
      return { ok: true, latencies };
    }
    case "close": {
      await Promise.all(clients.map((c) => c.client.close()));
      return { ok: true };
    }
  }
}

const encoder = new TextEncoder();
const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream());
let buffer = "";
for await (const chunk of lines) {
  buffer += chunk;
  let newline: number;
  while ((newline = buffer.indexOf("\n")) >= 0) {
    const command = JSON.parse(buffer.slice(0, newline)) as WorkerCommand;
    buffer = buffer.slice(newline + 1);
    let reply: WorkerReply;
    try {
      reply = await handle(command);
    } catch (error) {
      reply = { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
    await Deno.stdout.write(encoder.encode(JSON.stringify(reply) + "\n"));
    if (command.op === "close") Deno.exit(0);
  }
}
