/** The table toolset's settings, read from the environment once at start. */

import { CLIENT_NAME_MAX_CHARS, ownerNameVar } from "../kit/caller.ts";
import { type EnvSource, intVar } from "../kit/env.ts";
import { characterCount, invisibleProblem, lineProblem } from "../kit/text.ts";

/** The contract number: first line of every table tool description, and a context field. */
export const TABLE_CONTRACT = 1;

/** Sizes and page lengths of the table toolset; over a limit is an error, never a cut. */
export interface TableLimits {
  /** Longest title of a discussion, decision, plan or task, in characters. */
  titleMaxChars: number;
  /** Largest message body, decision detail or task detail, in UTF-8 bytes. */
  messageMaxBytes: number;
  /** Largest plan body or handoff context, in UTF-8 bytes (stays under one KV value). */
  bodyMaxBytes: number;
  /** Largest reason of a verdict, in UTF-8 bytes (stored beside the decision's detail). */
  reasonMaxBytes: number;
  /** Longest participant name (`assigned_to`, `to`) or workspace, in characters. */
  nameMaxChars: number;
  /** Default and largest `limit` of every list. */
  pageDefault: number;
  pageMax: number;
}

/** The default limits. */
export const DEFAULT_TABLE_LIMITS: TableLimits = {
  titleMaxChars: 200,
  messageMaxBytes: 32 * 1024,
  bodyMaxBytes: 48 * 1024,
  reasonMaxBytes: 8 * 1024,
  nameMaxChars: CLIENT_NAME_MAX_CHARS,
  pageDefault: 50,
  pageMax: 200,
};

/** The environment variable that sets each configurable limit, as error messages name it. */
export const SETTING_OF = {
  titleMaxChars: "TABLE_TITLE_MAX_CHARS",
  messageMaxBytes: "TABLE_MESSAGE_MAX_BYTES",
  bodyMaxBytes: "TABLE_BODY_MAX_BYTES",
  reasonMaxBytes: "TABLE_REASON_MAX_BYTES",
} as const;

/**
 * Upper bounds of the byte limits, so every record stays under Deno KV's 64 KiB per value: texts
 * are stored as UTF-8 bytes, and a decision holds its detail and its reason side by side.
 */
const MAX_BODY_BYTES = 56 * 1024;
const MAX_MESSAGE_BYTES = 48 * 1024;
const MAX_REASON_BYTES = 8 * 1024;

/** Everything the table toolset reads from its environment, validated. */
export interface TableSettings {
  /** `TABLE_DEFAULT_WORKSPACE`: the workspace of calls that name none (default `main`). */
  defaultWorkspace: string;
  /** `TABLE_STALE_DAYS`: how long a handoff may wait before it reads as stale (default 7). */
  staleDays: number;
  /** `APPROVAL_SECRET`: the code a person gives to approve; unset means no code is valid. */
  approvalSecret: string | undefined;
  /** `VIEW_TOKEN`: the read-only key of `/view`; unset means no page. */
  viewToken: string | undefined;
  /** `VIEW_TIME_ZONE`: the IANA zone `/view` shows times in (default `UTC`). */
  viewTimeZone: string;
  /**
   * `OWNER_NAME` (default `owner`): the person. A handoff addressed to them is accepted only by a
   * caller proven to be them (`provenOwner` in `kit/caller.ts`).
   */
  ownerName: string;
  limits: TableLimits;
  /** The clock, in milliseconds since the epoch; tests pass their own to age handoffs. */
  now: () => number;
}

/** Milliseconds in a day, for the settings and arguments given in days. */
export const MS_PER_DAY = 86_400_000;

/** Milliseconds a handoff may wait before it is stale. */
export function staleMs(settings: TableSettings): number {
  return settings.staleDays * MS_PER_DAY;
}

/** Reads and checks the table settings; throws naming the bad variable and what is allowed. */
export function loadTableSettings(
  env: EnvSource,
  now: () => number = Date.now,
): TableSettings {
  const workspace = (env.get("TABLE_DEFAULT_WORKSPACE") ?? "").trim() || "main";
  const problem = workspaceProblem(workspace, DEFAULT_TABLE_LIMITS.nameMaxChars);
  if (problem) throw new Error(`TABLE_DEFAULT_WORKSPACE: ${problem}`);
  const rawStale = (env.get("TABLE_STALE_DAYS") ?? "").trim();
  const staleDays = rawStale === "" ? 7 : Number(rawStale);
  if (!/^\d+(\.\d+)?$/.test(rawStale || "7") || !(staleDays > 0) || staleDays > 3650) {
    throw new Error(
      `TABLE_STALE_DAYS must be a number of days above 0 and at most 3650 (0.5 is twelve hours), got "${rawStale}"`,
    );
  }
  const secret = env.get("APPROVAL_SECRET") || undefined;
  if (secret !== undefined && secret.length < 8) {
    throw new Error("APPROVAL_SECRET must be at least 8 characters");
  }
  const viewToken = env.get("VIEW_TOKEN") || undefined;
  if (viewToken !== undefined && !/^[A-Za-z0-9._~-]{16,}$/.test(viewToken)) {
    throw new Error(
      "VIEW_TOKEN must be at least 16 URL-safe characters (A-Z a-z 0-9 . _ ~ -)",
    );
  }
  const zone = (env.get("VIEW_TIME_ZONE") ?? "").trim() || "UTC";
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
  } catch {
    throw new Error(
      `VIEW_TIME_ZONE must be an IANA time zone such as Europe/Berlin, got "${zone}"`,
    );
  }
  return {
    defaultWorkspace: workspace.toLowerCase(),
    staleDays,
    approvalSecret: secret,
    viewToken,
    viewTimeZone: zone,
    ownerName: ownerNameVar(env),
    limits: {
      ...DEFAULT_TABLE_LIMITS,
      titleMaxChars: limitVar(env, "titleMaxChars", 10, 1000),
      messageMaxBytes: limitVar(env, "messageMaxBytes", 1024, MAX_MESSAGE_BYTES),
      bodyMaxBytes: limitVar(env, "bodyMaxBytes", 1024, MAX_BODY_BYTES),
      reasonMaxBytes: limitVar(env, "reasonMaxBytes", 256, MAX_REASON_BYTES),
    },
    now,
  };
}

/** A configurable limit from its setting, defaulting to `DEFAULT_TABLE_LIMITS`. */
function limitVar(env: EnvSource, limit: keyof typeof SETTING_OF, min: number, max: number) {
  return intVar(env, SETTING_OF[limit], DEFAULT_TABLE_LIMITS[limit], min, max);
}

/** What is wrong with `name` as a workspace, or `undefined`. */
export function workspaceProblem(name: string, maxChars: number): string | undefined {
  switch (lineProblem(name, maxChars)) {
    case undefined:
      return invisibleProblem(name, "a workspace");
    case "lone_surrogate":
      return "a workspace must be well-formed Unicode";
    case "blank":
      return "a workspace must not be blank";
    case "line_break":
    case "control":
      return "a workspace must be one line without control characters";
    case "too_long":
      return `a workspace is at most ${maxChars} characters (convention: owner/repository), got ${
        characterCount(name)
      }`;
  }
}
