/** The thinking toolset end to end: real servers, SDK clients over HTTP, SSE and stdio. */

import assert from "node:assert/strict";
import type { Client } from "../src/client/sdk_client.ts";
import { DEFAULT_THINKING_LIMITS } from "../src/thinking/settings.ts";
import { randomToken } from "../src/kit/ids.ts";
import { addThought } from "../src/thinking/store_write.ts";
import {
  call,
  connect,
  connectStdio,
  type HttpKind,
  spawnServer,
  startServer,
  tempKvPath,
} from "./support/harness.ts";

type McpClient = InstanceType<typeof Client>;

interface Thought {
  index: number;
  thoughtNumber: number;
  branchId: string;
  thought: string;
  revisesIndex?: number;
}

interface HistoryResult {
  sequence: {
    thoughtHistoryLength: number;
    completed: boolean;
    branches: { branchId: string; parentBranchId: string; branchFromThought: number }[];
  };
  thoughts: Thought[];
  nextCursor: string | null;
}

function think(n: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    thought: `Step ${n}: ${"思考".repeat(n)}`,
    nextThoughtNeeded: true,
    thoughtNumber: n,
    totalThoughts: 5,
    ...extra,
  };
}

/** Writes a short sequence with a branch and a revision; returns its id. */
async function writeSequence(client: McpClient): Promise<string> {
  const first = await call(client, "sequentialthinking", think(1));
  assert.equal(first.isError, false, first.text);
  const sequenceId = String(first.structured?.sequenceId);
  for (
    const args of [
      think(2, { sequenceId }),
      think(3, { sequenceId, branchId: "alt", branchFromThought: 2 }),
      think(3, { sequenceId, isRevision: true, revisesThought: 1 }),
      think(4, { sequenceId, nextThoughtNeeded: false }),
    ]
  ) {
    const outcome = await call(client, "sequentialthinking", args);
    assert.equal(outcome.isError, false, outcome.text);
  }
  return sequenceId;
}

async function readHistory(
  client: McpClient,
  args: Record<string, unknown>,
): Promise<HistoryResult> {
  const outcome = await call(client, "get_thought_history", args);
  assert.equal(outcome.isError, false, outcome.text);
  return outcome.structured as unknown as HistoryResult;
}

function assertWritten(history: HistoryResult): void {
  assert.equal(history.sequence.thoughtHistoryLength, 5);
  assert.equal(history.sequence.completed, true);
  assert.deepEqual(
    history.sequence.branches.map((b) => [b.branchId, b.parentBranchId, b.branchFromThought]),
    [["alt", "main", 2]],
  );
  assert.deepEqual(
    history.thoughts.map((t) => [t.index, t.thoughtNumber, t.branchId]),
    [[1, 1, "main"], [2, 2, "main"], [3, 3, "alt"], [4, 3, "main"], [5, 4, "main"]],
  );
  assert.equal(history.thoughts[3].revisesIndex, 1);
  assert.equal(history.thoughts[4].thought, `Step 4: ${"思考".repeat(4)}`);
}

for (
  const [writer, reader] of [["http", "sse"], ["sse", "http"]] as [HttpKind, HttpKind][]
) {
  Deno.test(`a sequence written over ${writer} is read in another session over ${reader}`, async () => {
    const server = await startServer();
    try {
      const a = await connect(server, writer);
      const sequenceId = await writeSequence(a);
      await a.close();
      const b = await connect(server, reader);
      assertWritten(await readHistory(b, { sequenceId }));
      await b.close();
    } finally {
      await server.close();
    }
  });
}

