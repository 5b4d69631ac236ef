/**
 * The `search` group's corpus: sentences of real text from this machine's documentation
 * (/usr/share/doc, gzip included) and this repository's Markdown, dealt into messages and
 * handoff conversations by a seeded generator, so every run builds the same corpus.
 */

/** Real-text sentences, at most `max` of them, in a stable order. */
export async function sentences(root: string, max = 400_000): Promise<string[]> {
  const out: string[] = [];
  const files: string[] = [];
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(dir)) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory && !e.name.startsWith(".") && e.name !== "node_modules") await walk(path);
      else if (e.isFile && /\.(md|gz|txt)$|copyright$|README$/i.test(e.name)) files.push(path);
    }
  };
  for (const dir of ["/usr/share/doc", root]) await walk(dir).catch(() => {});
  files.sort();
  for (const file of files) {
    let text: string;
    try {
      const bytes = await Deno.readFile(file);
      text = file.endsWith(".gz")
        ? await new Response(
          new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip")),
        ).text()
        : new TextDecoder().decode(bytes);
    } catch {
      continue;
    }
    for (const s of text.replace(/\s+/g, " ").split(/(?<=[.!?])\s+/)) {
      const t = s.trim();
      if (t.length >= 20 && t.length <= 400 && /[a-z]{3}/i.test(t)) out.push(t);
      if (out.length >= max) return out;
    }
  }
  return out;
}

import { rng } from "../tests/support/random.ts";

export { rng };

/** `count` messages of 1–4 sentences each. */
export function messages(all: string[], count: number, seed = 1): string[] {
  const r = rng(seed);
  return Array.from({ length: count }, () => {
    const n = 1 + Math.floor(r() * 4);
    return Array.from({ length: n }, () => all[Math.floor(r() * all.length)]).join(" ");
  });
}

/** A conversation of about `bytes` bytes, in `## User` / `## Assistant` turns. */
export function conversation(all: string[], bytes: number, seed: number): string {
  const r = rng(seed);
  const parts: string[] = [];
  let size = 0;
  let turn = 0;
  while (size < bytes) {
    const body = Array.from(
      { length: 2 + Math.floor(r() * 6) },
      () => all[Math.floor(r() * all.length)],
    ).join(" ");
    const part = `## ${turn++ % 2 === 0 ? "User" : "Assistant"}\n${body}\n\n`;
    parts.push(part);
    size += part.length;
  }
  return parts.join("");
}

/** Words of `text` that make a known-answer query: 2–3 of its rarest longer words. */
export function queryFor(text: string, df: Map<string, number>, r: () => number): string {
  const words = [...new Set(text.toLowerCase().match(/\b[a-z]{5,}\b/g) ?? [])];
  words.sort((a, b) => (df.get(a) ?? 0) - (df.get(b) ?? 0) || a.localeCompare(b));
  const pick = words.slice(0, 6);
  const n = Math.min(pick.length, 2 + Math.floor(r() * 2));
  return pick.sort(() => r() - 0.5).slice(0, n).join(" ");
}
