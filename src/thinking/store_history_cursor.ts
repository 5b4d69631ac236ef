/**
 * The opaque cursor of a history page: where the next page starts (after a history index, in an
 * order, on a branch or the whole sequence) and, for a page cut inside a thought, how many of
 * that thought's characters were shown already.
 */

import { jsonToken, parseJsonToken } from "../kit/base64url.ts";
import { fail } from "./store_errors.ts";

interface CursorState {
  v: 1;
  o: "asc" | "desc";
  b: string | null;
  i: number;
  /** Characters of the next thought that earlier pages showed (a page cut inside it). */
  c?: number;
}

/**
 * The cursor of the page after `after` (a history index) in `order` on `branch`; with `chars`,
 * the next thought is read from that character on.
 */
export function historyCursor(
  order: "asc" | "desc",
  branch: string | null,
  after: number,
  chars?: number,
): string {
  return encodeCursor({ v: 1, o: order, b: branch, i: after, ...(chars ? { c: chars } : {}) });
}

function encodeCursor(state: CursorState): string {
  return jsonToken(state);
}

/** The position a cursor made by `historyCursor` names, refused when made for another read. */
export function decodeCursor(
  cursor: string,
  order: "asc" | "desc",
  branch: string | null,
): { after: number; chars: number } {
  const bad = (why: string): never =>
    fail("INVALID_CURSOR", `cursor ${why}; pass the nextCursor of the previous page unchanged`);
  const state = parseJsonToken(cursor) as CursorState | undefined;
  const chars = state?.c ?? 0;
  if (
    state?.v !== 1 || !Number.isInteger(state.i) || state.i < 0 || !Number.isInteger(chars) ||
    chars < 0
  ) {
    return bad("is not one this server made");
  }
  if (state.o !== order) {
    return bad(`was made for order "${state.o}", not "${order}"; keep the same order`);
  }
  if (state.b !== branch) {
    return bad(
      `was made for ${state.b === null ? "the whole sequence" : `branch "${state.b}"`}, not ${
        branch === null ? "the whole sequence" : `branch "${branch}"`
      }; keep the same branchId`,
    );
  }
  return { after: state.i, chars };
}
