/**
 * A Claude Code transcript of about `bytes` bytes in the real shape, written to `path` in pieces
 * so the benchmark itself never holds it. `tools`: user prompts, assistant text, tool calls with
 * file contents, tool results of whole files, now and then a screenshot. `pasted`: every prompt a
 * 400 KB pasted log, each answer short, so each message is a large part of the handoff limit.
 */

/** The kinds of session `writeTranscript` writes. */
export type TranscriptShape = "tools" | "pasted";

/** Writes the transcript; returns its size in bytes. */
export async function writeTranscript(
  path: string,
  bytes: number,
  shape: TranscriptShape = "tools",
): Promise<number> {
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  const encoder = new TextEncoder();
  const source = "export function parse(s: string): Date { // ünïcödé 日本語\n".repeat(400);
  const image = "iVBORw0KGgo".repeat(40_000);
  let written = 0;
  let parent: string | null = null;
  try {
    for (let i = 0; written < bytes; i++) {
      const entries = shape === "pasted"
        ? pastedTurn(i)
        : turn(i, source, i % 50 === 49 ? image : undefined);
      const text = entries.map((e) => {
        const uuid = crypto.randomUUID();
        const line = JSON.stringify({
          parentUuid: parent,
          isSidechain: false,
          userType: "external",
          cwd: "/home/dev/widget",
          sessionId: "bench",
          version: "2.1.197",
          uuid,
          timestamp: new Date(1_800_000_000_000 + i * 1000).toISOString(),
          ...e,
        });
        parent = uuid;
        return line + "\n";
      }).join("");
      const data = encoder.encode(text);
      for (let at = 0; at < data.length;) at += await file.write(data.subarray(at));
      written += data.length;
    }
  } finally {
    file.close();
  }
  return written;
}

function turn(i: number, source: string, image: string | undefined): Record<string, unknown>[] {
  const id = `toolu_${i}`;
  const prompt: unknown[] = [{
    type: "text",
    text: `Step ${i}: fix the parser, then run the tests.`,
  }];
  if (image) {
    prompt.push({
      type: "image",
      source: { type: "base64", media_type: "image/png", data: image },
    });
  }
  return [
    { type: "user", message: { role: "user", content: prompt } },
    {
      type: "assistant",
      message: {
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [
          { type: "text", text: `I'll edit the parser (step ${i}).` },
          {
            type: "tool_use",
            id,
            name: "Write",
            input: { file_path: "src/date.ts", content: source },
          },
        ],
      },
    },
    {
      type: "user",
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: id, content: source }],
      },
    },
    {
      type: "assistant",
      message: { role: "assistant", content: [{ type: "text", text: `Done with step ${i}.` }] },
    },
  ];
}

const LOG_LINE = "2026-12-07T10:00:00Z INFO request served in 12 ms — ünïcödé\n";

function pastedTurn(i: number): Record<string, unknown>[] {
  const log = LOG_LINE.repeat(Math.floor(400_000 / LOG_LINE.length));
  return [
    { type: "user", message: { role: "user", content: `Why is step ${i} slow?\n\n${log}` } },
    {
      type: "assistant",
      message: { role: "assistant", content: [{ type: "text", text: `Step ${i} is fine.` }] },
    },
  ];
}
