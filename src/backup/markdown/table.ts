/**
 * The table's records in the Markdown export, under `table/<workspace>/`: one file per
 * discussion (its messages in seq order, each with author and `via`), per decision, per plan and
 * per task (with the handoffs of its context).
 */

import { listEntries } from "../../kit/reads.ts";
import {
  type Author,
  type Discussion,
  keys,
  type StoredDecision,
  type StoredHandoff,
  type StoredMessage,
  type StoredPlan,
  type StoredTask,
  unpack,
} from "../../table/store_schema.ts";
import { endLine, type FileSink, frontMatter, headingText, safeName } from "./files.ts";

/** The prefix of every record of one key shape: the shape's first part. */
function shapePrefix(key: Deno.KvKey): Deno.KvKey {
  return key.slice(0, 1);
}

function who(a: Author | undefined): string | undefined {
  return a === undefined ? undefined : `${a.name} (${a.via})`;
}

function folder(ws: string, kind: string, id: string): string {
  return `table/${safeName(ws)}/${kind}/${safeName(id)}.md`;
}

/** Writes the table's files, kind by kind, each in id order. */
export async function exportTable(kv: Deno.Kv, sink: FileSink): Promise<void> {
  await exportDiscussions(kv, sink);
  for await (
    const { value: d } of listEntries<StoredDecision>(kv, {
      prefix: shapePrefix(keys.decision("")),
    })
  ) {
    const text = [
      frontMatter({
        id: d.id,
        kind: "decision",
        title: d.title,
        author: who(d.proposed_by),
        created: d.created_at,
        updated: d.decided_at,
        status: d.status,
        scope: d.scope,
        workspace: d.workspace,
        decided_by: who(d.decided_by),
        decided_via: d.decided_via,
        discussion: d.discussion_id,
        superseded_by: d.superseded_by,
      }),
      `# ${headingText(d.title)}\n`,
      endLine(unpack(d.detail)),
      ...(d.decided_at
        ? [
          `## ${d.status === "approved" ? "Approved" : "Rejected"} by ${
            who(d.decided_by)
          } · ${d.decided_at}\n`,
        ]
        : []),
      ...(d.reason ? [endLine(unpack(d.reason))] : []),
    ].join("\n");
    const path = folder(d.workspace, "decisions", d.id);
    await sink({ path, text }, {
      section: `Table: ${d.workspace}: decisions`,
      label: `${headingText(d.title)} (${d.status})`,
      path,
    });
  }
  for await (
    const { value: p } of listEntries<StoredPlan>(kv, { prefix: shapePrefix(keys.plan("")) })
  ) {
    const text = [
      frontMatter({
        id: p.id,
        kind: "plan",
        title: p.title,
        author: who(p.created_by),
        created: p.created_at,
        workspace: p.workspace,
        supersedes: p.supersedes,
        decision: p.decision_id,
        discussion: p.discussion_id,
      }),
      `# ${headingText(p.title)}\n`,
      endLine(unpack(p.body)),
    ].join("\n");
    const path = folder(p.workspace, "plans", p.id);
    await sink({ path, text }, {
      section: `Table: ${p.workspace}: plans`,
      label: headingText(p.title),
      path,
    });
  }
  await exportTasks(kv, sink);
}

async function exportDiscussions(kv: Deno.Kv, sink: FileSink): Promise<void> {
  for await (
    const { value: d } of listEntries<Discussion>(kv, { prefix: shapePrefix(keys.discussion("")) })
  ) {
    const parts = [
      frontMatter({
        id: d.id,
        kind: "discussion",
        title: d.title,
        author: who(d.created_by),
        created: d.created_at,
        updated: d.last_message_at,
        workspace: d.workspace,
        messages: d.latest_seq,
      }),
      `# ${headingText(d.title)}\n`,
    ];
    for await (
      const { value: m } of listEntries<StoredMessage>(kv, { prefix: keys.messagesOf(d.id) })
    ) {
      const reply = m.in_reply_to === undefined ? "" : ` · in reply to #${m.in_reply_to}`;
      parts.push(
        `## #${m.seq} ${m.author.name} (via ${m.author.via}) · ${m.kind} · ${m.created_at}${reply}\n`,
        endLine(unpack(m.body)),
      );
    }
    const path = folder(d.workspace, "discussions", d.id);
    await sink({ path, text: parts.join("\n") }, {
      section: `Table: ${d.workspace}: discussions`,
      label: headingText(d.title),
      path,
    });
  }
}

async function exportTasks(kv: Deno.Kv, sink: FileSink): Promise<void> {
  // A task's handoffs, by task: read once, in id (creation) order.
  const byTask = new Map<string, StoredHandoff[]>();
  for await (
    const { value: h } of listEntries<StoredHandoff>(kv, { prefix: shapePrefix(keys.handoff("")) })
  ) {
    byTask.set(h.task_id, [...(byTask.get(h.task_id) ?? []), h]);
  }
  for await (
    const { value: t } of listEntries<StoredTask>(kv, { prefix: shapePrefix(keys.task("")) })
  ) {
    const parts = [
      frontMatter({
        id: t.id,
        kind: "task",
        title: t.title,
        author: who(t.created_by),
        created: t.created_at,
        updated: t.updated_at,
        status: t.status,
        assigned_to: t.assigned_to,
        workspace: t.workspace,
        discussion: t.discussion_id,
      }),
      `# ${headingText(t.title)}\n`,
      ...(t.detail ? [endLine(unpack(t.detail))] : []),
    ];
    for (const h of byTask.get(t.id) ?? []) {
      const accepted = h.accepted_at ? ` · accepted by ${who(h.accepted_by)} ${h.accepted_at}` : "";
      parts.push(
        `## Handoff to ${h.to} from ${who(h.from)} · ${h.created_at}${accepted}\n`,
        endLine(unpack(h.context)),
      );
    }
    const path = folder(t.workspace, "tasks", t.id);
    await sink({ path, text: parts.join("\n") }, {
      section: `Table: ${t.workspace}: tasks`,
      label: `${headingText(t.title)} (${t.status})`,
      path,
    });
  }
}
