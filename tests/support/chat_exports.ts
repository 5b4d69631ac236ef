/**
 * Exports in each vendor's shape, generated for the chat importer's tests and bench: ChatGPT
 * conversations with branches, null titles, missing times, multimodal parts, code, tool output,
 * thoughts and unknown types; Claude conversations with a message tree, attachments, projects
 * and memories; Gemini Takeout activity across several days.
 */

/** Epoch seconds of 2024-03-01T10:00:00Z, the generated conversations' start. */
export const T0 = Date.UTC(2024, 2, 1, 10) / 1000;

/** Options of one generated ChatGPT conversation. */
export interface GptOptions {
  title?: string | null;
  /** Pairs of user and assistant turns on the visible thread. */
  turns?: number;
  /** A regenerated answer left on a side branch (text "ABANDONED"). */
  branch?: boolean;
  /** Leave out create_time/update_time everywhere. */
  noTimes?: boolean;
  /** Add an image part, code with its output, thoughts and an unknown content type. */
  rich?: boolean;
  /** Characters of filler in each assistant turn. */
  pad?: number;
}

/** One ChatGPT conversation; its visible turns say `user N of <id>` / `assistant N of <id>`. */
export function gptConversation(id: string, o: GptOptions = {}): Record<string, unknown> {
  const mapping: Record<string, Record<string, unknown>> = {};
  let t = T0;
  const time = () => o.noTimes ? undefined : (t += 60);
  const add = (nodeId: string, parent: string | null, message: unknown) => {
    mapping[nodeId] = { id: nodeId, parent, children: [], message };
    if (parent) (mapping[parent].children as string[]).push(nodeId);
    return nodeId;
  };
  const msg = (role: string, content: unknown, metadata: Record<string, unknown> = {}) => ({
    id: crypto.randomUUID(),
    author: { role, name: role === "tool" ? "python" : null },
    create_time: time(),
    content,
    metadata,
  });
  const text = (s: string) => ({ content_type: "text", parts: [s] });
  let last = add(`${id}-root`, null, null);
  last = add(
    `${id}-sys`,
    last,
    msg("system", text("SYSTEM PROMPT"), { is_visually_hidden_from_conversation: true }),
  );
  const pad = "x".repeat(o.pad ?? 0);
  for (let i = 1; i <= (o.turns ?? 2); i++) {
    last = add(`${id}-u${i}`, last, msg("user", text(`user ${i} of ${id}`)));
    if (i === 1 && o.branch) {
      add(`${id}-a${i}-old`, last, msg("assistant", text("ABANDONED answer")));
    }
    if (i === 1 && o.rich) {
      last = add(
        `${id}-img`,
        last,
        msg("user", {
          content_type: "multimodal_text",
          parts: [
            { content_type: "image_asset_pointer", asset_pointer: "file-service://file-cat" },
            "what is this?",
          ],
        }),
      );
      last = add(
        `${id}-think`,
        last,
        msg("assistant", { content_type: "thoughts", thoughts: [{ content: "SECRET THOUGHT" }] }),
      );
      last = add(
        `${id}-code`,
        last,
        msg("assistant", { content_type: "code", language: "python", text: "print(6*7)" }),
      );
      last = add(`${id}-out`, last, msg("tool", { content_type: "execution_output", text: "42" }));
      last = add(
        `${id}-new`,
        last,
        msg("assistant", { content_type: "hologram", parts: ["FUTURE"] }),
      );
    }
    last = add(`${id}-a${i}`, last, msg("assistant", text(`assistant ${i} of ${id}${pad}`)));
  }
  return {
    id,
    conversation_id: id,
    title: o.title === undefined ? `Conversation ${id}` : o.title,
    ...(o.noTimes ? {} : { create_time: T0, update_time: t }),
    current_node: last,
    mapping,
  };
}

