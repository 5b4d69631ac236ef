/**
 * The first call of a new chat: what the workspace holds and what waits for the caller, read
 * from counters and indexes kept in the same atomics as the records, never by scanning them.
 */

import type { Caller, CallerVia } from "../kit/caller.ts";
import { AppError } from "../kit/errors.ts";
import { getAll, listAll } from "../kit/reads.ts";
import { MS_PER_DAY, TABLE_CONTRACT } from "./settings.ts";
import {
  checkLimit,
  chooseWorkspace,
  countValue,
  indexedIds,
  type TableCtx,
  type WorkspaceChoice,
} from "./store_common.ts";
import { awaitingDecisions, type Decision, standingRules } from "./store_decisions.ts";
import { quietDiscussions, recentDiscussions } from "./store_discussions.ts";
import { type Handoff, readHandoffs } from "./store_handoffs.ts";
import { latestPlan, type Plan } from "./store_plans.ts";
import { type CountName, type DiscussionSummary, keys, type Sighting } from "./store_schema.ts";
import { readTasks } from "./store_tasks.ts";
import { positionsIn, type UnreadDiscussion, unreadDiscussions, unreadOf } from "./store_reads.ts";

/** A listed discussion with what is unread in it for the caller. */
export type ListedDiscussion = DiscussionSummary & { unread: number };

/** One participant of a workspace: what it said and did, and how it was seen. */
export interface Participant {
  name: string;
  messages: number;
  actions: number;
  vias: CallerVia[];
  client_ids: string[];
}

/** What a name does and does not prove; shown wherever participants are. */
const NAME_LIMITATIONS =
  "A name says how a client connected, not who is behind it: via token is whoever holds that named token (tokens can be passed on); via header is a label the client chose itself; via local is the owner of the machine running stdio; via default is everyone on a shared path; via oauth is a verified OAuth client; via console is the owner signed in to the server's console. Only a decision with decided_by_kind=human (decided_via console or approval_code) proves a person approved it.";

/**
 * Participants of a workspace, most active first, at most `limit`; with `after_name`, those
 * after that participant.
 */
export async function getParticipants(
  ctx: TableCtx,
  input: { workspace?: string; limit?: number; after_name?: string },
): Promise<
  WorkspaceChoice & {
    participants: Participant[];
    has_more: boolean;
    total: number;
    limitations: string;
  }
> {
  const choice = chooseWorkspace(ctx, input.workspace);
  const limit = checkLimit(ctx, input.limit);
  const all = await participantsOf(ctx, choice.workspace);
  // Read on after a name, in the order of this read (most active first).
  const after = input.after_name?.toLowerCase();
  const at = after === undefined ? -1 : all.findIndex((p) => p.name.toLowerCase() === after);
  if (after !== undefined && at < 0) {
    throw new AppError(
      "invalid",
      `after_name "${input.after_name}" is not a participant of workspace "${choice.workspace}": pass the next_after_name of the previous page`,
    );
  }
  const from = at + 1;
  const rest = all.slice(from);
  return {
    ...choice,
    participants: rest.slice(0, limit),
    has_more: rest.length > limit,
    total: all.length,
    limitations: NAME_LIMITATIONS,
  };
}

async function participantsOf(ctx: TableCtx, ws: string): Promise<Participant[]> {
  const byName = new Map<string, Participant>();
  const get = (lower: string) => {
    let p = byName.get(lower);
    if (!p) {
      p = { name: lower, messages: 0, actions: 0, vias: [], client_ids: [] };
      byName.set(lower, p);
    }
    return p;
  };
  const [seen, spoke] = await Promise.all([
    listAll<Sighting>(ctx.kv, { prefix: keys.seenIn(ws) }),
    listAll(ctx.kv, { prefix: keys.spokeIn(ws) }),
  ]);
  for (const e of seen) {
    const p = get(e.key[2] as string);
    p.name = e.value.name;
    if (!p.vias.includes(e.value.via)) p.vias.push(e.value.via);
    const client = e.value.client_id;
    if (client !== undefined && !p.client_ids.includes(client)) p.client_ids.push(client);
  }
  for (const e of spoke) {
    const p = get(e.key[2] as string);
    p[e.key[3] as "messages" | "actions"] = countValue(e);
  }
  return [...byName.values()].sort((a, b) =>
    (b.messages + b.actions) - (a.messages + a.actions) || a.name.localeCompare(b.name)
  );
}

