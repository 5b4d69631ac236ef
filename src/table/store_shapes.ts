/**
 * The shape of every table record and index entry, declared to the kit (see
 * kit/record_shapes.ts): the read helpers refuse a stored entry of the wrong shape naming its
 * key, and import refuses such a line. Imported by store_common.ts, so every store module has it.
 */

import {
  bytes,
  count,
  defineRecords,
  nullable,
  obj,
  oneOf,
  opt,
  type RecordFamily,
  str,
  u64,
} from "../kit/record_shapes.ts";
import {
  DECISION_PROOFS,
  DECISION_SCOPES,
  DECISION_STATUSES,
  MESSAGE_KINDS,
  TASK_STATUSES,
} from "./store_schema.ts";

const author = obj({ name: str, via: str, client_id: opt(str) });

const discussion = obj({
  id: str,
  workspace: str,
  title: str,
  created_by: author,
  created_at: str,
  latest_seq: count,
  last_message_at: str,
});

/** The table's record families, by their first key part. */
export const TABLE_RECORDS: Record<string, RecordFamily> = {
  discussion: { key: ["string"], value: discussion },
  message: {
    key: ["string", "number"],
    value: obj({
      discussion_id: str,
      seq: count,
      kind: oneOf(MESSAGE_KINDS),
      body: bytes,
      in_reply_to: opt(count),
      author,
      created_at: str,
    }),
  },
  decision: {
    key: ["string"],
    value: obj({
      id: str,
      workspace: str,
      title: str,
      detail: bytes,
      discussion_id: opt(str),
      status: oneOf(DECISION_STATUSES),
      scope: oneOf(DECISION_SCOPES),
      proposed_by: author,
      created_at: str,
      decided_by: opt(author),
      decided_by_kind: opt(oneOf(["human", "relayed"])),
      decided_via: opt(oneOf(DECISION_PROOFS)),
      decided_at: opt(str),
      reason: opt(bytes),
      superseded_by: opt(str),
      scope_set_by: opt(author),
      scope_set_at: opt(str),
    }),
  },
  plan: {
    key: ["string"],
    value: obj({
      id: str,
      workspace: str,
      title: str,
      body: bytes,
      discussion_id: opt(str),
      decision_id: opt(str),
      supersedes: opt(str),
      created_by: author,
      created_at: str,
    }),
  },
  ws_task: {
    key: ["string"],
    value: obj({
      id: str,
      workspace: str,
      title: str,
      detail: opt(bytes),
      discussion_id: opt(str),
      status: oneOf(TASK_STATUSES),
      assigned_to: nullable(str),
      handoff: nullable(str),
      handoff_to: nullable(str),
      last_handoff: nullable(str),
      created_by: author,
      created_at: str,
      updated_by: opt(author),
      updated_at: str,
    }),
  },
  ws_handoff: {
    key: ["string"],
    value: obj({
      id: str,
      workspace: str,
      task_id: str,
      to: str,
      context: bytes,
      from: author,
      created_at: str,
      accepted_by: opt(author),
      accepted_at: opt(str),
    }),
  },
  ws_activity: {
    key: ["string", "string", "string"],
    value: obj({
      id: str,
      title: str,
      latest_seq: count,
      last_message_at: str,
      created_by: author,
    }),
  },
  ws_participant_seen: { key: ["string", "string", "string", "string"], value: author },
  ws_count: { key: ["string", "string"], value: u64 },
  ws_participant_count: { key: ["string", "string", "string"], value: u64 },
  ws_read: { key: ["string", "string", "string"], value: u64 },
  // Indexes: each entry holds the id of the record it points at.
  ws_discussion: { key: ["string", "string"], value: str },
  ws_decision: { key: ["string", "string"], value: str },
  ws_decision_open: { key: ["string", "string"], value: str },
  ws_rule: { key: ["string", "string"], value: str },
  ws_plan: { key: ["string", "string"], value: str },
  ws_plan_current: { key: ["string", "string"], value: str },
  plan_successor: { key: ["string"], value: str },
  ws_task_in: { key: ["string", "string"], value: str },
  ws_task_owner: { key: ["string", "string", "string"], value: str },
  ws_handoff_in: { key: ["string", "string"], value: str },
  ws_handoff_pending: { key: ["string", "string"], value: str },
  ws_handoff_to: { key: ["string", "string", "string"], value: str },
};

defineRecords(TABLE_RECORDS);
