/**
 * Requests a transport has received and not yet answered, so a server that is stopping can
 * wait until every one of them is answered before it closes (and before KV is closed).
 */

import type { JSONRPCMessage } from "./sdk.ts";

type Id = string | number;

/** The requests of one transport that still await their response. */
export class InFlight {
  /** Requests awaiting an answer, per id: a client may (wrongly) reuse an id while one runs. */
  readonly #ids = new Map<Id, number>();
  #size = 0;
  #waiters: (() => void)[] = [];

  /** How many requests await their response. */
  get size(): number {
    return this.#size;
  }

  /** Notes a message from the client: a request starts, a cancellation ends one (no reply comes). */
  received(message: JSONRPCMessage): void {
    if (!("method" in message)) return;
    if ("id" in message && message.id !== undefined) {
      this.#ids.set(message.id, (this.#ids.get(message.id) ?? 0) + 1);
      this.#size++;
    } else if (message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: Id } | undefined)?.requestId;
      if (id !== undefined) this.#forget(id);
    }
  }

  /** Notes a message to the client: a response ends its request. */
  answered(message: JSONRPCMessage): void {
    if ("method" in message || !("id" in message) || message.id === undefined) return;
    this.#forget(message.id);
  }

  /** Resolves once no request awaits its response. */
  settled(): Promise<void> {
    if (this.#size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  #forget(id: Id): void {
    const count = this.#ids.get(id);
    if (count === undefined) return;
    if (count > 1) this.#ids.set(id, count - 1);
    else this.#ids.delete(id);
    if (--this.#size > 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}
