/**
 * The HTML of a Gemini answer (Takeout's `safeHtmlItem`) as Markdown text: paragraphs, line
 * breaks, emphasis, code, lists, headings and links kept; every other tag dropped, entities
 * decoded. Takeout's HTML is sanitized and simple, so a tag-by-tag rewrite is enough.
 */

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  "#39": "'",
};

/** Decodes named and numeric character references. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z0-9]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X"
        ? parseInt(name.slice(2), 16)
        : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** Markdown text of `html`. */
export function htmlToMarkdown(html: string): string {
  let text = html.replace(/\r\n?/g, "\n");
  // Code blocks first, so nothing inside them is rewritten.
  const blocks: string[] = [];
  text = text.replace(/<pre[^>]*>([\s\S]*?)<\/pre>/gi, (_, inner: string) => {
    const code = decodeEntities(inner.replace(/<[^>]+>/g, "")).replace(/\n$/, "");
    const longest = Math.max(2, ...[...code.matchAll(/`+/g)].map((m) => m[0].length));
    const fence = "`".repeat(longest + 1);
    blocks.push(`\n\n${fence}\n${code}\n${fence}\n\n`);
    return `\u0000${blocks.length - 1}\u0000`;
  });
  text = text
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<h([1-6])[^>]*>/gi, (_, n: string) => `\n\n${"#".repeat(Number(n))} `)
    .replace(/<\/h[1-6]>/gi, "\n\n")
    .replace(/<li[^>]*>/gi, "\n- ")
    .replace(/<\/(ul|ol)>/gi, "\n\n")
    .replace(/<\/?(p|div|ul|ol|table|tr|blockquote)[^>]*>/gi, "\n\n")
    .replace(/<\/t[dh]>/gi, " | ")
    .replace(/<\/?(strong|b)>/gi, "**")
    .replace(/<\/?(em|i)>/gi, "_")
    .replace(/<\/?code[^>]*>/gi, "`")
    .replace(
      /<a\s[^>]*href="([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi,
      (_, href: string, label: string) => `[${label}](${href})`,
    )
    .replace(/<[^>]+>/g, "");
  text = decodeEntities(text)
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    // deno-lint-ignore no-control-regex
    .replace(/\u0000(\d+)\u0000/g, (_, i: string) => blocks[Number(i)]);
  return text.replace(/\n{3,}/g, "\n\n").trim();
}
