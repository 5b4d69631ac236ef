/**
 * The same MCP server over stdio, for desktop clients that start a command. When the client
 * closes stdin (a one-shot script, a desktop client quitting right after a save) or the server is
 * told to stop (the MCP SDK's client sends SIGTERM two seconds after closing stdin), every request
 * already received is still carried out and answered before the server closes.
 */

import { settlesWithin } from "../kit/time.ts";
import { ConnectionTransport } from "./connection.ts";
import { type Line, LineBuffer } from "./stdio_lines.ts";
import { createMcpApp, type McpDeps, type Toolset } from "./server.ts";
import { StdioListens } from "./listening.ts";
import { deserializeMessage, type JSONRPCMessage, serveStdio as serveSdkStdio } from "./sdk.ts";

/** The input it reads and the output it writes: stdin and stdout, or a test's streams. */
type StdioStreams = ReadableWritablePair<Uint8Array, Uint8Array>;

/**
 * Serves MCP on stdin/stdout (or `streams`) until the client closes the input or `stop` is
 * aborted (reading stops there), then waits (at most `SHUTDOWN_GRACE_MS`) for the requests in
 * flight to be answered and written. Nothing else may write stdout.
 */
export async function serveStdio(
  deps: McpDeps,
  toolsets: readonly Toolset[],
  streams: StdioStreams = { readable: Deno.stdin.readable, writable: Deno.stdout.writable },
  stop?: AbortSignal,
): Promise<void> {
  const app = createMcpApp(deps, toolsets);
  // One listening for the connection, whichever era: its servers tell of changes through it.
  const listening = app.listening(toolsets);
  const listens = new StdioListens(listening, deps.caller);
  const transport = new LineTransport(streams, deps.config.maxRequestBytes, listens, stop);
  // The SDK picks the era from the opening message (server/discover: 2026-07-28; initialize:
  // 2025) and pins one server from the factory to the connection; the transport is ours, for
  // what the SDK's StdioServerTransport does otherwise: it drops the requests in flight when
  // stdin ends, and closes the connection on a line over its limit.
  const served = serveSdkStdio(() => app.buildServer(toolsets, undefined, listening), {
    transport,
    onerror: (error) => console.error(`handoff-mcp: stdio: ${error.message}`),
  });
  await transport.inputEnded;
  const graceMs = deps.config.shutdownGraceMs;
  if (!await settlesWithin(transport.settled(), graceMs)) {
    console.error(
      `handoff-mcp: stopping; ${transport.pending} request(s) still unanswered after ` +
        `SHUTDOWN_GRACE_MS (${graceMs} ms): closing without them`,
    );
    // Closing waits for the writes queued, which never end if the client stopped reading.
    served.close().catch(() => {});
  } else await served.close();
  listens.close();
}

/** Newline-delimited JSON-RPC over two streams, tracking requests until they are answered. */
class LineTransport extends ConnectionTransport {
  readonly #ended = Promise.withResolvers<void>();
  /** Resolves when the client has closed its end of the input (or reading was stopped). */
  readonly inputEnded = this.#ended.promise;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #encoder = new TextEncoder();

  /**
   * `listens`: the connection's 2026 listens, which see every message in and out. Once `stop`
   * is aborted no more input is read (a pending read ends as if the input had); what was
   * received is still answered, as when the input ends.
   */
  constructor(
    streams: StdioStreams,
    readonly maxLineBytes: number,
    readonly listens: StdioListens,
    stop?: AbortSignal,
  ) {
    super("stdio transport");
    this.#reader = streams.readable.getReader();
    this.#writer = streams.writable.getWriter();
    const stopReading = () => void this.#reader.cancel().catch(() => {});
    if (stop?.aborted) stopReading();
    else stop?.addEventListener("abort", stopReading, { once: true });
  }

  override start(): Promise<void> {
    void this.#read().finally(() => this.#ended.resolve());
    return Promise.resolve();
  }

  override send(message: JSONRPCMessage): Promise<void> {
    this.listens.outbound(message);
    return super.send(message);
  }

  /** Queues `message` (a refusal may carry a null id, which the SDK's message type lacks). */
  protected write(message: object): Promise<void> {
    const bytes = this.#encoder.encode(JSON.stringify(message) + "\n");
    // A closed pipe (the client stopped reading) fails every write; work received still completes.
    return this.#writer.write(bytes).catch(() => {});
  }

  protected end(): void {
    this.#writer.releaseLock();
  }

  async #read(): Promise<void> {
    const lines = new LineBuffer(this.maxLineBytes);
    try {
      for (let read; !(read = await this.#reader.read()).done;) {
        for (const line of lines.push(read.value)) this.#take(line);
      }
    } catch (error) {
      this.onerror?.(error as Error);
    }
    // A one-shot client may not end its last message with a newline.
    this.#take(lines.end());
  }

  #take(line: Line): void {
    if ("text" in line) return this.#line(line.text);
    const limit = `MAX_REQUEST_BYTES (${this.maxLineBytes} bytes)`;
    console.error(`handoff-mcp: stdio: refused a message longer than ${limit}`);
    // Answered, or the client would wait for this id forever; the id is null if none was found.
    const message =
      `Invalid Request: the message is longer than ${limit} and was not carried out; send less per request`;
    void this.queue({ jsonrpc: "2.0", id: line.id, error: { code: -32600, message } });
  }

  #line(line: string): void {
    if (this.closed || line.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      // JSON.parse takes the `\r` a CRLF line ends with as whitespace.
      message = deserializeMessage(line);
    } catch {
      this.onerror?.(new Error("a line is not a JSON-RPC 2.0 message"));
      return;
    }
    const refused = this.listens.inbound(message);
    if (refused !== undefined) return void this.queue(refused);
    // A listen is answered only when the connection closes: the drain must not wait for it.
    this.deliver(message, undefined, !this.listens.isListen(message));
  }
}
