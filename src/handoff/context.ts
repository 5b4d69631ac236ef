/** What the handoff tools share: their dependencies, constants, audit and progress helpers. */

import { newNonce } from "../kit/untrusted.ts";
import type { HandoffLimits, HandoffSettings } from "./settings.ts";
import { audited, type AuditFacts } from "./audit.ts";
import type { Progress } from "./store_schema.ts";

/** What the handoff tools need. */
export interface HandoffDeps extends HandoffSettings {
  kv: Deno.Kv;
}

/** The MCP Apps view of `handoff_list`. */
export const HANDOFF_LIST_VIEW_URI = "ui://handoff/list.html";
/** The text `confirm` must hold for `handoff_clear` without a key to delete everything. */
export const CLEAR_ALL_CONFIRMATION = "DELETE ALL";
/** Handoffs per page when the caller does not say. */
export const DEFAULT_PAGE = 20;

/** What every handoff tool handler uses: KV, limits, the audit log and nonces. */
export interface HandoffToolContext {
  kv: Deno.Kv;
  limits: HandoffLimits;
  /** Runs a store call, logging it to the audit log when one is configured. */
  audit<T>(
    facts: AuditFacts,
    work: () => Promise<T>,
    after?: (v: T) => Partial<AuditFacts>,
  ): Promise<T>;
  /** A fresh nonce for an untrusted-data wrapper. */
  nonce(): string;
}

/** The context the handoff tools share, from the server's dependencies. */
export function toolContext(deps: HandoffDeps): HandoffToolContext {
  const { auditLog } = deps;
  return {
    kv: deps.kv,
    limits: deps.limits,
    audit: (facts, work, after) => audited(auditLog, facts, work, after),
    nonce: newNonce,
  };
}

/** The tool handler's context (the SDK's `ctx`) as far as progress needs it. */
interface ProgressContext {
  mcpReq: {
    _meta?: { progressToken?: string | number };
    notify(notification: {
      method: "notifications/progress";
      params: {
        progressToken: string | number;
        progress: number;
        total?: number;
        message?: string;
      };
    }): Promise<void>;
  };
}

/** Progress notifications for the call, when its client sent a progress token. */
export function progressOf(ctx: ProgressContext): Progress | undefined {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return undefined;
  const last = { progress: -1 };
  return async (progress, total, message) => {
    if (progress <= last.progress) return; // progress must grow, even across a rebuilt merge
    last.progress = progress;
    await ctx.mcpReq.notify({
      method: "notifications/progress",
      params: { progressToken: token, progress, total, message },
    });
  };
}
