/**
 * The opt-in audit log: one JSON line per operation with its time, tool, keys, sizes and
 * outcome. It never holds text: no conversation, summary, title, comment or error message.
 */

/** One audit record. */
export interface AuditEntry {
  time: string;
  tool: string;
  /** Where the call came from: an MCP client or the JSON HTTP API. */
  via: "mcp" | "http";
  key?: string | null;
  keys?: string[];
  /** UTF-8 bytes of the text the call carried in (conversation, chunk, comment). */
  bytes_in?: number;
  /** UTF-8 bytes of the conversation the call returned or left stored. */
  bytes?: number;
  outcome: "ok" | "error";
  /** The AppError kind (or "internal"), never its message. */
  error_kind?: string;
  evicted?: string | null;
  deleted?: string[];
  count?: number;
  ms: number;
}

/** What an audited call reports about itself; `time`, `outcome` and `ms` are filled in. */
export type AuditFacts = Omit<AuditEntry, "time" | "outcome" | "ms" | "error_kind">;

/** What a logged key may look like: a key's characters only, so no prose gets in. */
const KEY_SHAPE = /^[A-Za-z0-9_-]{1,200}$/;

/** `key` when it has a key's shape, else "(invalid)": a caller may put any text where a key goes. */
export function auditKey(key: string): string {
  return KEY_SHAPE.test(key) ? key : "(invalid)";
}

/** Whether a failed write was already reported, so a broken log is reported once. */
const auditState = { warned: false };

/** Appends one record to the log at `path` as a single JSON line. Failures go to stderr once. */
export async function appendAudit(path: string, entry: AuditEntry): Promise<void> {
  try {
    await Deno.writeTextFile(path, JSON.stringify(entry) + "\n", { append: true, create: true });
  } catch (error) {
    if (auditState.warned) return;
    auditState.warned = true;
    console.error(
      `handoff-mcp: cannot write the audit log ${path}: ${(error as Error).message}`,
    );
  }
}

/**
 * Runs `work` and, when `path` is set, logs it: `before` describes the call, `after` adds what
 * the result says (sizes, evictions). Errors are logged by kind and rethrown unchanged.
 */
export async function audited<T>(
  path: string | undefined,
  before: AuditFacts,
  work: () => Promise<T>,
  after: (value: T) => Partial<AuditFacts> = () => ({}),
): Promise<T> {
  if (path === undefined) return await work();
  before = {
    ...before,
    ...(typeof before.key === "string" ? { key: auditKey(before.key) } : {}),
    ...(before.keys ? { keys: before.keys.map((k) => auditKey(String(k))) } : {}),
  };
  const started = performance.now();
  const time = new Date().toISOString();
  const ms = () => Math.round((performance.now() - started) * 10) / 10;
  try {
    const value = await work();
    await appendAudit(path, { time, ...before, ...after(value), outcome: "ok", ms: ms() });
    return value;
  } catch (error) {
    const kind = error instanceof Error && "kind" in error ? String(error.kind) : "internal";
    await appendAudit(path, { time, ...before, outcome: "error", error_kind: kind, ms: ms() });
    throw error;
  }
}
