/**
 * The table's derived data recomputed from its records (see rebuild.ts): a discussion's
 * `latest_seq` and `last_message_at` from its messages, every index, every workspace counter,
 * each participant's message count, and read positions no further than a discussion's end.
 * Not derivable, so kept as they are: participants' action counts and sightings (they count
 * writes no record keeps).
 */

import { listEntries } from "../kit/reads.ts";
import {
  type CountName,
  type Discussion,
  keys,
  type StoredDecision,
  type StoredHandoff,
  type StoredMessage,
  type StoredPlan,
  type StoredTask,
  summaryOf,
} from "../table/store_schema.ts";
import type { DerivedPlan, Rebuilder } from "./rebuild_types.ts";

type Entries = DerivedPlan["entries"];

/** Workspace counters, by workspace and name, as they are being counted. */
class Counts {
  readonly byKey = new Map<string, { ws: string; name: CountName; n: number }>();
  add(ws: string, name: CountName, n = 1): void {
    const id = JSON.stringify([ws, name]);
    const c = this.byKey.get(id) ?? { ws, name, n: 0 };
    c.n += n;
    this.byKey.set(id, c);
  }
  entries(): Entries {
    return [...this.byKey.values()].map((c) => ({
      key: keys.count(c.ws, c.name),
      value: new Deno.KvU64(BigInt(c.n)),
    }));
  }
}

/** The records of `family`, streamed: bodies and contexts are never all held at once. */
async function* records<T>(kv: Deno.Kv, family: string): AsyncGenerator<T> {
  for await (const e of listEntries<T>(kv, { prefix: [family] })) yield e.value;
}

/** Key families that hold only derived data: an index entry or a position. */
const DERIVED_FAMILIES = [
  "ws_discussion",
  "ws_activity",
  "ws_decision",
  "ws_decision_open",
  "ws_rule",
  "ws_plan",
  "ws_plan_current",
  "plan_successor",
  "ws_task_in",
  "ws_task_owner",
  "ws_handoff_in",
  "ws_handoff_pending",
  "ws_handoff_to",
  "ws_read",
];

/** The table's rebuilder. */
export const tableRebuilder: Rebuilder = {
  name: "table",
  async plan(kv) {
    const counts = new Counts();
    const entries: Entries = [];
    const discussions = await discussionsFromMessages(kv, counts, entries);
    await readPositions(kv, discussions, entries);
    await decisionsAndPlans(kv, counts, entries);
    await tasksAndHandoffs(kv, counts, entries);
    entries.push(...counts.entries());
    const zero = (v: unknown) => v instanceof Deno.KvU64 && v.value === 0n;
    return {
      owned: [
        ...DERIVED_FAMILIES.map((family) => ({ prefix: [family] })),
        { prefix: keys.countsOf(), absent: zero },
        { prefix: ["ws_participant_count"], keep: (k: Deno.KvKey) => k[3] !== "messages" },
      ],
      entries,
    };
  },
};

/**
 * Each discussion set to its messages (`latest_seq` the last seq, `last_message_at` its time),
 * its indexes and counts, and each author's message count. Messages of a discussion whose
 * record is missing are left where they are but counted nowhere: nothing shows them.
 */
async function discussionsFromMessages(
  kv: Deno.Kv,
  counts: Counts,
  entries: Entries,
): Promise<Map<string, Discussion>> {
  const discussions = new Map<string, Discussion>();
  for await (const d of records<Discussion>(kv, "discussion")) discussions.set(d.id, d);
  const last = new Map<string, { seq: number; at: string }>();
  const spoke = new Map<string, { ws: string; name: string; n: number }>();
  for await (const e of listEntries<StoredMessage>(kv, { prefix: ["message"] })) {
    const m = e.value;
    const d = discussions.get(m.discussion_id);
    if (d === undefined) continue;
    if (m.seq > (last.get(d.id)?.seq ?? 0)) last.set(d.id, { seq: m.seq, at: m.created_at });
    const id = JSON.stringify([d.workspace, m.author.name.toLowerCase()]);
    const s = spoke.get(id) ?? { ws: d.workspace, name: m.author.name, n: 0 };
    s.n++;
    spoke.set(id, s);
  }
  for (const s of spoke.values()) {
    entries.push({ key: keys.spoke(s.ws, s.name, "messages"), value: new Deno.KvU64(BigInt(s.n)) });
  }
  for (const [id, stored] of discussions) {
    const d = settled(stored, last.get(id));
    discussions.set(id, d);
    const ws = d.workspace;
    if (d !== stored) entries.push({ key: keys.discussion(id), value: d });
    entries.push(
      { key: keys.wsDiscussion(ws, id), value: id },
      { key: keys.activity(ws, d.last_message_at, id), value: summaryOf(d) },
    );
    counts.add(ws, "discussions");
    counts.add(ws, "discussions_empty", d.latest_seq === 0 ? 1 : 0);
  }
  return discussions;
}

