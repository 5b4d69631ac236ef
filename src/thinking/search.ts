/**
 * What thinking gives the search index: every thought (its sequence's title as title), added
 * in the atomic that writes it, dropped with its sequence, expiring with it.
 */

import { getAll, listEntries, readKey } from "../kit/reads.ts";
import { type IndexDoc, type SearchSource, splitPassages } from "../kit/search_source.ts";
import {
  sequenceKey,
  type SequenceRecord,
  thoughtKey,
  thoughtPrefix,
  type ThoughtRecord,
} from "./store_keys.ts";
import { readTexts } from "./store_text.ts";

/** A thought as the index holds it. */
export function thoughtDoc(
  seq: Pick<SequenceRecord, "id" | "title">,
  thought: ThoughtRecord,
  text: string,
  expiryMs: number,
): IndexDoc {
  return {
    kind: "thought",
    ref: [seq.id, String(thought.index)],
    title: `${seq.title} (thought ${thought.thoughtNumber}${
      thought.branchId === "main" ? "" : `, ${thought.branchId}`
    })`,
    passages: splitPassages(text),
    meta: {},
    created_at: thought.createdAt,
    ...(expiryMs > 0 ? { expires_at: Date.parse(thought.createdAt) + expiryMs } : {}),
  };
}

async function load(kv: Deno.Kv, [id, index]: string[]): Promise<IndexDoc | null> {
  const [seq, thought] = await getAll<unknown>(kv, [
    sequenceKey(id),
    thoughtKey(id, Number(index)),
  ]);
  const s = seq.value as SequenceRecord | null;
  const t = thought.value as ThoughtRecord | null;
  if (s === null || t === null || s.deleting) return null;
  const [text] = await readTexts(kv, id, [t]);
  return thoughtDoc(s, t, text, 0);
}

/** Thinking's search source. */
export const THINKING_SEARCH_SOURCES: SearchSource[] = [{
  kind: "thought",
  mutable: true,
  load,
  fetch: async (kv, ref) => {
    const doc = await load(kv, ref);
    if (doc === null) return null;
    const t = await readKey<ThoughtRecord>(kv, thoughtKey(ref[0], Number(ref[1])));
    return {
      title: doc.title,
      text: doc.passages.join("\n"),
      meta: doc.meta,
      created_at: doc.created_at,
      facts: { sequence_id: ref[0], branch: t.value?.branchId ?? "main" },
    };
  },
  scan: async function* (kv, after) {
    const prefix = thoughtPrefix();
    const selector = after === undefined
      ? { prefix }
      : { prefix, start: [...thoughtKey(after[0], Number(after[1])), new Uint8Array()] };
    for await (const e of listEntries(kv, selector as Deno.KvListSelector)) {
      yield [String(e.key[1]), String(e.key[2])];
    }
  },
}];
