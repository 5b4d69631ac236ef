/**
 * Requests a transport has received and not yet answered, so a server that is stopping can
 * wait until every one of them is answered before it closes (and before KV is closed).
 */

import type { JSONRPCMessage } from "./sdk.ts";

type Id = string | number;

/** The requests of one transport that still await their response. */
export class InFlight {
  readonly #ids = new Set<Id>();
  #waiters: (() => void)[] = [];

  /** How many requests await their response. */
  get size(): number {
    return this.#ids.size;
  }

  /** Notes a message from the client: a request starts, a cancellation ends one (no reply comes). */
  received(message: JSONRPCMessage): void {
    if (!("method" in message)) return;
    if ("id" in message && message.id !== undefined) {
      this.#ids.add(message.id);
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
    if (this.#ids.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  #forget(id: Id): void {
    if (!this.#ids.delete(id) || this.#ids.size > 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}
