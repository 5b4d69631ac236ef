/**
 * The focus toolset's reads: what `get_state` shows (from the state cache when the project
 * record is unchanged), pages of projects, and project ids for completion.
 */

import { listEntries, listPage, type Page, readKeys } from "../kit/reads.ts";
import type { FocusLimits } from "./settings.ts";
import type { FocusStateCache } from "./store_cache.ts";
import { readOpenFollowUps } from "./store_followups.ts";
import {
  type Focus,
  focusKey,
  type FocusState,
  type Project,
  projectKey,
  PROJECTS_PREFIX,
} from "./store_keys.ts";
import { validateProjectId } from "./store.ts";

/** Reads what `get_state` shows: project, focus and open follow-ups in the order added. */
export async function getState(
  kv: Deno.Kv,
  limits: FocusLimits,
  projectId: string,
  cache?: FocusStateCache,
): Promise<FocusState> {
  validateProjectId(projectId, limits);
  if (cache?.latest(projectId) !== undefined) {
    // Every write to the focus or follow-ups rewrites the project record, so its versionstamp
    // alone says whether the cached state is current: a hit reads one key, not two.
    const head = await cache!.heads.read(kv, projectId);
    if (head.versionstamp !== null) {
      const cached = cache!.get(projectId, head.versionstamp);
      if (cached !== undefined) return cached;
      // Calls that found the same newer version read it once (see `store_heads.ts`).
      return await cache!.heads.load(
        projectId,
        head.versionstamp,
        () => readState(kv, projectId, cache),
      );
    }
  }
  return await readState(kv, projectId, cache);
}

/** Reads a project's state in full, and keeps it in `cache`. */
async function readState(
  kv: Deno.Kv,
  projectId: string,
  cache?: FocusStateCache,
): Promise<FocusState> {
  const [project, focus] = await readKeys<[Project, Focus]>(kv, [
    projectKey(projectId),
    focusKey(projectId),
  ]);
  const version = project.versionstamp;
  const followUps = await readOpenFollowUps(kv, projectId, project.value);
  const state = { projectId, project: project.value, focus: focus.value, followUps };
  if (version !== null) cache?.put(version, state);
  return state;
}

/** One page of projects in id order. */
export async function listProjects(
  kv: Deno.Kv,
  options: { limit: number; cursor?: string },
): Promise<Page<Project>> {
  const page = await listPage<Project>(kv, PROJECTS_PREFIX, options);
  return { ...page, items: page.items.map((e) => e.value) };
}

/** Project ids starting with `prefix`, for argument completion. */
export async function projectIdsStartingWith(
  kv: Deno.Kv,
  prefix: string,
  limit: number,
): Promise<string[]> {
  const ids: string[] = [];
  const iter = listEntries<Project>(kv, { prefix: PROJECTS_PREFIX, start: projectKey(prefix) }, {
    limit,
  });
  for await (const entry of iter) {
    if (!entry.value.id.startsWith(prefix)) break;
    ids.push(entry.value.id);
  }
  return ids;
}