const COUNTS: CountName[] = [
  "discussions",
  "discussions_empty",
  "decisions_proposed",
  "plans_current",
  "rules",
  "tasks_open",
  "tasks_in_progress",
  "tasks_blocked",
  "handoffs_pending",
];

/** What waits for one caller in one workspace. */
export interface Waiting {
  unaccepted: { handoffs: string[]; tasks: string[]; total: number };
  in_progress: { tasks: string[]; total: number };
  total: number;
}

/** The whole `get_workspace_context` result; its top-level keys are pinned by a test. */
export interface WorkspaceContext {
  contract: number;
  workspace: string;
  you_are: { name: string; via: CallerVia; client_id: string | null; limitations: string };
  standing_rules: Decision[];
  participants: Participant[];
  open_items: {
    decisions_awaiting: { total: number; items: Decision[] };
    plans_current: number;
    latest_plan: Plan | null;
    tasks: { open: number; in_progress: number; blocked: number };
    handoffs_pending: { total: number; items: Handoff[]; has_more: boolean };
    handoffs_inactive: { total: number; items: Handoff[] };
    waiting_for_you: Waiting;
    unread: {
      discussions: number;
      messages: number;
      items: UnreadDiscussion[];
      has_more: boolean;
    };
    health: { status: "ok" | "attention"; problems: string[] };
  };
  discussions: ListedDiscussion[];
  has_more: boolean;
  total_discussions: number;
  quiet_discussions: { quiet_for_days: number; items: ListedDiscussion[]; has_more: boolean };
  elsewhere: {
    total: number;
    workspaces: { workspace: string; handoffs: string[]; tasks: string[]; total: number }[];
  };
}

/** Everything a new chat needs to know about a workspace and what waits for the caller. */
export async function getWorkspaceContext(
  ctx: TableCtx,
  caller: Caller,
  input: { workspace?: string; limit?: number; quiet_for_days?: number },
): Promise<WorkspaceContext> {
  const ws = chooseWorkspace(ctx, input.workspace).workspace;
  const limit = checkLimit(ctx, input.limit);
  const quietDays = input.quiet_for_days ?? ctx.settings.staleDays;
  if (!(quietDays > 0) || quietDays > 3650) {
    throw new AppError(
      "invalid",
      `quiet_for_days must be a number of days above 0 and at most 3650, got ${quietDays}`,
    );
  }
  const cutoff = new Date(ctx.settings.now() - quietDays * MS_PER_DAY).toISOString();
  const pageMax = ctx.settings.limits.pageMax;
  const [counts, rules, participants, awaiting, plan, pending, recent, quiet, mine, positions] =
    await Promise.all([
      getAll(ctx.kv, COUNTS.map((c) => keys.count(ws, c))),
      standingRules(ctx, ws, limit),
      participantsOf(ctx, ws),
      awaitingDecisions(ctx, ws, limit),
      latestPlan(ctx, ws),
      pendingHandoffs(ctx, ws, pageMax),
      recentDiscussions(ctx, ws, limit),
      quietDiscussions(ctx, ws, cutoff, limit),
      waitingFor(ctx, caller.name),
      positionsIn(ctx, caller.name, ws),
    ]);
  const count = (name: CountName) => countValue(counts[COUNTS.indexOf(name)]);
  const unread = await unreadOf(ctx, positions, [...recent, ...quiet.items], {
    messages: participants.reduce((n, p) => n + p.messages, 0),
    withMessages: count("discussions") - count("discussions_empty"),
  });
  const listed = (d: DiscussionSummary): ListedDiscussion => ({ ...d, unread: unread.of(d) });
  const named = await unreadDiscussions(
    ctx,
    ws,
    positions,
    unread.totals.discussions,
    limit,
    recent,
  );
  const inactive = pending.filter((h) => h.state === "stale");
  const here = mine.get(ws) ?? emptyWaiting();
  const problems: string[] = [];
  if (inactive.length > 0) {
    problems.push(
      `${inactive.length} handoff(s) waiting longer than ${ctx.settings.staleDays} days: their addressees have not accepted them`,
    );
  }
  if (count("decisions_proposed") > 0) {
    problems.push(`${count("decisions_proposed")} decision(s) await a person's verdict`);
  }
  if (count("tasks_blocked") > 0) problems.push(`${count("tasks_blocked")} task(s) blocked`);
  // Arrays without has_more of their own: a cut one says so here, never reads as complete.
  if (count("rules") > rules.length) {
    problems.push(
      `standing_rules shows ${rules.length} of ${
        count("rules")
      }: raise limit or call get_decisions status=approved`,
    );
  }
  if (participants.length > limit) {
    problems.push(
      `participants shows ${limit} of ${participants.length}: call get_participants for the rest`,
    );
  }
  const elsewhere = [...mine.entries()]
    .filter(([name, w]) => name !== ws && w.total > 0)
    .map(([workspace, w]) => ({
      workspace,
      handoffs: w.unaccepted.handoffs,
      tasks: [...w.unaccepted.tasks, ...w.in_progress.tasks],
      total: w.total,
    }));
  return {
    contract: TABLE_CONTRACT,
    workspace: ws,
    you_are: {
      name: caller.name,
      via: caller.via,
      client_id: caller.clientId ?? null,
      limitations: NAME_LIMITATIONS,
    },
    standing_rules: rules,
    participants: participants.slice(0, limit),
    open_items: {
      decisions_awaiting: { total: count("decisions_proposed"), items: awaiting },
      plans_current: count("plans_current"),
      latest_plan: plan,
      tasks: {
        open: count("tasks_open"),
        in_progress: count("tasks_in_progress"),
        blocked: count("tasks_blocked"),
      },
      handoffs_pending: {
        total: count("handoffs_pending"),
        items: pending.slice(0, limit),
        has_more: count("handoffs_pending") > Math.min(limit, pending.length),
      },
      handoffs_inactive: { total: inactive.length, items: inactive.slice(0, limit) },
      waiting_for_you: here,
      unread: {
        ...unread.totals,
        items: named,
        has_more: unread.totals.discussions > named.length,
      },
      health: { status: problems.length === 0 ? "ok" : "attention", problems },
    },
    discussions: recent.map(listed),
    has_more: count("discussions") > recent.length,
    total_discussions: count("discussions"),
    quiet_discussions: {
      quiet_for_days: quietDays,
      items: quiet.items.map(listed),
      has_more: quiet.has_more,
    },
    elsewhere: { total: elsewhere.reduce((n, w) => n + w.total, 0), workspaces: elsewhere },
  };
}

