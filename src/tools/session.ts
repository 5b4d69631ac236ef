/**
 * State one MCP session keeps between its calls (an SSE session, a stdio process, or one stateless
 * Streamable HTTP request). Tool definitions are shared by the whole process, so a tool handler
 * finds its session's state through the call's `extra`, never in a closure.
 */

const SESSION = Symbol("handoff-mcp session");

/** Named slots of one session's state; each toolset keeps its own slot. */
export class SessionState {
  readonly #slots = new Map<string, unknown>();

  /** The slot `name`, created with `init` on first use in this session. */
  slot<T>(name: string, init: () => T): T {
    if (!this.#slots.has(name)) this.#slots.set(name, init());
    return this.#slots.get(name) as T;
  }
}

/** Marks a handler's `extra` as belonging to `session` (done by `mcp/server.ts` per call). */
export function attachSession<E extends object>(extra: E, session: SessionState): E {
  (extra as Record<symbol, unknown>)[SESSION] = session;
  return extra;
}

/**
 * The session a tool call belongs to. A handler called outside a server built by `mcp/server.ts`
 * gets a fresh state, so each such call stands alone instead of sharing someone else's.
 */
export function sessionOf(extra: object): SessionState {
  const session = (extra as Record<symbol, unknown>)[SESSION];
  return session instanceof SessionState ? session : new SessionState();
}
