/** Pieces the console's pages share: authors, proofs, states, links. */

import { type Author, type DecisionProof, PROOF_TEXT } from "../table/store_schema.ts";
import { bdi, esc } from "./html_layout.ts";

/** A name and how it was established. */
export function author(a: Author): string {
  return `${bdi(a.name)} <span class="via">via ${esc(a.via)}</span>`;
}

/** The proof a resolved decision has, worded as everywhere else. */
export function proof(p: DecisionProof | null): string {
  if (p === null) return "";
  return `<span class="proof proof-${esc(p)}" data-proof="${esc(p)}">${esc(PROOF_TEXT[p])}</span>`;
}

/** A handoff's state, stale ones marked. */
export function state(s: string): string {
  return `<span class="${s === "stale" ? "stale" : "state"}">${esc(s)}</span>`;
}

/** A link into the console; its text direction-isolated (it is often a stored title). */
export function link(path: string, text: string): string {
  return `<a href="${esc(path)}">${bdi(text)}</a>`;
}

/**
 * A list section's heading with its count and, when cut, how many are shown; `titleHtml` is
 * markup (stored parts of it already through `bdi`).
 */
export function counted(titleHtml: string, shown: number, total: number): string {
  return `${titleHtml} (${total}${shown < total ? `, ${shown} shown` : ""})`;
}
