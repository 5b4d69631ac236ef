/** Output schemas of the table tools: the raw values a client may want besides the text. */

import { z } from "zod";
import { nullableString } from "../tools/schema.ts";
import {
  DECISION_PROOFS,
  DECISION_SCOPES,
  DECISION_STATUSES,
  HANDOFF_STATES,
  MESSAGE_KINDS,
  TASK_STATUSES,
} from "./store_schema.ts";

const VIAS = ["console", "oauth", "token", "header", "local", "default"] as const;

/** Who did something and how the name was established. */
const authorSchema = z.object({
  name: z.string(),
  via: z.enum(VIAS).describe(
    "How the name was established: console (the owner signed in to /console), oauth, token, header, local, default",
  ),
  client_id: z.string().optional(),
});

/** A discussion. */
export const discussionSchema = z.object({
  id: z.string(),
  workspace: z.string(),
  title: z.string(),
  created_by: authorSchema,
  created_at: z.string(),
  latest_seq: z.number().int(),
  last_message_at: z.string(),
});

/** A discussion as the workspace context lists it, with what is unread in it for the caller. */
const discussionSummarySchema = discussionSchema.pick({
  id: true,
  title: true,
  latest_seq: true,
  last_message_at: true,
  created_by: true,
}).extend({
  unread: z.number().int().describe(
    "Messages after your read position (the highest seq get_discussion or the discussion resource showed you, or your own last post)",
  ),
});

/** A message. */
export const messageSchema = z.object({
  discussion_id: z.string(),
  seq: z.number().int(),
  kind: z.enum(MESSAGE_KINDS),
  body: z.string(),
  in_reply_to: z.number().int().nullable(),
  author: authorSchema,
  created_at: z.string(),
});

/** A decision. */
export const decisionSchema = z.object({
  id: z.string(),
  workspace: z.string(),
  title: z.string(),
  detail: z.string(),
  discussion_id: nullableString(),
  status: z.enum(DECISION_STATUSES),
  scope: z.enum(DECISION_SCOPES),
  proposed_by: authorSchema,
  created_at: z.string(),
  decided_by: authorSchema.nullable(),
  decided_by_kind: z.enum(["human", "relayed"]).nullable().describe(
    "human: a person proved it (see decided_via); relayed: an AI reported it, unproven",
  ),
  decided_via: z.enum(DECISION_PROOFS).nullable().describe(
    "The proof: console (the owner, signed in to /console), approval_code (a correct APPROVAL_SECRET was sent), relayed (none: an AI relayed it)",
  ),
  decided_at: nullableString(),
  reason: nullableString(),
  superseded_by: nullableString(),
});

/** A plan. */
export const planSchema = z.object({
  id: z.string(),
  workspace: z.string(),
  title: z.string(),
  body: z.string(),
  discussion_id: nullableString(),
  decision_id: nullableString(),
  supersedes: nullableString(),
  superseded_by: nullableString(),
  created_by: authorSchema,
  created_at: z.string(),
});

/** A task. */
export const taskSchema = z.object({
  id: z.string(),
  workspace: z.string(),
  title: z.string(),
  detail: nullableString(),
  discussion_id: nullableString(),
  status: z.enum(TASK_STATUSES),
  assigned_to: nullableString(),
  handoff: nullableString("The id of the handoff waiting for acceptance, or null"),
  parked: z.boolean().describe("True when the title or detail starts with PARKED"),
  created_by: authorSchema,
  created_at: z.string(),
  updated_by: authorSchema.nullable(),
  updated_at: z.string(),
  note: z.string().optional().describe("Set when the owner never got the context by a handoff"),
});

/** A handoff with its computed state. */
export const handoffSchema = z.object({
  id: z.string(),
  workspace: z.string(),
  task_id: z.string(),
  task_title: nullableString(),
  to: z.string(),
  context: z.string(),
  from: authorSchema,
  created_at: z.string(),
  accepted_by: authorSchema.nullable(),
  accepted_at: nullableString(),
  state: z.enum(HANDOFF_STATES),
  age_days: z.number(),
});

/** A participant of a workspace. */
export const participantSchema = z.object({
  name: z.string(),
  messages: z.number().int(),
  actions: z.number().int(),
  vias: z.array(z.enum(VIAS)),
  client_ids: z.array(z.string()),
});

/** The `workspace_source` of a write. */
export const workspaceSource = z.enum(["caller", "default"]).describe(
  "caller: the workspace argument; default: TABLE_DEFAULT_WORKSPACE",
);

const ids = z.array(z.string());

/** What waits for the caller in one workspace. */
const waitingSchema = z.object({
  unaccepted: z.object({ handoffs: ids, tasks: ids, total: z.number().int() }),
  in_progress: z.object({ tasks: ids, total: z.number().int() }),
  total: z.number().int(),
});

/** The `get_workspace_context` result. */
export const contextSchema = {
  contract: z.number().int(),
  workspace: z.string(),
  you_are: z.object({
    name: z.string(),
    via: z.enum(VIAS),
    client_id: nullableString(),
    limitations: z.string(),
  }),
  standing_rules: z.array(decisionSchema),
  participants: z.array(participantSchema),
  open_items: z.object({
    decisions_awaiting: z.object({ total: z.number().int(), items: z.array(decisionSchema) }),
    plans_current: z.number().int(),
    latest_plan: planSchema.nullable(),
    tasks: z.object({
      open: z.number().int(),
      in_progress: z.number().int(),
      blocked: z.number().int(),
    }),
    handoffs_pending: z.object({
      total: z.number().int(),
      items: z.array(handoffSchema),
      has_more: z.boolean(),
    }),
    handoffs_inactive: z.object({ total: z.number().int(), items: z.array(handoffSchema) }),
    waiting_for_you: waitingSchema,
    unread: z.object({
      discussions: z.number().int().describe("Discussions of the workspace with unread messages"),
      messages: z.number().int().describe("Unread messages in them, in total"),
      items: z.array(z.object({
        id: z.string(),
        title: z.string(),
        unread: z.number().int().describe("Messages after your read position"),
      })).describe(
        "The discussions with unread messages, most recently active first (at most limit)",
      ),
      has_more: z.boolean().describe("True when more discussions are unread than items names"),
    }).describe("What is unread for you in the whole workspace, listed or not"),
    health: z.object({ status: z.enum(["ok", "attention"]), problems: z.array(z.string()) }),
  }),
  discussions: z.array(discussionSummarySchema),
  has_more: z.boolean(),
  total_discussions: z.number().int(),
  quiet_discussions: z.object({
    quiet_for_days: z.number(),
    items: z.array(discussionSummarySchema),
    has_more: z.boolean(),
  }),
  elsewhere: z.object({
    total: z.number().int(),
    workspaces: z.array(z.object({
      workspace: z.string(),
      handoffs: ids,
      tasks: ids,
      total: z.number().int(),
    })),
  }),
};
