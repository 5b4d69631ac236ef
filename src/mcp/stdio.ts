/**
 * The same MCP server over stdio, for desktop clients that start a command. When the client
 * closes stdin (a one-shot script, a desktop client quitting right after a save) or the server is
 * told to stop (the MCP SDK's client sends SIGTERM two seconds after closing stdin), every request
 * already received is still carried out and answered before the server closes.
 */

import type { Config } from "../config.ts";
import { type Caller, clientNameProblem } from "../kit/caller.ts";
import { InFlight } from "./in_flight.ts";
import { type Line, LineBuffer } from "./stdio_lines.ts";
import { createMcpServer, type McpDeps, type Toolset } from "./server.ts";
import { type JSONRPCMessage, JSONRPCMessageSchema, type Transport } from "./sdk.ts";

/** Where the stdio server reads and writes; tests pass their own streams. */
export interface StdioStreams {
  input: ReadableStream<Uint8Array>;
  output: WritableStream<Uint8Array>;
}

/**
 * Serves MCP on stdin/stdout until the client closes stdin or `stop` is aborted (reading stops
 * there), then waits (at most `SHUTDOWN_GRACE_MS`) for the requests in flight to be answered and
 * written. Nothing else may write stdout.
 */
export async function serveStdio(
  deps: McpDeps,
  toolsets: readonly Toolset[],
  streams: StdioStreams = { input: Deno.stdin.readable, output: Deno.stdout.writable },
  stop?: AbortSignal,
): Promise<void> {
  const transport = new LineTransport(streams, deps.config.maxRequestBytes);
  const server = createMcpServer(deps, toolsets);
  await server.connect(transport);
  if (stop?.aborted) transport.stopReading();
  else stop?.addEventListener("abort", () => transport.stopReading(), { once: true });
  await transport.inputEnded;
  const graceMs = deps.config.shutdownGraceMs;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => timer = setTimeout(() => resolve("late"), graceMs));
  const outcome = await Promise.race([transport.flushed(), late]);
  clearTimeout(timer);
  if (outcome === "late") {
    console.error(
      `handoff-mcp: stopping; ${transport.pending} request(s) still unanswered after ` +
        `SHUTDOWN_GRACE_MS (${graceMs} ms): closing without them`,
    );
    // Closing waits for the writes queued, which never end if the client stopped reading.
    server.close().catch(() => {});
    return;
  }
  await server.close();
}

/** Newline-delimited JSON-RPC over byte streams, tracking requests until they are answered. */
class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Resolves when the client has closed its end of the input. */
  readonly inputEnded: Promise<void>;
  readonly #ended = Promise.withResolvers<void>();
  readonly #inFlight = new InFlight();
  readonly #input: ReadableStream<Uint8Array>;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #stopped = false;
  readonly #maxLineBytes: number;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #encoder = new TextEncoder();
  /** The last write, so writes go out in order and shutdown can wait for them. */
  #writing: Promise<void> = Promise.resolve();
  #outputBroken = false;
  #closed = false;

  constructor(streams: StdioStreams, maxLineBytes: number) {
    this.#maxLineBytes = maxLineBytes;
    this.#input = streams.input;
    this.#writer = streams.output.getWriter();
    this.inputEnded = this.#ended.promise;
  }

  /** Requests received and not yet answered. */
  get pending(): number {
    return this.#inFlight.size;
  }

  start(): Promise<void> {
    void this.#read().finally(() => this.#ended.resolve());
    return Promise.resolve();
  }

  /** Reads no more input: what was received is still answered, as when the input ends. */
  stopReading(): void {
    this.#stopped = true;
    // A pending read then ends as if the input had; the stream's own error, if any, is moot.
    this.#reader?.cancel().catch(() => {});
  }

  /** Resolves once every request received is answered and every answer written. */
  async flushed(): Promise<void> {
    await this.#inFlight.settled();
    await this.#writing;
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("stdio transport is closed"));
    // Counted as answered once written, so shutdown waits for the bytes, not just the reply.
    return this.#write(message).then(() => this.#inFlight.answered(message));
  }

  /** Queues `message` after the writes before it; resolves once it is written (or cannot be). */
  #write(message: unknown): Promise<void> {
    const bytes = this.#encoder.encode(JSON.stringify(message) + "\n");
    this.#writing = this.#writing.then(async () => {
      if (this.#outputBroken) return;
      try {
        await this.#writer.write(bytes);
      } catch {
        // The client stopped reading (a closed pipe). Work already received still completes.
        this.#outputBroken = true;
      }
    });
    return this.#writing;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#writing;
    this.#writer.releaseLock();
    this.onclose?.();
  }

  async #read(): Promise<void> {
    const lines = new LineBuffer(this.#maxLineBytes);
    const reader = this.#reader = this.#input.getReader();
    if (this.#stopped) void reader.cancel().catch(() => {});
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const line of lines.push(value)) this.#take(line);
      }
    } catch (error) {
      if (!this.#stopped) this.onerror?.(error as Error);
    }
    // A one-shot client may not end its last message with a newline.
    this.#take(lines.end());
  }

  #take(line: Line): void {
    if ("text" in line) return this.#line(line.text);
    const limit = `MAX_REQUEST_BYTES (${this.#maxLineBytes} bytes)`;
    console.error(`handoff-mcp: stdio: refused a message longer than ${limit}`);
    // Answered, or the client would wait for this id forever; the id is null if none was found.
    void this.#write({
      jsonrpc: "2.0",
      id: line.id,
      error: {
        code: -32600,
        message: `Invalid Request: the message is longer than ${limit} and was not carried ` +
          `out; send less per request`,
      },
    });
  }

  #line(raw: string): void {
    const line = raw.replace(/\r$/, "");
    if (line.trim() === "" || this.#closed) return;
    let parsed;
    try {
      parsed = JSONRPCMessageSchema.safeParse(JSON.parse(line));
    } catch {
      this.onerror?.(new Error("stdio: a line is not valid JSON"));
      return;
    }
    if (!parsed.success) {
      this.onerror?.(new Error("stdio: a line is not a JSON-RPC 2.0 message"));
      return;
    }
    const message = parsed.data as JSONRPCMessage;
    this.#inFlight.received(message);
    this.onmessage?.(message);
  }
}

/**
 * The caller of a stdio server: the machine's own user, named by `--client-name <name>` (or
 * `--client-name=<name>`), else `CLIENT_NAME`, else `DEFAULT_CLIENT_NAME`; always via `local`.
 * Throws naming the flag when its value is missing or not a valid client name.
 */
export function stdioCaller(config: Config, args: readonly string[]): Caller {
  let flag: string | undefined;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--client-name") {
      flag = args[i + 1];
      if (flag === undefined || flag.startsWith("--")) {
        throw new Error("--client-name needs a value, e.g. --client-name codex");
      }
    } else if (args[i].startsWith("--client-name=")) {
      flag = args[i].slice("--client-name=".length);
    }
  }
  if (flag !== undefined) {
    const problem = clientNameProblem(flag, "--client-name");
    if (problem) throw new Error(problem);
  }
  return { name: flag ?? config.clientName ?? config.defaultClientName, via: "local" };
}
