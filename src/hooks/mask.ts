/**
 * Secrets masked out of a transcript before it is saved, and out of every line a hook prints:
 * bearer tokens, API keys in the formats their vendors publish, JWTs, private keys, the token in
 * a handoff-mcp URL, and any exact value the caller names (its own token).
 */

/** One kind of secret: what it is called in the mask, and how it is found. */
interface SecretPattern {
  name: string;
  pattern: RegExp;
  /** How much of the match stays visible (a prefix that says what kind of key it was). */
  keep?: (match: string) => string;
  /**
   * A quick test a text must pass for the pattern to be tried: the secret-value pattern
   * backtracks at every word, and most texts (whole files in tool calls) hold none of its names.
   */
  hint?: RegExp;
}

const PATTERNS: SecretPattern[] = [
  {
    name: "private key",
    pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  },
  { name: "anthropic key", pattern: /\bsk-ant-[A-Za-z0-9_-]{16,}/g, keep: () => "sk-ant-" },
  { name: "openai key", pattern: /\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}/g, keep: () => "sk-" },
  { name: "github token", pattern: /\bgh[pousr]_[A-Za-z0-9]{30,}/g, keep: (m) => m.slice(0, 4) },
  { name: "github token", pattern: /\bgithub_pat_[A-Za-z0-9_]{22,}/g, keep: () => "github_pat_" },
  { name: "aws key", pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, keep: (m) => m.slice(0, 4) },
  { name: "slack token", pattern: /\bxox[abeoprs]-[A-Za-z0-9-]{10,}/g, keep: (m) => m.slice(0, 5) },
  { name: "google key", pattern: /\bAIza[0-9A-Za-z_-]{35}/g, keep: () => "AIza" },
  {
    name: "jwt",
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  },
  {
    name: "bearer token",
    pattern: /\b(Bearer|Basic|Token)(\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
    keep: (m) => m.match(/^\S+\s+/)![0],
  },
  {
    // http://host/<token>/mcp: the server's token travels as a path segment.
    name: "url token",
    pattern: /(https?:\/\/[^\s/"'<>]+\/)([A-Za-z0-9._~-]{16,})(?=\/(?:mcp|sse|messages|api)\b)/g,
    keep: (m) => m.slice(0, m.lastIndexOf("/", m.length - 1) + 1),
  },
  {
    // api_key=…, "password": "…", SECRET_TOKEN: … — the value after a name that says secret.
    name: "secret value",
    pattern:
      /\b([A-Za-z0-9_]*(?:api[_-]?key|secret|password|passwd|access[_-]?token|auth[_-]?token|client[_-]?secret)[A-Za-z0-9_]*["']?\s*[:=]\s*["']?)([^\s"',;]{8,})/gi,
    keep: (m) => m.match(/^[^:=]*[:=]\s*["']?/)![0],
    hint: /api[_-]?key|secret|passw|access[_-]?token|auth[_-]?token/i,
  },
];

/** What a masked secret is replaced with. */
export const MASK = "[masked]";

/**
 * `text` with every secret found replaced by `[masked]` (after a short prefix that says what kind
 * of key it was, e.g. `sk-ant-[masked]`). `exact` are further values to mask wherever they
 * appear (the hook's own token); values shorter than 8 characters are ignored, as they would mask
 * ordinary words.
 */
export function maskSecrets(text: string, exact: readonly string[] = []): string {
  let out = text;
  for (const value of exact) {
    if (value.length >= 8) out = out.replaceAll(value, MASK);
  }
  for (const { pattern, keep, hint } of PATTERNS) {
    if (hint && !hint.test(out)) continue;
    out = out.replace(pattern, (match) => {
      if (match.includes(MASK) && match.replace(MASK, "").length < 8) return match;
      return `${keep ? keep(match) : ""}${MASK}`;
    });
  }
  return out;
}
