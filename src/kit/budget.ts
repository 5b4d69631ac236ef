/**
 * The result size budget every tool keeps (`RESULT_MAX_TOKENS`): clients cap what a tool may
 * return (Claude Code at 25,000 tokens), so each view of a result (the text, and the
 * `structuredContent` JSON) must fit within this many estimated tokens. The estimate is
 * deliberately conservative: one token per 4 UTF-8 bytes of Latin text, and one per character
 * outside Latin scripts (CJK, Thai, …), whichever is larger for each character. Clients that
 * cap by characters instead (Gemini CLI, Claude Code's file fallback) are kept by
 * `RESULT_MAX_CHARS`, the other measure of each view.
 */

import { type EnvSource, intVar } from "./env.ts";

/** Default `RESULT_MAX_TOKENS`: below Claude Code's 25,000-token cap, with room for its framing. */
export const DEFAULT_RESULT_MAX_TOKENS = 20_000;

/**
 * Default `RESULT_MAX_CHARS`: Gemini CLI (0.61) shows its model only the first 8,000 and last
 * 32,000 characters of a longer result, and Claude Code (2.1.197) swaps one over 50,000 for a
 * file path and a preview (measured by the compatibility suite).
 */
export const DEFAULT_RESULT_MAX_CHARS = 40_000;

/** What each view of a result may take: estimated tokens, and characters (UTF-16 units). */
export interface ResultBudget {
  tokens: number;
  chars: number;
}

/** Reads `RESULT_MAX_CHARS` (4,000 to 4,000,000 characters). */
export function resultMaxCharsVar(env: EnvSource): number {
  return intVar(env, "RESULT_MAX_CHARS", DEFAULT_RESULT_MAX_CHARS, 4_000, 4_000_000);
}

/** Reads `RESULT_MAX_TOKENS` (1,000 to 1,000,000 estimated tokens). */
export function resultMaxTokensVar(env: EnvSource): number {
  return intVar(env, "RESULT_MAX_TOKENS", DEFAULT_RESULT_MAX_TOKENS, 1_000, 1_000_000);
}

/**
 * Estimated tokens of `text`: ASCII counts a quarter token a character, other Latin-range
 * characters (up to U+024F) half a token, anything else (CJK, Thai, emoji, …) one token each.
 */
export function estimateTokens(text: string): number {
  let quarters = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) quarters += 1;
    else if (c < 0x250) quarters += 2;
    else if (c >= 0xdc00 && c <= 0xdfff) continue; // low surrogate: its pair was counted
    else quarters += 4;
  }
  return Math.ceil(quarters / 4);
}

/** Estimated tokens of a structured value as a client shows it (compact JSON). */
export function estimateJsonTokens(value: unknown): number {
  return estimateTokens(JSON.stringify(value) ?? "");
}
