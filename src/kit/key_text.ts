/**
 * A KV key as text, for maps and sets keyed by it (a hot key's turns, a restore's plan). The one
 * encoder: a write encodes each key it needs at most once.
 */

/** A text naming `key` exactly (distinct keys give distinct texts). */
export function keyText(key: Deno.KvKey): string {
  let text = "";
  for (const part of key) {
    if (typeof part === "string") text += `s${part.length}:${part}`;
    else if (part instanceof Uint8Array) text += `u${part.length}:${part.join(",")}`;
    else text += `${typeof part}:${String(part)};`;
  }
  return text;
}
