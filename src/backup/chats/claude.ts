/**
 * Claude.ai's export: a conversation of `conversations.json` → its visible thread (from
 * `current_leaf_message_uuid` up through `parent_message_uuid`; in array order when the export
 * has no tree), and `projects.json` / `memories.json` items → notes of their own.
 */

import {
  type ChatDoc,
  fenced,
  type ImportOptions,
  isoOfString,
  keyPart,
  type Parsed,
  tagOf,
} from "./model.ts";
import { hashText } from "./digest.ts";

type Obj = Record<string, unknown>;

/** Parents that mean "the start of the conversation". */
const ROOT_PARENT = "00000000-0000-4000-8000-000000000000";
const IMAGE = /\.(png|jpe?g|gif|webp|heic|bmp|svg)$/i;

function isObject(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** True when `item` is a Claude conversation. */
export function isClaudeConversation(item: unknown): boolean {
  return isObject(item) && Array.isArray(item.chat_messages) && typeof item.uuid === "string";
}

/** True when `item` is a Claude project. */
export function isClaudeProject(item: unknown): boolean {
  return isObject(item) && typeof item.uuid === "string" && typeof item.name === "string" &&
    ("prompt_template" in item || Array.isArray(item.docs) || "is_starter_project" in item);
}

/** True when `item` is Claude's memory. */
export function isClaudeMemory(item: unknown): boolean {
  return isObject(item) && ("conversations_memory" in item || "project_memories" in item);
}

/** The messages of the visible thread, and how many branches were left out. */
function thread(conv: Obj): { messages: Obj[]; branches: number } {
  const all = (conv.chat_messages as unknown[]).filter(isObject);
  const leaf = conv.current_leaf_message_uuid;
  const tree = typeof leaf === "string" && all.some((m) => "parent_message_uuid" in m);
  if (!tree) return { messages: all, branches: 0 };
  const byId = new Map(all.map((m) => [String(m.uuid), m]));
  const parents = new Set(all.map((m) => String(m.parent_message_uuid)));
  const leaves = all.filter((m) => !parents.has(String(m.uuid))).length;
  const path: Obj[] = [];
  const seen = new Set<string>();
  for (let id: string | undefined = leaf; id && id !== ROOT_PARENT;) {
    if (seen.has(id)) throw new Error(`its messages have a cycle at ${id}`);
    seen.add(id);
    const message = byId.get(id);
    if (!message) {
      throw new Error(
        path.length === 0
          ? `its current leaf ${id} is not among its messages`
          : `message ${path[path.length - 1].uuid} has a dangling parent ${id}`,
      );
    }
    path.push(message);
    const parent = message.parent_message_uuid;
    id = typeof parent === "string" ? parent : undefined;
  }
  return { messages: path.reverse(), branches: Math.max(0, leaves - 1) };
}

/** Reads one conversation; `projects` names the projects by uuid (from `projects.json`). */
export function parseClaude(
  item: unknown,
  options: ImportOptions,
  projects: ReadonlyMap<string, string>,
): Parsed {
  if (!isClaudeConversation(item)) return { skip: "not a Claude conversation" };
  const conv = item as Obj;
  let picked: { messages: Obj[]; branches: number };
  try {
    picked = thread(conv);
  } catch (error) {
    return { skip: `${(error as Error).message}; skipped whole` };
  }
  const tags = ["source:claude"];
  if (typeof conv.project_uuid === "string") {
    const tag = tagOf("project:", projects.get(conv.project_uuid) ?? conv.project_uuid);
    if (tag) tags.push(tag);
  }
  const doc: ChatDoc = {
    vendor: "claude",
    key: `claude-${keyPart(String(conv.uuid), hashText)}`,
    title: typeof conv.name === "string" ? conv.name : null,
    createdAt: isoOfString(conv.created_at),
    updatedAt: isoOfString(conv.updated_at),
    turns: [],
    tags,
    branchesLeftOut: picked.branches,
    attachments: 0,
    hiddenLeftOut: 0,
    unknownTypes: [],
  };
  for (const message of picked.messages) {
    const text = messageText(doc, message, options).trim();
    if (text === "") continue;
    const role = message.sender === "human" ? "user" : "assistant";
    const last = doc.turns[doc.turns.length - 1];
    if (last && last.role === role) last.text += `\n\n${text}`;
    else doc.turns.push({ role, time: isoOfString(message.created_at), text });
  }
  return { doc };
}

/** One message: its content blocks (or `text`), then its attachments and files, named. */
function messageText(doc: ChatDoc, message: Obj, options: ImportOptions): string {
  const blocks = Array.isArray(message.content) ? message.content.filter(isObject) : [];
  const out = blocks.length > 0
    ? blocks.map((b) => blockText(doc, b, options))
    : [typeof message.text === "string" ? message.text : ""];
  for (const a of Array.isArray(message.attachments) ? message.attachments.filter(isObject) : []) {
    doc.attachments++;
    const name = String(a.file_name ?? "attachment");
    const extracted = typeof a.extracted_content === "string" ? a.extracted_content : "";
    out.push(
      extracted.trim() === ""
        ? `[file: ${name}]`
        : `[file: ${name}]\n${fenced(extracted, "", "~")}`,
    );
  }
  for (const f of Array.isArray(message.files) ? message.files.filter(isObject) : []) {
    doc.attachments++;
    const name = String(f.file_name ?? f.file_uuid ?? "file");
    out.push(`[${IMAGE.test(name) ? "image" : "file"}: ${name}]`);
  }
  return out.filter((t) => t.trim() !== "").join("\n\n");
}

/** One content block of a message. */
function blockText(doc: ChatDoc, block: Obj, options: ImportOptions): string {
  const line = (label: string, text: string) => {
    const flat = text.replace(/\s+/g, " ").trim();
    return `[${label}${flat ? `: ${flat.length > 160 ? `${flat.slice(0, 159)}…` : flat}` : ""}]`;
  };
  switch (block.type) {
    case "text":
      return String(block.text ?? "");
    case "thinking":
    case "redacted_thinking":
      if (!options.keepHidden) {
        doc.hiddenLeftOut++;
        return "";
      }
      return `[thinking] ${block.thinking ?? ""}`;
    case "tool_use":
      return line(`tool call ${block.name ?? ""}`.trim(), JSON.stringify(block.input ?? {}));
    case "tool_result": {
      const parts = Array.isArray(block.content) ? block.content.filter(isObject) : [];
      return line(
        `tool result ${block.name ?? ""}`.trim(),
        parts.map((p) => String(p.text ?? "")).join(" "),
      );
    }
    case "image":
      doc.attachments++;
      return `[image: ${block.file_name ?? "image"}]`;
    default: {
      const type = String(block.type ?? "unknown");
      if (!doc.unknownTypes.includes(type)) doc.unknownTypes.push(type);
      const text = typeof block.text === "string" ? `\n${block.text}` : "";
      return `[unknown content type: ${type}]${text}`;
    }
  }
}

/** A project of `projects.json` → the note `claude-project-<uuid>`. */
export function parseClaudeProject(item: unknown): Parsed {
  if (!isClaudeProject(item)) return { skip: "not a Claude project" };
  const p = item as Obj;
  const sections = [`Claude project "${p.name}"`];
  if (typeof p.description === "string" && p.description.trim()) {
    sections.push(`### Description\n\n${p.description}`);
  }
  if (typeof p.prompt_template === "string" && p.prompt_template.trim()) {
    sections.push(`### Instructions\n\n${fenced(p.prompt_template, "", "~")}`);
  }
  let attachments = 0;
  for (const d of Array.isArray(p.docs) ? p.docs.filter(isObject) : []) {
    attachments++;
    const name = String(d.filename ?? "document");
    sections.push(`### [file: ${name}]\n\n${fenced(String(d.content ?? ""), "", "~")}`);
  }
  const tags = ["source:claude", "claude:project"];
  const tag = tagOf("project:", String(p.name));
  if (tag) tags.push(tag);
  return {
    doc: note(`claude-project-${keyPart(String(p.uuid), hashText)}`, `Claude project: ${p.name}`, {
      createdAt: isoOfString(p.created_at),
      updatedAt: isoOfString(p.updated_at),
      body: sections.join("\n\n"),
      tags,
      attachments,
    }),
  };
}

/** `memories.json` → the note `claude-memory`. */
export function parseClaudeMemory(item: unknown, projects: ReadonlyMap<string, string>): Parsed {
  if (!isClaudeMemory(item)) return { skip: "not Claude's memory" };
  const m = item as Obj;
  const sections = ["Claude's memory"];
  if (typeof m.conversations_memory === "string" && m.conversations_memory.trim()) {
    sections.push(`### Conversations\n\n${m.conversations_memory}`);
  }
  const perProject = isObject(m.project_memories) ? m.project_memories : {};
  for (const [uuid, text] of Object.entries(perProject)) {
    if (typeof text !== "string" || text.trim() === "") continue;
    sections.push(`### Project ${projects.get(uuid) ?? uuid}\n\n${text}`);
  }
  if (sections.length === 1) return { none: true };
  return {
    doc: note("claude-memory", "Claude's memory", {
      createdAt: null,
      updatedAt: null,
      body: sections.join("\n\n"),
      tags: ["source:claude", "claude:memory"],
      attachments: 0,
    }),
  };
}

function note(
  key: string,
  title: string,
  fields: Pick<ChatDoc, "createdAt" | "updatedAt" | "body" | "tags" | "attachments">,
): ChatDoc {
  return {
    vendor: "claude",
    key,
    title,
    turns: [],
    branchesLeftOut: 0,
    hiddenLeftOut: 0,
    unknownTypes: [],
    ...fields,
  };
}
