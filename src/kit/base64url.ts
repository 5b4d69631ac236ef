/** Base64url without padding: how ids, tokens, cursors and OAuth's hashes write bytes as text. */

/** `bytes` as base64url text without padding (RFC 4648 §5). */
export function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}