/** A JSON array written one item at a time (how the bench writes 500 MB without holding it). */
export async function writeJsonArray(
  path: string,
  count: number,
  item: (i: number) => unknown,
): Promise<void> {
  using file = await Deno.open(path, { write: true, create: true, truncate: true });
  const encoder = new TextEncoder();
  let pending = "[";
  for (let i = 0; i < count; i++) {
    pending += (i > 0 ? ",\n" : "\n") + JSON.stringify(item(i));
    if (pending.length > 1 << 20) {
      await file.write(encoder.encode(pending));
      pending = "";
    }
  }
  await file.write(encoder.encode(pending + "\n]\n"));
}

/** A Claude export: conversations (one with a branch, attachments, a project), projects, memory. */
export function claudeExport(): {
  conversations: unknown[];
  projects: unknown[];
  memories: unknown[];
} {
  const zero = "00000000-0000-4000-8000-000000000000";
  const m = (uuid: string, parent: string, sender: string, text: string, extra = {}) => ({
    uuid,
    parent_message_uuid: parent,
    sender,
    text,
    content: [{ type: "text", text }],
    created_at: "2024-04-02T09:00:00.000000+00:00",
    attachments: [],
    files: [],
    ...extra,
  });
  return {
    conversations: [
      {
        uuid: "c1",
        name: "Planning the garden",
        created_at: "2024-04-02T09:00:00Z",
        updated_at: "2024-04-02T10:00:00Z",
        project_uuid: "p1",
        current_leaf_message_uuid: "m4",
        chat_messages: [
          m("m1", zero, "human", "What should I plant?", {
            attachments: [{ file_name: "soil.txt", extracted_content: "pH 6.5\n```\nloam" }],
            files: [{ file_name: "garden.png" }],
          }),
          m("m2", "m1", "assistant", "ABANDONED suggestion"),
          m("m3", "m1", "assistant", "Tomatoes", {
            content: [
              { type: "thinking", thinking: "SECRET THINKING" },
              { type: "text", text: "Tomatoes" },
              { type: "tool_use", name: "web_search", input: { q: "tomato" } },
              {
                type: "tool_result",
                name: "web_search",
                content: [{ type: "text", text: "found" }],
              },
              { type: "sparkle", text: "FUTURE BLOCK" },
            ],
          }),
          m("m4", "m3", "human", "Thanks"),
        ],
      },
      {
        uuid: "c2",
        name: "",
        created_at: "2024-04-03T09:00:00Z",
        updated_at: "2024-04-03T09:05:00Z",
        chat_messages: [
          {
            uuid: "n1",
            sender: "human",
            text: "Linear question",
            created_at: "2024-04-03T09:00:00Z",
          },
          {
            uuid: "n2",
            sender: "assistant",
            text: "Linear answer",
            created_at: "2024-04-03T09:01:00Z",
          },
        ],
      },
    ],
    projects: [{
      uuid: "p1",
      name: "Home & Garden",
      description: "Everything about the garden",
      prompt_template: "Be brief.",
      created_at: "2024-04-01T00:00:00Z",
      updated_at: "2024-04-01T00:00:00Z",
      docs: [{ uuid: "d1", filename: "plan.md", content: "Beds A and B" }],
    }],
    memories: [{
      conversations_memory: "The user gardens.",
      project_memories: { p1: "Raised beds." },
    }],
  };
}

/** Gemini activity, newest first: `days` days with two prompts 5 minutes apart each. */
export function geminiActivity(days: number): unknown[] {
  const out: unknown[] = [];
  for (let d = days - 1; d >= 0; d--) {
    const base = Date.UTC(2024, 5, 1 + d, 8);
    for (const [minutes, n] of [[5, 2], [0, 1]] as const) {
      out.push({
        header: "Gemini Apps",
        title: `Prompted day ${d} question ${n}`,
        time: new Date(base + minutes * 60_000).toISOString(),
        products: ["Gemini Apps"],
        safeHtmlItem: [{ html: `<p>Answer <b>${d}.${n}</b> &amp; more</p><ul><li>one</li></ul>` }],
      });
    }
    out.push({
      header: "Gemini Apps",
      title: "Used Gemini Apps",
      time: new Date(base - 1000).toISOString(),
    });
  }
  return out;
}
