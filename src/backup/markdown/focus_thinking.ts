/**
 * Focus projects and thinking sequences in the Markdown export: one file per project (north
 * star, focus, follow-ups, main tasks) and one per sequence (its thoughts in history order).
 */

import {
  type Focus,
  focusKey,
  type Project,
  projectKey,
  type Task,
  taskKey,
} from "../../focus/store_keys.ts";
import { listEntries, readKey } from "../../kit/reads.ts";
import {
  sequenceKey,
  type SequenceRecord,
  thoughtPrefix,
  type ThoughtRecord,
} from "../../thinking/store_keys.ts";
import { readTexts } from "../../thinking/store_text.ts";
import { endLine, type FileSink, frontMatter, headingText, safeName } from "./files.ts";

/** Writes one file per focus project. */
export async function exportProjects(kv: Deno.Kv, sink: FileSink): Promise<void> {
  for await (
    const { value: p } of listEntries<Project>(kv, { prefix: projectKey("").slice(0, 1) })
  ) {
    const focus = (await readKey<Focus>(kv, focusKey(p.id))).value;
    const tasks: Task[] = [];
    for await (const e of listEntries<Task>(kv, { prefix: taskKey(p.id, "").slice(0, 2) })) {
      tasks
        .push(e.value);
    }
    const line = (t: Task) =>
      `- [${t.status === "done" ? "x" : " "}] ${headingText(t.body)} (${t.kind}, ${t.createdAt}${
        t.doneAt ? `, done ${t.doneAt}` : ""
      })`;
    const followUps = tasks.filter((t) => t.demoted && t.status === "open");
    const rest = tasks.filter((t) => !(t.demoted && t.status === "open"));
    const parts = [
      frontMatter({
        id: p.id,
        kind: "project",
        created: p.createdAt,
        updated: p.updatedAt,
        workspace: p.id,
      }),
      `# ${headingText(p.id)}\n`,
      `## North star\n\n${endLine(p.northStar ?? "(not set)")}`,
      `## Focus\n\n${
        focus ? endLine(focus.statement + (focus.why ? `\n\nWhy: ${focus.why}` : "")) : "(none)\n"
      }`,
      `## Follow-ups\n\n${
        followUps.length > 0 ? followUps.map(line).join("\n") + "\n" : "(none open)\n"
      }`,
      ...(rest.length > 0 ? [`## Other tasks\n\n${rest.map(line).join("\n")}\n`] : []),
    ];
    const path = `projects/${safeName(p.id)}.md`;
    await sink({ path, text: parts.join("\n") }, { section: "Projects", label: p.id, path });
  }
}

/** Writes one file per thinking sequence. */
export async function exportSequences(kv: Deno.Kv, sink: FileSink): Promise<void> {
  for await (
    const { value: s } of listEntries<SequenceRecord>(kv, { prefix: sequenceKey("").slice(0, 1) })
  ) {
    if (s.deleting) continue;
    const records: ThoughtRecord[] = [];
    for await (const e of listEntries<ThoughtRecord>(kv, { prefix: thoughtPrefix(s.id) })) {
      records.push(e.value);
    }
    const texts = await readTexts(kv, s.id, records);
    const parts = [
      frontMatter({
        id: s.id,
        kind: "thinking",
        title: s.title,
        created: s.createdAt,
        updated: s.updatedAt,
        completed: s.completed,
        thoughts: s.thoughtCount,
      }),
      `# ${headingText(s.title)}\n`,
    ];
    records.forEach((r, i) => {
      const notes = [
        r.branchId !== "main" ? `branch ${r.branchId}` : "",
        r.isRevision && r.revisesThought !== undefined ? `revises ${r.revisesThought}` : "",
        r.branchFromThought !== undefined ? `from thought ${r.branchFromThought}` : "",
      ].filter((n) => n !== "");
      parts.push(
        `## Thought ${r.thoughtNumber} of ${r.totalThoughts}${
          notes.length ? ` (${notes.join(", ")})` : ""
        } · ${r.createdAt}\n`,
        endLine(texts[i]),
      );
    });
    const path = `thinking/${safeName(s.id)}.md`;
    await sink({ path, text: parts.join("\n") }, {
      section: "Thinking",
      label: headingText(s.title),
      path,
    });
  }
}