/**
 * `stored` as its messages say it is: its counter at the last message held (none: 0, and its
 * last activity its creation).
 */
function settled(stored: Discussion, end: { seq: number; at: string } | undefined): Discussion {
  if (end === undefined) {
    return stored.latest_seq === 0
      ? stored
      : { ...stored, latest_seq: 0, last_message_at: stored.created_at };
  }
  return end.seq === stored.latest_seq
    ? stored
    : { ...stored, latest_seq: end.seq, last_message_at: end.at };
}

/** Read positions kept where their discussion is, and never past its last message. */
async function readPositions(
  kv: Deno.Kv,
  discussions: Map<string, Discussion>,
  entries: Entries,
): Promise<void> {
  for await (const e of listEntries<Deno.KvU64>(kv, { prefix: ["ws_read"] })) {
    const d = discussions.get(e.key[3] as string);
    if (d === undefined || d.workspace !== e.key[2]) continue;
    const seq = e.value instanceof Deno.KvU64 ? e.value.value : 0n;
    const clamped = seq > BigInt(d.latest_seq) ? BigInt(d.latest_seq) : seq;
    entries.push({ key: e.key, value: new Deno.KvU64(clamped) });
  }
}

async function decisionsAndPlans(kv: Deno.Kv, counts: Counts, entries: Entries): Promise<void> {
  for await (const d of records<StoredDecision>(kv, "decision")) {
    const ws = d.workspace;
    entries.push({ key: keys.wsDecision(ws, d.id), value: d.id });
    counts.add(ws, `decisions_${d.status}`);
    if (d.status === "proposed") entries.push({ key: keys.openDecision(ws, d.id), value: d.id });
    if (d.scope === "workspace") {
      entries.push({ key: keys.rule(ws, d.id), value: d.id });
      counts.add(ws, "rules");
    }
  }
  const plans: Pick<StoredPlan, "id" | "workspace" | "supersedes">[] = [];
  for await (const { id, workspace, supersedes } of records<StoredPlan>(kv, "plan")) {
    plans.push({ id, workspace, supersedes });
  }
  const successor = new Map<string, string>();
  // Oldest first: were two plans to name one predecessor, the first to land superseded it.
  for (const p of [...plans].sort((a, b) => a.id < b.id ? -1 : 1)) {
    if (p.supersedes !== undefined && !successor.has(p.supersedes)) {
      successor.set(p.supersedes, p.id);
      entries.push({ key: keys.planSuccessor(p.supersedes), value: p.id });
    }
  }
  for (const p of plans) {
    entries.push({ key: keys.wsPlan(p.workspace, p.id), value: p.id });
    if (successor.has(p.id)) continue;
    entries.push({ key: keys.currentPlan(p.workspace, p.id), value: p.id });
    counts.add(p.workspace, "plans_current");
  }
}

/**
 * Tasks' indexes and counts, and handoffs'. A task pointing at a handoff the database lacks (it
 * landed after the export read the handoffs) is pointed back at the newest one it has.
 */
async function tasksAndHandoffs(kv: Deno.Kv, counts: Counts, entries: Entries): Promise<void> {
  const newest = new Map<string, string>();
  const handoffs = new Set<string>();
  for await (const h of records<StoredHandoff>(kv, "ws_handoff")) {
    handoffs.add(h.id);
    entries.push({ key: keys.wsHandoff(h.workspace, h.id), value: h.id });
    counts.add(h.workspace, "handoffs");
    if (h.id > (newest.get(h.task_id) ?? "")) newest.set(h.task_id, h.id);
  }
  for await (const stored of records<StoredTask>(kv, "ws_task")) {
    const t = { ...stored };
    if (t.handoff !== null && !handoffs.has(t.handoff)) t.handoff = null;
    if (t.last_handoff !== null && !handoffs.has(t.last_handoff)) {
      t.last_handoff = newest.get(t.id) ?? null;
    }
    if (t.handoff !== stored.handoff || t.last_handoff !== stored.last_handoff) {
      entries.push({ key: keys.task(t.id), value: t });
    }
    const ws = t.workspace;
    entries.push({ key: keys.wsTask(ws, t.id), value: t.id });
    counts.add(ws, `tasks_${t.status}`);
    if (t.status === "done") continue;
    if (t.assigned_to !== null) {
      entries.push({ key: keys.owner(t.assigned_to, ws, t.id), value: t.id });
    }
    if (t.handoff !== null && t.handoff_to !== null) {
      entries.push(
        { key: keys.pending(ws, t.handoff), value: t.handoff },
        { key: keys.addressee(t.handoff_to, ws, t.handoff), value: t.handoff },
      );
      counts.add(ws, "handoffs_pending");
    }
  }
}
