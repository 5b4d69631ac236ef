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
import { createMcpApp, type McpDeps, type Toolset } from "./server.ts";
import { StdioListens } from "./listening.ts";
import {
  type JSONRPCMessage,
  parseJSONRPCMessage,
  serveStdio as serveSdkStdio,
  type Transport,
} from "./sdk.ts";

/** Streams a test serves on instead of the process's stdin and stdout. */
export interface StdioStreams {
  input: ReadableStream<Uint8Array>;
  output: WritableStream<Uint8Array>;
}

/**
 * Serves MCP on stdin/stdout (or `streams`) until the client closes the input or `stop` is
 * aborted (reading stops there), then waits (at most `SHUTDOWN_GRACE_MS`) for the requests in
 * flight to be answered and written. Nothing else may write stdout.
 */
export async function serveStdio(
  deps: McpDeps,
  toolsets: readonly Toolset[],
  streams?: StdioStreams,
  stop?: AbortSignal,
): Promise<void> {
  const port = streams === undefined ? processPort() : streamPort(streams);
  const transport = new LineTransport(port, deps.config.maxRequestBytes);
  const app = createMcpApp(deps, toolsets);
  // One listening for the connection, whichever era: its servers tell of changes through it.
  const listening = app.listening(toolsets);
  const listens = new StdioListens(listening, deps.caller);
  transport.listens = listens;
  // The SDK picks the era from the opening message (server/discover: 2026-07-28; initialize:
  // 2025) and pins one server from the factory to the connection; the transport is ours.
  const served = serveSdkStdio(() => app.buildServer(toolsets, undefined, listening), {
    transport,
    onerror: (error) => console.error(`handoff-mcp: stdio: ${error.message}`),
  });
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
    served.close().catch(() => {});
    listens.close();
    return;
  }
  await served.close();
  listens.close();
}

/** The byte pipes under the transport. */
interface Port {
  /** The next bytes read (valid until the next read), or null at the end of the input. */
  read(): Promise<Uint8Array | null>;
  /** Ends a pending read as if the input had ended. */
  cancel(): void;
  /** Writes all of `bytes`; rejects when the client closed its end. */
  write(bytes: Uint8Array): Promise<void>;
  release(): void;
}

/** How many bytes one read of stdin takes at most. */
const READ_BYTES = 64 * 1024;

/**
 * The process's stdin and stdout, without the web streams over them: those allocate a 64 KiB
 * buffer per read and take several promise turns per message, on every round trip. Here one
 * buffer is read into again and again. Writes stay asynchronous, through Deno's blocking thread
 * pool: a synchronous write would save waking that thread (about 5% of a tool call's round trip)
 * but would block the whole server on a client that stops reading (see `serveStdio`), and, tried,
 * it let busy servers take signals so late that a second SIGTERM merged with the first (the
 * second-signal test in `tests/shutdown_test.ts` failed one run in three).
 */
function processPort(): Port {
  const buffer = new Uint8Array(READ_BYTES);
  let cancelled: (() => void) | undefined;
  return {
    read: () =>
      new Promise((resolve, reject) => {
        cancelled = () => resolve(null);
        Deno.stdin.read(buffer).then(
          (n) => resolve(n === null ? null : buffer.subarray(0, n)),
          reject,
        );
      }),
    cancel: () => cancelled?.(),
    write: async (bytes) => {
      for (let at = 0; at < bytes.length;) at += await Deno.stdout.write(bytes.subarray(at));
    },
    release() {},
  };
}

/** A test's streams. */
function streamPort(streams: StdioStreams): Port {
  const reader = streams.input.getReader();
  const writer = streams.output.getWriter();
  return {
    read: async () => {
      const { value, done } = await reader.read();
      return done ? null : value;
    },
    cancel: () => void reader.cancel().catch(() => {}),
    write: (bytes) => writer.write(bytes),
    release: () => writer.releaseLock(),
  };
}

/** Newline-delimited JSON-RPC over a port, tracking requests until they are answered. */
class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The connection's 2026 listens, which see every message in and out. */
  listens?: StdioListens;
  /** Resolves when the client has closed its end of the input. */
  readonly inputEnded: Promise<void>;
  readonly #ended = Promise.withResolvers<void>();
  readonly #inFlight = new InFlight();
  readonly #port: Port;
  #stopped = false;
  readonly #maxLineBytes: number;
  readonly #encoder = new TextEncoder();
  /** The last write while one is pending, so writes go out in order and shutdown can wait. */
  #writing: Promise<void> | undefined;
  #outputBroken = false;
  #closed = false;

  constructor(port: Port, maxLineBytes: number) {
    this.#maxLineBytes = maxLineBytes;
    this.#port = port;
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
    this.#port.cancel();
  }

  /** Resolves once every request received is answered and every answer written. */
  async flushed(): Promise<void> {
    await this.#inFlight.settled();
    await this.#writing;
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("stdio transport is closed"));
    this.listens?.outbound(message);
    // Counted as answered once written, so shutdown waits for the bytes, not just the reply.
    return this.#write(message).then(() => this.#inFlight.answered(message));
  }

  /** Writes `message` after the writes before it; resolves once it is written (or cannot be). */
  #write(message: unknown): Promise<void> {
    const bytes = this.#encoder.encode(JSON.stringify(message) + "\n");
    const before = this.#writing;
    // With no write pending (the usual case) this one starts at once, not a promise turn later.
    const writing = before === undefined
      ? this.#writeNow(bytes)
      : before.then(() => this.#writeNow(bytes));
    this.#writing = writing;
    void writing.then(() => {
      if (this.#writing === writing) this.#writing = undefined;
    });
    return writing;
  }

  async #writeNow(bytes: Uint8Array): Promise<void> {
    if (this.#outputBroken) return;
    try {
      await this.#port.write(bytes);
    } catch {
      // The client stopped reading (a closed pipe). Work already received still completes.
      this.#outputBroken = true;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#writing;
    this.#port.release();
    this.onclose?.();
  }

  async #read(): Promise<void> {
    const lines = new LineBuffer(this.#maxLineBytes);
    try {
      while (!this.#stopped) {
        const chunk = await this.#port.read();
        if (chunk === null) break;
        for (const line of lines.push(chunk)) this.#take(line);
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
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (this.#closed || line.trim() === "") return;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      this.onerror?.(new Error("stdio: a line is not valid JSON"));
      return;
    }
    try {
      message = parseJSONRPCMessage(message);
    } catch {
      this.onerror?.(new Error("stdio: a line is not a JSON-RPC 2.0 message"));
      return;
    }
    const refused = this.listens?.inbound(message);
    if (refused !== undefined) {
      void this.#write(refused);
      return;
    }
    // A listen is answered only when the connection closes: the drain must not wait for it.
    if (this.listens?.isListen(message) !== true) this.#inFlight.received(message);
    this.onmessage?.(message);
  }
}

/**
 * The caller of a stdio server: the machine's own user, named by `--client-name <name>` (or
 * `--client-name=<name>`), else `CLIENT_NAME`, else `DEFAULT_CLIENT_NAME`; always via `local`.
 * Throws naming the flag when its value is missing or not a valid client name.
 */
export function stdioCaller(config: Config, args: readonly string[]): Caller {
  const flag = clientNameFlag(args);
  return { name: flag ?? config.clientName ?? config.defaultClientName, via: "local" };
}

/**
 * The `--client-name <name>` (or `--client-name=<name>`) of a command line, checked as a client
 * name, or `undefined`; throws naming the flag when its value is missing or not a valid name.
 */
export function clientNameFlag(args: readonly string[]): string | undefined {
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
  return flag;
}