async function pendingHandoffs(ctx: TableCtx, ws: string, max: number): Promise<Handoff[]> {
  return await readHandoffs(ctx, await indexedIds(ctx, keys.pendingIn(ws), max));
}

function emptyWaiting(): Waiting {
  return {
    unaccepted: { handoffs: [], tasks: [], total: 0 },
    in_progress: { tasks: [], total: 0 },
    total: 0,
  };
}

/** What waits for `caller` in workspace `ws` (the waiting resource). */
export async function getWaiting(ctx: TableCtx, caller: Caller, ws: string): Promise<Waiting> {
  return (await waitingFor(ctx, caller.name)).get(ws) ?? emptyWaiting();
}

/**
 * What waits for `name` in every workspace, by workspace. A task that arrived with a handoff
 * still waiting for acceptance counts once, as that handoff.
 */
async function waitingFor(ctx: TableCtx, name: string): Promise<Map<string, Waiting>> {
  const lower = name.toLowerCase();
  const [handoffKeys, taskKeys] = await Promise.all([
    listAll<string>(ctx.kv, { prefix: keys.addressedTo(name) }),
    listAll<string>(ctx.kv, { prefix: keys.ownedBy(name) }),
  ]);
  const byWs = new Map<string, Waiting>();
  const of = (ws: string) => {
    let w = byWs.get(ws);
    if (!w) byWs.set(ws, w = emptyWaiting());
    return w;
  };
  for (const e of handoffKeys) of(e.key[2] as string).unaccepted.handoffs.push(e.value);
  for (const t of await readTasks(ctx, taskKeys.map((e) => e.value))) {
    const w = of(t.workspace);
    const arrivedByHandoff = t.handoff !== null && t.handoff_to?.toLowerCase() === lower;
    if (arrivedByHandoff) continue;
    if (t.status === "open") w.unaccepted.tasks.push(t.id);
    if (t.status === "in_progress") w.in_progress.tasks.push(t.id);
  }
  for (const w of byWs.values()) {
    w.unaccepted.total = w.unaccepted.handoffs.length + w.unaccepted.tasks.length;
    w.in_progress.total = w.in_progress.tasks.length;
    w.total = w.unaccepted.total + w.in_progress.total;
  }
  return byWs;
}
