/**
 * One ChatGPT conversation (an item of `conversations*.json`) → the visible thread: the walk
 * from `current_node` up through `parent` to the root, reversed. Sibling branches (edits,
 * regenerations) are left out and counted; a cycle or a dangling parent skips the conversation
 * whole.
 */

import {
  type ChatDoc,
  fenced,
  type ImportOptions,
  isoOfEpoch,
  keyPart,
  type Parsed,
  type Turn,
} from "./model.ts";
import { hashText } from "./digest.ts";

interface Node {
  id?: string;
  parent?: string | null;
  children?: string[];
  message?: Message | null;
}

interface Message {
  author?: { role?: string; name?: string | null };
  create_time?: number | null;
  content?:
    & { content_type?: string; parts?: unknown[]; text?: string; language?: string }
    & Record<string, unknown>;
  metadata?: Record<string, unknown>;
  recipient?: string;
}

/** True when `item` has the shape of a ChatGPT conversation. */
export function isChatGpt(item: unknown): boolean {
  return isObject(item) && isObject(item.mapping) &&
    ("current_node" in item || "conversation_id" in item || "id" in item);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isNode(v: unknown): v is Node {
  return isObject(v);
}

/** A node without children: the end of a branch. */
function isLeaf(node: unknown): boolean {
  return isNode(node) && !(Array.isArray(node.children) && node.children.length > 0);
}

/** The path of node ids from the root to `leaf`; throws a message on a cycle or dangling parent. */
function threadIds(mapping: Record<string, Node>, leaf: string): string[] {
  const path: string[] = [];
  const seen = new Set<string>();
  for (let id: string | null | undefined = leaf; id;) {
    if (seen.has(id)) throw new Error(`its mapping has a cycle at node ${id}`);
    seen.add(id);
    const node: Node | undefined = mapping[id];
    if (!isNode(node)) {
      throw new Error(
        path.length === 0
          ? `its current_node ${id} is not in the mapping`
          : `node ${path[path.length - 1]} has a dangling parent ${id}`,
      );
    }
    path.push(id);
    id = typeof node.parent === "string" ? node.parent : null;
  }
  return path.reverse();
}

/** The leaf to follow: `current_node`, or the newest leaf when it is missing. */
function leafOf(conv: Record<string, unknown>, mapping: Record<string, Node>): string | null {
  if (typeof conv.current_node === "string") return conv.current_node;
  let best: string | null = null, bestTime = -Infinity;
  for (const [id, node] of Object.entries(mapping)) {
    if (!isLeaf(node)) continue;
    const time = node.message?.create_time ?? 0;
    if (best === null || time >= bestTime) [best, bestTime] = [id, time];
  }
  return best;
}

/** Reads one conversation. */
export function parseChatGpt(item: unknown, options: ImportOptions): Parsed {
  if (!isChatGpt(item)) return { skip: "not a ChatGPT conversation (no mapping)" };
  const conv = item as Record<string, unknown>;
  const id = String(conv.conversation_id ?? conv.id ?? "");
  if (id === "") return { skip: "no id or conversation_id" };
  const mapping = conv.mapping as Record<string, Node>;
  const leaf = leafOf(conv, mapping);
  if (leaf === null) return { skip: "its mapping is empty" };
  let ids: string[];
  try {
    ids = threadIds(mapping, leaf);
  } catch (error) {
    return { skip: `${(error as Error).message}; skipped whole` };
  }
  const leaves = Object.values(mapping).filter(isLeaf).length;
  const doc: ChatDoc = {
    vendor: "chatgpt",
    key: `chatgpt-${keyPart(id, hashText)}`,
    title: typeof conv.title === "string" ? conv.title : null,
    createdAt: isoOfEpoch(conv.create_time),
    updatedAt: isoOfEpoch(conv.update_time),
    turns: [],
    tags: ["source:chatgpt"],
    branchesLeftOut: Math.max(0, leaves - 1),
    attachments: 0,
    hiddenLeftOut: 0,
    unknownTypes: [],
  };
  for (const nodeId of ids) {
    const message = mapping[nodeId].message;
    if (isObject(message)) addMessage(doc, message, options);
  }
  doc.createdAt ??= doc.turns.find((t) => t.time !== null)?.time ?? null;
  return { doc };
}

/** Adds one message to the thread: merged into the previous turn when the same side speaks. */
function addMessage(doc: ChatDoc, message: Message, options: ImportOptions): void {
  const role = message.author?.role ?? "unknown";
  const hidden = message.metadata?.is_visually_hidden_from_conversation === true ||
    role === "system" || message.content?.content_type === "user_editable_context";
  const type = message.content?.content_type ?? "unknown";
  const thoughts = type === "thoughts" || type === "reasoning_recap";
  if ((hidden || thoughts) && !options.keepHidden) {
    if (hasContent(message)) doc.hiddenLeftOut++;
    return;
  }
  const text = renderContent(doc, message, role).trim();
  if (text === "") return;
  const side = role === "user" ? "user" : "assistant";
  const labelled = hidden ? `[${role} message, hidden in ChatGPT]\n${text}` : text;
  const time = isoOfEpoch(message.create_time);
  const last = doc.turns[doc.turns.length - 1];
  if (last && last.role === side) last.text += `\n\n${labelled}`;
  else doc.turns.push({ role: side, time, text: labelled } satisfies Turn);
}

/** True when a message left out had something to show: it is counted, an empty one is not. */
function hasContent(message: Message): boolean {
  const c = message.content;
  if (!c) return false;
  const thoughts = Array.isArray(c.thoughts) ? c.thoughts : [];
  return (c.parts ?? []).some((p) => p !== "") || Boolean(c.text) || thoughts.length > 0 ||
    Boolean(c.content);
}

/** One line naming a tool's call or result. */
function oneLiner(label: string, text: string): string {
  const first = text.replace(/\s+/g, " ").trim();
  return `[${label}${first ? `: ${first.length > 160 ? `${first.slice(0, 159)}…` : first}` : ""}]`;
}

/** The message's content as Markdown; what is not text is named in place. */
function renderContent(doc: ChatDoc, message: Message, role: string): string {
  const content = message.content ?? {};
  const type = content.content_type ?? "unknown";
  const parts = Array.isArray(content.parts) ? content.parts : [];
  const named = attachmentsOf(doc, message);
  let body: string;
  switch (type) {
    case "text":
    case "multimodal_text":
      body = parts.map((p) => partText(doc, p)).filter((t) => t !== "").join("\n\n");
      break;
    case "code":
      body = role === "tool" ? oneLiner("tool code", String(content.text ?? "")) : fenced(
        String(content.text ?? ""),
        content.language && content.language !== "unknown" ? content.language : "",
      );
      break;
    case "execution_output":
      body = oneLiner("tool output", String(content.text ?? ""));
      break;
    case "tether_quote":
      body = oneLiner(
        `quote from ${content.title ?? content.url ?? "a page"}`,
        String(content.text ?? ""),
      );
      break;
    case "tether_browsing_display":
      body = oneLiner("browsing", String(content.result ?? content.summary ?? ""));
      break;
    case "thoughts":
      body = (Array.isArray(content.thoughts) ? content.thoughts : []).map((t) =>
        `[thought] ${isObject(t) ? t.content ?? "" : ""}`
      ).join("\n");
      break;
    case "reasoning_recap":
      body = `[reasoning] ${content.content ?? ""}`;
      break;
    default: {
      if (!doc.unknownTypes.includes(type)) doc.unknownTypes.push(type);
      const text = parts.filter((p) => typeof p === "string").join("\n") ||
        String(content.text ?? "");
      body = `[unknown content type: ${type}]${text.trim() ? `\n${text}` : ""}`;
    }
  }
  if (role === "tool" && type !== "execution_output" && type !== "code") {
    const name = message.author?.name ? ` ${message.author.name}` : "";
    body = oneLiner(`tool${name} result`, body);
  }
  return [body, ...named].filter((t) => t.trim() !== "").join("\n\n");
}

/** One part of a text or multimodal message. */
function partText(doc: ChatDoc, part: unknown): string {
  if (typeof part === "string") return part;
  if (!isObject(part)) return "";
  const type = String(part.content_type ?? "object");
  if (type === "image_asset_pointer") {
    doc.attachments++;
    const name = String(part.asset_pointer ?? "image").replace(/^[a-z-]+:\/\//, "");
    return `[image: ${name}]`;
  }
  if (type === "audio_transcription") return String(part.text ?? "");
  if (type.startsWith("audio") || type.startsWith("real_time")) {
    doc.attachments++;
    return `[audio: ${type}]`;
  }
  if (!doc.unknownTypes.includes(type)) doc.unknownTypes.push(type);
  return `[unknown content type: ${type}]`;
}

/** Files the message carries (`metadata.attachments`), named. */
function attachmentsOf(doc: ChatDoc, message: Message): string[] {
  const list = message.metadata?.attachments;
  if (!Array.isArray(list)) return [];
  return list.filter(isObject).map((a) => {
    doc.attachments++;
    const mime = String(a.mime_type ?? a.mimeType ?? "");
    return `[${mime.startsWith("image/") ? "image" : "file"}: ${a.name ?? a.id ?? "unnamed"}]`;
  });
}
