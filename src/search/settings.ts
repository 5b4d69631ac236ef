/** The search toolset's settings, each a named environment variable. */

import { resultMaxTokensVar } from "../kit/budget.ts";
import { boolVar, type EnvSource, intVar } from "../kit/env.ts";

/** Search limits; every one appears in the error it causes. */
export interface SearchSettings {
  /** `SEARCH_INDEX`: off stops indexing (writes add no pending entries; search says so). */
  enabled: boolean;
  /** `SEARCH_QUERY_MAX_CHARS`: longest query. */
  queryMaxChars: number;
  /** `SEARCH_QUERY_MAX_TERMS`: most words in a query. */
  queryMaxTerms: number;
  /** `SEARCH_LIMIT_MAX`: most results per call. */
  limitMax: number;
  /** `SEARCH_POSTINGS_MAX`: most postings read per query term (the newest are kept). */
  postingsMax: number;
  /** `SEARCH_PENDING_SCAN`: most pending entries a query reads. */
  pendingScan: number;
  /** `SEARCH_FOLD_MS`: how often the folder looks for pending entries. */
  foldMs: number;
  /** `SEARCH_FOLD_BATCH`: most pending records in one segment. */
  foldBatch: number;
  /** `RESULT_MAX_TOKENS`: the budget of each view of a result. */
  resultMaxTokens: number;
}

/** Reads the search settings; throws naming a bad variable. */
export function loadSearchSettings(env: EnvSource): SearchSettings {
  const index = (env.get("SEARCH_INDEX") ?? "on").trim().toLowerCase();
  return {
    enabled: boolVar(new Map([["SEARCH_INDEX", index]]), "SEARCH_INDEX", true),
    queryMaxChars: intVar(env, "SEARCH_QUERY_MAX_CHARS", 1_000, 10, 10_000),
    queryMaxTerms: intVar(env, "SEARCH_QUERY_MAX_TERMS", 32, 1, 256),
    limitMax: intVar(env, "SEARCH_LIMIT_MAX", 50, 1, 500),
    postingsMax: intVar(env, "SEARCH_POSTINGS_MAX", 50_000, 100, 10_000_000),
    pendingScan: intVar(env, "SEARCH_PENDING_SCAN", 1_000, 10, 100_000),
    foldMs: intVar(env, "SEARCH_FOLD_MS", 500, 10, 600_000),
    foldBatch: intVar(env, "SEARCH_FOLD_BATCH", 400, 1, 450),
    resultMaxTokens: resultMaxTokensVar(env),
  };
}
