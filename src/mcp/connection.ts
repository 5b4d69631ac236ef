/**
 * What stdio and a legacy SSE session share: one connection with a server pinned to it, whose
 * requests are counted until answered, so a server that is stopping can wait for every one of
 * them before it closes (and before KV is closed).
 */

import type { JSONRPCMessage, MessageExtraInfo, Transport } from "./sdk.ts";

type Id = string | number;

/** One connection as an MCP `Transport`; each kind writes and ends its stream its own way. */
export abstract class ConnectionTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  /** Whether the connection has ended (it takes no more messages). */
  closed = false;
  /**
   * How many requests await an answer, per id (a client may wrongly reuse an id while one
   * runs); an id leaves once none does, so an empty map is a settled connection.
   */
  readonly #ids = new Map<Id, number>();
  #waiters: (() => void)[] = [];
  /** The last write queued: a stream writes in order, so once it settles every one has. */
  #written: Promise<void> = Promise.resolve();

  /** `kind` names the connection in the error of a send after close. */
  constructor(protected readonly kind: string) {}

  /** Writes `message`; resolves once it is written, or cannot be. */
  protected abstract write(message: object): Promise<void>;
  /** Ends the stream, once, when the connection closes. */
  protected abstract end(): void;

  /** Requests received and not yet answered. */
  get pending(): number {
    return [...this.#ids.values()].reduce((sum, count) => sum + count, 0);
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`${this.kind} is closed`));
    // Counted as answered once written, so a drain waits for the bytes, not just the reply.
    return this.queue(message).then(() => {
      if ("method" in message || !("id" in message) || message.id === undefined) return;
      this.#forget(message.id);
    });
  }

  /**
   * Hands a message from the client to the server. A request is counted until answered unless
   * `awaitsAnswer` is false (a listen, answered only at close); a cancellation ends one, as no
   * answer comes.
   */
  deliver(message: JSONRPCMessage, extra?: MessageExtraInfo, awaitsAnswer = true): void {
    if ("method" in message && "id" in message && message.id !== undefined) {
      if (awaitsAnswer) this.#ids.set(message.id, (this.#ids.get(message.id) ?? 0) + 1);
    } else if ("method" in message && message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: Id } | undefined)?.requestId;
      if (id !== undefined) this.#forget(id);
    }
    this.onmessage?.(message, extra);
  }

  /** Resolves once every request received is answered and everything queued is written. */
  async settled(): Promise<void> {
    if (this.#ids.size > 0) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    await this.#written;
  }

  /** Writes `message` after everything queued before it (a refusal may carry a null id). */
  protected queue(message: object): Promise<void> {
    return this.#written = this.write(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.#written;
    this.end();
    this.onclose?.();
  }

  #forget(id: Id): void {
    const count = this.#ids.get(id);
    if (count === undefined) return;
    if (count > 1) this.#ids.set(id, count - 1);
    else this.#ids.delete(id);
    if (this.#ids.size === 0) { for (const wake of this.#waiters.splice(0)) wake(); }
  }
}
