/** Base64url without padding: how ids, tokens, cursors and OAuth's hashes write bytes as text. */

/** `bytes` as base64url text without padding (RFC 4648 §5). */
export function base64url(bytes: Uint8Array): string {
  return bytes.toBase64({ alphabet: "base64url", omitPadding: true });
}

/** `value` as JSON in base64url text: how cursors carry their state. */
export function jsonToken(value: unknown): string {
  return base64url(new TextEncoder().encode(JSON.stringify(value)));
}

/**
 * The value a `jsonToken` holds, or `undefined` when `text` is not one (not base64url, not UTF-8
 * JSON): a cursor is the client's text, and its caller refuses a bad one in its own words.
 */
export function parseJsonToken(text: string): unknown {
  try {
    const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return undefined;
  }
}
