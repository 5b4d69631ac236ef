/**
 * What the table gives the search index: messages, decisions, plans, tasks and handoff
 * contexts, each as an `IndexDoc` (built by the stores inside their write's atomic) and as a
 * `SearchSource` (read back for fetch and for indexing an existing database).
 */

import { listEntries, readKey } from "../kit/reads.ts";
import type { FetchedItem, IndexDoc, SearchSource } from "../kit/search_source.ts";
import {
  type Discussion,
  keys,
  type StoredDecision,
  type StoredHandoff,
  type StoredMessage,
  type StoredPlan,
  type StoredTask,
  unpack,
} from "./store_schema.ts";

const who = (a: { name: string; via: string }) => ({ author: a.name, via: a.via });

/** A message as the index holds it (its discussion's title as title). */
export function messageDoc(
  d: Pick<Discussion, "id" | "title" | "workspace">,
  m: StoredMessage,
): IndexDoc {
  return {
    kind: "message",
    ref: [d.id, String(m.seq)],
    title: d.title,
    passages: [unpack(m.body)],
    meta: { workspace: d.workspace, ...who(m.author) },
    created_at: m.created_at,
  };
}

/** A decision: title, text and (once resolved) the reason. */
export function decisionDoc(d: StoredDecision): IndexDoc {
  const reason = d.reason === undefined ? "" : `\n${unpack(d.reason)}`;
  return {
    kind: "decision",
    ref: [d.id],
    title: d.title,
    passages: [unpack(d.detail) + reason],
    meta: { workspace: d.workspace, ...who(d.proposed_by) },
    created_at: d.created_at,
  };
}

/** A plan. */
export function planDoc(p: StoredPlan): IndexDoc {
  return {
    kind: "plan",
    ref: [p.id],
    title: p.title,
    passages: [unpack(p.body)],
    meta: { workspace: p.workspace, ...who(p.created_by) },
    created_at: p.created_at,
  };
}

/** A task: title and detail. */
export function taskDoc(t: StoredTask): IndexDoc {
  return {
    kind: "task",
    ref: [t.id],
    title: t.title,
    passages: [t.detail === undefined ? "" : unpack(t.detail)],
    meta: { workspace: t.workspace, ...who(t.created_by) },
    created_at: t.created_at,
  };
}

/** A handoff's context. */
export function contextDoc(h: StoredHandoff): IndexDoc {
  return {
    kind: "context",
    ref: [h.id],
    title: `Handoff to ${h.to}`,
    passages: [unpack(h.context)],
    meta: { workspace: h.workspace, ...who(h.from) },
    created_at: h.created_at,
  };
}

function fetched(doc: IndexDoc, facts: Record<string, string>, uri?: string): FetchedItem {
  return {
    title: doc.title,
    text: doc.passages.join("\n\n"),
    meta: doc.meta,
    created_at: doc.created_at,
    ...(uri === undefined ? {} : { uri }),
    facts,
  };
}

/** Refs of every record under `prefix` (keys `[...prefix, ...ref]`), after `after`. */
async function* refsUnder(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
  after: string[] | undefined,
  toKey: (ref: string[]) => Deno.KvKey,
  toRef: (key: Deno.KvKey) => string[],
): AsyncGenerator<string[]> {
  const selector = after === undefined
    ? { prefix }
    : { prefix, start: [...toKey(after), new Uint8Array()] };
  for await (const e of listEntries(kv, selector as Deno.KvListSelector)) yield toRef(e.key);
}

/** One source per record kind with a single-id key. */
function simpleSource<T>(
  kind: string,
  keyOf: (id: string) => Deno.KvKey,
  docOf: (value: T) => IndexDoc,
  facts: (value: T) => Record<string, string>,
  mutable: boolean,
): SearchSource {
  const prefix = keyOf("").slice(0, -1);
  const load = async (kv: Deno.Kv, ref: string[]) => {
    const e = await readKey<T>(kv, keyOf(ref[0]));
    return e.value === null ? null : docOf(e.value);
  };
  return {
    kind,
    mutable,
    load,
    fetch: async (kv, ref) => {
      const e = await readKey<T>(kv, keyOf(ref[0]));
      return e.value === null ? null : fetched(docOf(e.value), facts(e.value));
    },
    scan: (kv, after) =>
      refsUnder(kv, prefix, after, (r) => keyOf(r[0]), (k) => [String(k[prefix.length])]),
  };
}

const discussionUri = (ws: string, id: string) =>
  `handoff://table/${encodeURIComponent(ws)}/discussions/${encodeURIComponent(id)}`;

/** The table's search sources. */
export const TABLE_SEARCH_SOURCES: SearchSource[] = [
  {
    kind: "message",
    mutable: false,
    load: async (kv, [id, seq]) => {
      const [d, m] = await Promise.all([
        readKey<Discussion>(kv, keys.discussion(id)),
        readKey<StoredMessage>(kv, keys.message(id, Number(seq))),
      ]);
      return d.value === null || m.value === null ? null : messageDoc(d.value, m.value);
    },
    fetch: async (kv, [id, seq]) => {
      const [d, m] = await Promise.all([
        readKey<Discussion>(kv, keys.discussion(id)),
        readKey<StoredMessage>(kv, keys.message(id, Number(seq))),
      ]);
      if (d.value === null || m.value === null) return null;
      return fetched(messageDoc(d.value, m.value), {
        message_kind: m.value.kind,
        seq,
        discussion_id: id,
      }, discussionUri(d.value.workspace, id));
    },
    scan: (kv, after) =>
      refsUnder(
        kv,
        keys.messagesOf("").slice(0, 1),
        after,
        ([id, seq]) => keys.message(id, Number(seq)),
        (k) => [String(k[1]), String(k[2])],
      ),
  },
  simpleSource<StoredDecision>(
    "decision",
    keys.decision,
    decisionDoc,
    (d) => ({ status: d.status, scope: d.scope }),
    true,
  ),
  simpleSource<StoredPlan>("plan", keys.plan, planDoc, () => ({}), false),
  simpleSource<StoredTask>("task", keys.task, taskDoc, (t) => ({ status: t.status }), true),
  simpleSource<StoredHandoff>(
    "context",
    keys.handoff,
    contextDoc,
    (h) => ({ to: h.to, task_id: h.task_id }),
    false,
  ),
];
