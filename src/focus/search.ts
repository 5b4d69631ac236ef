/**
 * What focus gives the search index: each project's north star and focus (replaced when set
 * again) and its follow-ups (demoted tasks), as `IndexDoc`s the store adds to its atomics and
 * as `SearchSource`s read back for fetch and for indexing an existing database.
 */

import { listEntries, readKey } from "../kit/reads.ts";
import type { IndexDoc, SearchSource } from "../kit/search_source.ts";
import {
  type Focus,
  FOCUS_PREFIX,
  focusKey,
  type Project,
  projectKey,
  PROJECTS_PREFIX,
  type Task,
  taskKey,
  taskPrefix,
} from "./store_keys.ts";

const uri = (projectId: string) => `handoff://projects/${encodeURIComponent(projectId)}/state`;

/** A project's north star. */
export function northStarDoc(projectId: string, northStar: string, at: string): IndexDoc {
  return {
    kind: "north_star",
    ref: [projectId],
    title: `North star of ${projectId}`,
    passages: [northStar],
    meta: { project_id: projectId },
    created_at: at,
  };
}

/** A project's focus. */
export function focusDoc(projectId: string, focus: Focus): IndexDoc {
  return {
    kind: "focus",
    ref: [projectId],
    title: `Focus of ${projectId}`,
    passages: [focus.why === undefined ? focus.statement : `${focus.statement}\n${focus.why}`],
    meta: { project_id: projectId },
    created_at: focus.updatedAt,
  };
}

/** A follow-up (a cleanup or record task). */
export function followUpDoc(task: Task): IndexDoc {
  return {
    kind: "followup",
    ref: [task.projectId, task.id],
    title: `Follow-up (${task.kind}) in ${task.projectId}`,
    passages: [task.body],
    meta: { project_id: task.projectId },
    created_at: task.createdAt,
  };
}

async function* keysUnder(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
  after: Deno.KvKey | undefined,
): AsyncGenerator<Deno.KvEntry<unknown>> {
  const selector = after === undefined
    ? { prefix }
    : { prefix, start: [...after, new Uint8Array()] };
  yield* listEntries(kv, selector as Deno.KvListSelector);
}

const asItem = (doc: IndexDoc | null, facts: Record<string, string> = {}) =>
  doc === null ? null : {
    title: doc.title,
    text: doc.passages.join("\n\n"),
    meta: doc.meta,
    created_at: doc.created_at,
    uri: uri(doc.meta.project_id!),
    facts,
  };

async function loadNorthStar(kv: Deno.Kv, [id]: string[]) {
  const p = await readKey<Project>(kv, projectKey(id));
  return p.value?.northStar === undefined
    ? null
    : northStarDoc(id, p.value.northStar, p.value.updatedAt);
}

async function loadFocus(kv: Deno.Kv, [id]: string[]) {
  const f = await readKey<Focus>(kv, focusKey(id));
  return f.value === null ? null : focusDoc(id, f.value);
}

async function loadFollowUp(kv: Deno.Kv, [projectId, id]: string[]) {
  const t = await readKey<Task>(kv, taskKey(projectId, id));
  return t.value === null || !t.value.demoted ? null : followUpDoc(t.value);
}

/** Focus's search sources. */
export const FOCUS_SEARCH_SOURCES: SearchSource[] = [
  {
    kind: "north_star",
    mutable: true,
    load: loadNorthStar,
    fetch: async (kv, ref) => asItem(await loadNorthStar(kv, ref)),
    scan: async function* (kv, after) {
      for await (const e of keysUnder(kv, PROJECTS_PREFIX, after && projectKey(after[0]))) {
        if ((e.value as Project).northStar !== undefined) yield [String(e.key[1])];
      }
    },
    uri: ([id]) => uri(id),
  },
  {
    kind: "focus",
    mutable: true,
    load: loadFocus,
    fetch: async (kv, ref) => asItem(await loadFocus(kv, ref)),
    scan: async function* (kv, after) {
      for await (const e of keysUnder(kv, FOCUS_PREFIX, after && focusKey(after[0]))) {
        yield [String(e.key[1])];
      }
    },
    uri: ([id]) => uri(id),
  },
  {
    kind: "followup",
    mutable: false,
    load: loadFollowUp,
    fetch: async (kv, ref) => {
      const doc = await loadFollowUp(kv, ref);
      const t = await readKey<Task>(kv, taskKey(ref[0], ref[1]));
      return asItem(
        doc,
        t.value === null ? {} : { status: t.value.status, task_kind: t.value.kind },
      );
    },
    scan: async function* (kv, after) {
      for await (const e of keysUnder(kv, taskPrefix(), after && taskKey(after[0], after[1]))) {
        if ((e.value as Task).demoted) yield [String(e.key[1]), String(e.key[2])];
      }
    },
    uri: ([id]) => uri(id),
  },
];
