/** The handoff toolset's limits and audit log, read from the environment when it is loaded. */

import { boolVar, type EnvSource, intVar } from "../kit/env.ts";

/** Limits of the handoff toolset; all sizes of text are UTF-8 bytes unless named chars. */
export interface HandoffLimits {
  /** Largest conversation, in UTF-8 bytes (`HANDOFF_CONVERSATION_MAX_BYTES`). */
  conversationMaxBytes: number;
  /** Largest summary, in UTF-8 bytes (`HANDOFF_SUMMARY_MAX_BYTES`). */
  summaryMaxBytes: number;
  /** Longest title, in characters (`HANDOFF_TITLE_MAX_CHARS`). */
  titleMaxChars: number;
  /** Longest key, in characters of `[A-Za-z0-9_-]` (`HANDOFF_KEY_MAX_CHARS`). */
  keyMaxChars: number;
  /** Most tags on one handoff (`HANDOFF_TAGS_MAX`). */
  tagsMax: number;
  /** Longest tag, in characters of `[a-z0-9_:./-]` (`HANDOFF_TAG_MAX_CHARS`). */
  tagMaxChars: number;
  /** Most comments on one handoff (`HANDOFF_COMMENTS_MAX`). */
  commentsMax: number;
  /** Largest comment, in UTF-8 bytes (`HANDOFF_COMMENT_MAX_BYTES`). */
  commentMaxBytes: number;
  /** Most handoffs the store keeps (`HANDOFF_MAX_COUNT`). */
  maxHandoffs: number;
  /**
   * Most imported handoffs (chat exports) the store keeps (`HANDOFF_IMPORTED_MAX_COUNT`): counted
   * apart from `maxHandoffs` and never evicted.
   */
  importedMax: number;
  /** When full, evict the oldest handoff (true) or refuse the save (false) (`HANDOFF_EVICT`). */
  evictWhenFull: boolean;
  /** Most source handoffs one merge takes (`HANDOFF_MERGE_MAX_SOURCES`). */
  mergeSourcesMax: number;
  /** Longest `from_ai`, `author`, in characters. */
  nameMaxChars: number;
  /** Longest `from_project`, in characters. */
  projectMaxChars: number;
  /** Longest `next_action`, in characters. */
  nextActionMaxChars: number;
  /** Largest page of handoff_list and handoff_search. */
  listPageMax: number;
}

/** Everything the handoff toolset reads from its environment. */
export interface HandoffSettings {
  limits: HandoffLimits;
  /** File to append JSON-lines audit records to (`HANDOFF_AUDIT_LOG`); `undefined` = none. */
  auditLog: string | undefined;
}

/** Default handoff limits. */
export const DEFAULT_HANDOFF_LIMITS: HandoffLimits = {
  conversationMaxBytes: 1024 * 1024,
  summaryMaxBytes: 10 * 1024,
  titleMaxChars: 200,
  keyMaxChars: 100,
  tagsMax: 20,
  tagMaxChars: 50,
  commentsMax: 50,
  commentMaxBytes: 10 * 1024,
  maxHandoffs: 1000,
  importedMax: 100_000,
  evictWhenFull: true,
  mergeSourcesMax: 10,
  nameMaxChars: 100,
  projectMaxChars: 200,
  nextActionMaxChars: 1000,
  listPageMax: 100,
};

/** Reads the handoff settings; throws an `Error` naming a bad variable. */
export function loadHandoffSettings(env: EnvSource): HandoffSettings {
  return {
    limits: handoffLimits(env),
    auditLog: env.get("HANDOFF_AUDIT_LOG") || undefined,
  };
}

/**
 * Reads the handoff limits. The upper bounds keep one handoff's record under Deno KV's 64 KiB
 * value limit (text is stored as UTF-16 there) and a merge's atomic under its key-size budget.
 */
function handoffLimits(env: EnvSource): HandoffLimits {
  const d = DEFAULT_HANDOFF_LIMITS;
  return {
    ...d,
    conversationMaxBytes: intVar(
      env,
      "HANDOFF_CONVERSATION_MAX_BYTES",
      d.conversationMaxBytes,
      1024,
      8 * 1024 * 1024,
    ),
    summaryMaxBytes: intVar(env, "HANDOFF_SUMMARY_MAX_BYTES", d.summaryMaxBytes, 100, 20_000),
    titleMaxChars: intVar(env, "HANDOFF_TITLE_MAX_CHARS", d.titleMaxChars, 10, 1000),
    keyMaxChars: intVar(env, "HANDOFF_KEY_MAX_CHARS", d.keyMaxChars, 8, 200),
    tagsMax: intVar(env, "HANDOFF_TAGS_MAX", d.tagsMax, 0, 50),
    tagMaxChars: intVar(env, "HANDOFF_TAG_MAX_CHARS", d.tagMaxChars, 1, 100),
    commentsMax: intVar(env, "HANDOFF_COMMENTS_MAX", d.commentsMax, 0, 500),
    commentMaxBytes: intVar(env, "HANDOFF_COMMENT_MAX_BYTES", d.commentMaxBytes, 100, 20_000),
    maxHandoffs: intVar(env, "HANDOFF_MAX_COUNT", d.maxHandoffs, 1, 100_000),
    importedMax: intVar(env, "HANDOFF_IMPORTED_MAX_COUNT", d.importedMax, 0, 1_000_000),
    evictWhenFull: boolVar(env, "HANDOFF_EVICT", d.evictWhenFull),
    mergeSourcesMax: intVar(env, "HANDOFF_MERGE_MAX_SOURCES", d.mergeSourcesMax, 2, 10),
  };
}
