/** The handoffs of the Markdown export: one file each, the conversation as written. */

import { readComments, readWhole } from "../../handoff/store_read.ts";
import { type Handoff, handoffPrefix } from "../../handoff/store_schema.ts";
import { listEntries } from "../../kit/reads.ts";
import { endLine, type FileSink, frontMatter, headingText, safeName } from "./files.ts";

const decoder = new TextDecoder();

/** Writes one file per handoff, in key order. */
export async function exportHandoffs(kv: Deno.Kv, sink: FileSink): Promise<void> {
  for await (const { value: h } of listEntries<Handoff>(kv, { prefix: handoffPrefix() })) {
    const whole = await readWhole(kv, h.key);
    if (whole === null) continue; // deleted meanwhile
    const comments = await readComments(kv, whole.entry.value);
    const parts = [
      frontMatter({
        id: h.key,
        kind: "handoff",
        title: h.title,
        author: h.fromAi,
        created: h.createdAt,
        updated: h.updatedAt,
        status: h.status,
        tags: h.tags,
        workspace: h.fromProject,
        imported_from: h.imported?.source,
        merged_from: h.mergedFrom ?? undefined,
      }),
      `# ${headingText(h.title)}\n`,
      h.summary.split("\n").map((l) => `> ${l}`.trimEnd()).join("\n") + "\n",
      ...(h.nextAction ? [`**Next:** ${headingText(h.nextAction)}\n`] : []),
      endLine(decoder.decode(whole.bytes)),
    ];
    if (comments.length > 0) {
      parts.push("---\n\n## Comments\n");
      for (const c of comments) {
        parts.push(`### ${c.author ?? "anonymous"} · ${c.createdAt}\n\n${endLine(c.content)}`);
      }
    }
    await sink(
      { path: `handoffs/${safeName(h.key)}.md`, text: parts.join("\n") },
      {
        section: "Handoffs",
        label: `${headingText(h.title)} (${h.key})`,
        path: `handoffs/${safeName(h.key)}.md`,
      },
    );
  }
}
