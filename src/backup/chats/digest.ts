/** Stable hashes for keys (Gemini's first turn) and for the digest of what an import writes. */

import { createHash } from "node:crypto";

/** Hex SHA-256 of `text`. */
export function hashText(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