Deno.test("a sequence written over stdio is read over HTTP, then continued over stdio", async () => {
  const kvFile = await tempKvPath();
  try {
    const a = await connectStdio(kvFile.path);
    const sequenceId = await writeSequence(a);
    await a.close();
    const server = await startServer({ env: { KV_PATH: kvFile.path } });
    try {
      const b = await connect(server, "http");
      assertWritten(await readHistory(b, { sequenceId }));
      await b.close();
    } finally {
      await server.close();
    }
    const c = await connectStdio(kvFile.path);
    const more = await call(c, "sequentialthinking", think(5, { sequenceId }));
    assert.equal(more.structured?.thoughtHistoryLength, 6);
    assert.deepEqual(more.structured?.flags, ["REOPENED"]);
    await c.close();
  } finally {
    await kvFile.cleanup();
  }
});

Deno.test("stdio takes requests and gives answers larger than its read buffer and a pipe", async () => {
  const client = await connectStdio(":memory:");
  try {
    // A 20,000-character thought of four-byte characters is an 80 KB request, more than one
    // read of stdin takes (the rest of the line must outlive the buffer read into again); four
    // of them are 320 KB of history, read in pages (RESULT_MAX_TOKENS) of about 80 KB of
    // characters in each view: each answer more than a Linux pipe holds.
    const text = "😀".repeat(DEFAULT_THINKING_LIMITS.thoughtMax - 1);
    const first = await call(client, "sequentialthinking", think(1, { thought: text }));
    const sequenceId = first.structured?.sequenceId;
    for (let n = 2; n <= 4; n++) {
      await call(client, "sequentialthinking", think(n, { thought: text, sequenceId }));
    }
    const read = new Map<number, string>();
    let cursor: string | null = null;
    let pages = 0;
    do {
      const args: Record<string, unknown> = { sequenceId, maxCharacters: 250_000 };
      const page = await readHistory(client, cursor ? { ...args, cursor } : args);
      for (const t of page.thoughts) read.set(t.index, (read.get(t.index) ?? "") + t.thought);
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    assert.ok(pages > 4, `${pages} pages`);
    assert.deepEqual([...read.values()].map((t) => t === text), [true, true, true, true]);
    // The next answer still arrives on its own line.
    const next = await call(client, "sequentialthinking", think(5, { sequenceId }));
    assert.equal(next.structured?.thoughtHistoryLength, 5);
  } finally {
    await client.close();
  }
});

Deno.test("a sequence survives a restart of the server process", async () => {
  const kvFile = await tempKvPath();
  const token = randomToken(32);
  const env = { KV_PATH: kvFile.path, AUTH_TOKEN: token };
  try {
    const first = await spawnServer(env);
    let sequenceId: string;
    try {
      const client = await connect({ origin: first.origin, token }, "http");
      sequenceId = await writeSequence(client);
      await client.close();
    } finally {
      await first.close();
    }
    const second = await spawnServer(env);
    try {
      const client = await connect({ origin: second.origin, token }, "sse");
      assertWritten(await readHistory(client, { sequenceId }));
      await client.close();
    } finally {
      await second.close();
    }
  } finally {
    await kvFile.cleanup();
  }
});

Deno.test("20 concurrent writers over HTTP lose nothing and number the history without gaps", async () => {
  const kvFile = await tempKvPath();
  const server = await startServer({ env: { KV_PATH: kvFile.path } });
  const clients: McpClient[] = [];
  try {
    const starter = await connect(server, "http");
    clients.push(starter);
    const first = await call(starter, "sequentialthinking", think(1));
    const sequenceId = first.structured?.sequenceId;
    for (let i = 0; i < 20; i++) clients.push(await connect(server, "http"));
    const outcomes = await Promise.all(
      clients.slice(1).map((client, i) =>
        call(client, "sequentialthinking", {
          ...think(i + 2),
          thought: `writer ${i}`,
          sequenceId,
        })
      ),
    );
    for (const outcome of outcomes) assert.equal(outcome.isError, false, outcome.text);
    assert.deepEqual(
      outcomes.map((o) => o.structured?.thoughtHistoryLength).sort((a, b) => Number(a) - Number(b)),
      Array.from({ length: 20 }, (_, i) => i + 2),
    );
    const history = await readHistory(starter, { sequenceId, limit: 100 });
    assert.deepEqual(
      history.thoughts.map((t) => t.index),
      Array.from({ length: 21 }, (_, i) => i + 1),
    );
    assert.deepEqual(
      history.thoughts.slice(1).map((t) => t.thought).sort(),
      Array.from({ length: 20 }, (_, i) => `writer ${i}`).sort(),
    );
  } finally {
    for (const client of clients) await client.close();
    await server.close();
    await kvFile.cleanup();
  }
});

Deno.test("1,000 thoughts page over HTTP in pages of 7, each exactly once in both orders", async () => {
  const server = await startServer();
  try {
    const limits = DEFAULT_THINKING_LIMITS;
    const { sequenceId } = await addThought(server.kv, limits, {
      thought: "thought 1",
      nextThoughtNeeded: true,
      thoughtNumber: 1,
      totalThoughts: 1000,
    });
    for (let n = 2; n <= 1000; n++) {
      await addThought(server.kv, limits, {
        thought: `thought ${n}`,
        nextThoughtNeeded: n < 1000,
        thoughtNumber: n,
        totalThoughts: 1000,
        sequenceId,
      });
    }
    const client = await connect(server, "http");
    try {
      const all = Array.from({ length: 1000 }, (_, i) => i + 1);
      for (const order of ["asc", "desc"] as const) {
        const seen: number[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const args: Record<string, unknown> = { sequenceId, limit: 7, order };
          if (cursor) args.cursor = cursor;
          const page = await readHistory(client, args);
          assert.ok(page.thoughts.length === 7 || page.nextCursor === null);
          seen.push(...page.thoughts.map((t) => t.index));
          for (const t of page.thoughts) assert.equal(t.thought, `thought ${t.index}`);
          cursor = page.nextCursor;
          pages++;
        } while (cursor !== null);
        assert.equal(pages, 143);
        assert.deepEqual(seen, order === "asc" ? all : all.toReversed());
      }
    } finally {
      await client.close();
    }
  } finally {
    await server.close();
  }
});

Deno.test("errors carry their code over HTTP, SSE and stdio alike", async () => {
  const kvFile = await tempKvPath();
  const server = await startServer({ env: { KV_PATH: kvFile.path } });
  try {
    const clients: McpClient[] = [
      await connect(server, "http"),
      await connect(server, "sse"),
    ];
    clients.push(await connectStdio(kvFile.path));
    for (const client of clients) {
      const missing = await call(
        client,
        "sequentialthinking",
        think(2, { sequenceId: "seq_AAAAAAAAAAAAAAAAAAAAAA" }),
      );
      assert.equal(missing.isError, true);
      assert.match(missing.text, /^SEQUENCE_NOT_FOUND: /);
      const first = await call(client, "sequentialthinking", think(1));
      const flags = await call(
        client,
        "sequentialthinking",
        think(2, { sequenceId: first.structured?.sequenceId, revisesThought: 1 }),
      );
      assert.match(flags.text, /^REVISION_FLAGS_MISMATCH: /);
      await client.close();
    }
  } finally {
    await server.close();
    await kvFile.cleanup();
  }
});

Deno.test("a deleted sequence is gone for every transport", async () => {
  const server = await startServer();
  try {
    const a = await connect(server, "http");
    const sequenceId = await writeSequence(a);
    const deleted = await call(a, "delete_thought_sequence", { sequenceId, confirm: true });
    assert.deepEqual(deleted.structured, { sequenceId, deleted: true, deletedThoughts: 5 });
    await a.close();
    const b = await connect(server, "sse");
    const read = await call(b, "get_thought_history", { sequenceId });
    assert.match(read.text, /^SEQUENCE_NOT_FOUND: /);
    const again = await call(b, "delete_thought_sequence", { sequenceId, confirm: true });
    assert.equal(again.structured?.deleted, false);
    await b.close();
    const left = await Array.fromAsync(server.kv.list({ prefix: [] }));
    assert.ok(left.every((e) => !e.key.includes(sequenceId)), "no key of it remains");
  } finally {
    await server.close();
  }
});
