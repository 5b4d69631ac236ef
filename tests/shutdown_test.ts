/**
 * Stopping never drops work in flight: a one-shot stdio client that closes stdin right after
 * writing its requests, a stdio server stopped by SIGTERM or SIGINT, and an HTTP server stopped by
 * SIGTERM with requests running all answer everything they received and keep every write they
 * acknowledged.
 */

import assert from "node:assert/strict";
import { openKv } from "../src/kit/open_kv.ts";
import { ROOT, spawnServer, tempKvPath } from "./support/harness.ts";
import { INITIALIZED, initializeRequest, MCP_POST_HEADERS } from "./support/rpc.ts";

const SAVES = 30;

function save(id: number, key: string, size = 20_000) {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: {
      name: "handoff_save",
      arguments: {
        key,
        summary: `save ${key}`,
        conversation: `## User\n${"q".repeat(size)}\n## Assistant\nok`,
      },
    },
  };
}

/** Keys of the handoffs stored in the KV file at `path`. */
async function storedKeys(path: string): Promise<string[]> {
  const kv = await openKv(path);
  try {
    const keys: string[] = [];
    for await (const entry of kv.list({ prefix: ["handoff"] })) {
      if (entry.key.length === 2) keys.push(String(entry.key[1]));
    }
    return keys.sort();
  } finally {
    kv.close();
  }
}

/** `main.ts --stdio` in a child process on the KV file at `kvPath`, its pipes all open. */
function spawnStdio(kvPath: string) {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-env", "--allow-read", "--allow-write", "main.ts", "--stdio"],
    cwd: ROOT,
    env: { KV_PATH: kvPath, NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

Deno.test("a one-shot stdio client that closes stdin at once gets every answer, and every save is kept", async () => {
  const kv = await tempKvPath();
  try {
    const child = spawnStdio(kv.path);
    const messages: unknown[] = [
      initializeRequest(0),
      INITIALIZED,
    ];
    const keys = Array.from({ length: SAVES }, (_, i) => `one-shot-${String(i).padStart(2, "0")}`);
    keys.forEach((key, i) => messages.push(save(i + 1, key)));
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(messages.map((m) => JSON.stringify(m)).join("\n")));
    await writer.close();
    const [status, stdout, stderr] = await Promise.all([
      child.status,
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
    ]);
    assert.equal(status.code, 0, stderr);
    const answers = stdout.trim().split("\n").map((line) => JSON.parse(line));
    const ids = answers.map((a) => a.id).sort((a, b) => a - b);
    assert.deepEqual(ids, Array.from({ length: SAVES + 1 }, (_, i) => i), "every request answered");
    for (const answer of answers.slice(1)) {
      assert.equal(answer.result?.isError, undefined, JSON.stringify(answer).slice(0, 300));
    }
    assert.deepEqual(await storedKeys(kv.path), keys);
  } finally {
    await kv.cleanup();
  }
});

/**
 * A stdio child that has received `count` saves (ids 1…count) with stdin still open, most of
 * them still running: the ping after them (id count + 1) is answered, so all were read.
 */
async function stdioBusyWithSaves(kvPath: string, prefix: string, count = SAVES) {
  const child = spawnStdio(kvPath);
  const stderr = new Response(child.stderr).text();
  const out = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const answers: { id: number; result?: { isError?: boolean } }[] = [];
  let buffered = "";
  /** Collects answers until `enough` says so or stdout ends. */
  const readUntil = async (enough: () => boolean) => {
    while (!enough()) {
      const { value, done } = await out.read();
      if (done) return;
      buffered += value;
      const complete = buffered.split("\n");
      buffered = complete.pop()!;
      answers.push(...complete.map((line) => JSON.parse(line)));
    }
  };
  const stdin = child.stdin.getWriter();
  const send = (messages: unknown[]) =>
    stdin.write(new TextEncoder().encode(messages.map((m) => JSON.stringify(m) + "\n").join("")));
  await send([initializeRequest(0), INITIALIZED]);
  await readUntil(() => answers.length > 0);
  const keys = Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(3, "0")}`);
  const ping = count + 1;
  // Lines are read in order, so once the ping is answered every save has been received.
  await send([
    ...keys.map((key, i) => save(i + 1, key, 200_000)),
    { jsonrpc: "2.0", id: ping, method: "ping" },
  ]);
  await readUntil(() => answers.some((a) => a.id === ping));
  const runningAtSignal = count + 2 - answers.length;
  return {
    keys,
    answers,
    runningAtSignal,
    /**
     * Sends `signal`, then waits for the child to exit and reads the rest of its output. With
     * `again`, sends `signal` again as soon as one more answer shows the first was handled.
     */
    async stop(signal: Deno.Signal, again = false) {
      const seen = answers.length;
      child.kill(signal);
      if (again) {
        await readUntil(() => answers.length > seen);
        try {
          child.kill(signal);
        } catch {
          // The first signal ended it already.
        }
      }
      await readUntil(() => false);
      const status = await child.status;
      await stdin.close().catch(() => {}); // the child is gone: the pipe may be broken
      return { code: status.code, stderr: await stderr };
    },
  };
}

// The SDK's own StdioClientTransport.close() ends stdin, then sends SIGTERM two seconds later.
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test(`${signal} to a stdio server answers every request it received and keeps every save`, async () => {
    const kv = await tempKvPath();
    try {
      const busy = await stdioBusyWithSaves(kv.path, signal);
      const { code, stderr } = await busy.stop(signal);
      assert.equal(code, 0, stderr);
      assert.ok(busy.runningAtSignal > 0, "some saves were still running when the signal came");
      const ids = busy.answers.map((a) => a.id).sort((a, b) => a - b);
      assert.deepEqual(ids, Array.from({ length: SAVES + 2 }, (_, i) => i), "every one answered");
      for (const answer of busy.answers.filter((a) => a.id > 0 && a.id <= SAVES)) {
        assert.ok(answer.result && !answer.result.isError, JSON.stringify(answer).slice(0, 300));
      }
      assert.deepEqual(await storedKeys(kv.path), busy.keys);
    } finally {
      await kv.cleanup();
    }
  });
}

Deno.test("a second signal stops a stdio server at once, without waiting for its requests", async () => {
  const kv = await tempKvPath();
  try {
    // More saves than the drain tests: on a quiet machine 30 could all finish between the two
    // signals, and the server would rightly exit 0 having answered everything.
    const busy = await stdioBusyWithSaves(kv.path, "second", SAVES * 4);
    assert.ok(busy.runningAtSignal > 0, "some saves were still running when the signals came");
    const { code, stderr } = await busy.stop("SIGTERM", true);
    assert.equal(code, 130, stderr);
  } finally {
    await kv.cleanup();
  }
});

/** Reads an SSE stream to its end, returning the JSON-RPC messages it carried. */
async function sseMessages(reader: ReadableStreamDefaultReader<string>, seen = ""): Promise<
  { id?: number; result?: { isError?: boolean } }[]
> {
  let text = seen;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  return [...text.matchAll(/event: message\ndata: (.+)\n\n/g)].map((m) => JSON.parse(m[1]));
}

Deno.test("SIGTERM answers every SSE request already accepted and keeps every save", async () => {
  const kv = await tempKvPath();
  const token = "t".repeat(40);
  try {
    const server = await spawnServer({ KV_PATH: kv.path, AUTH_TOKEN: token });
    const res = await fetch(`${server.origin}/${token}/sse`);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    while (!/data: \S+\n\n/.test(seen)) seen += (await reader.read()).value ?? "";
    const endpoint = seen.match(/data: (\S+)/)![1];
    const post = async (message: unknown) => {
      const r = await fetch(`${server.origin}${endpoint}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(message),
      });
      await r.body?.cancel();
      assert.equal(r.status, 202);
    };
    await post(initializeRequest(0));
    await post(INITIALIZED);
    const keys = Array.from({ length: SAVES }, (_, i) => `sse-${String(i).padStart(2, "0")}`);
    await Promise.all(keys.map((key, i) => post(save(i + 1, key, 200_000))));
    const [messages] = await Promise.all([sseMessages(reader, seen), server.close("SIGTERM")]);
    const answered = messages.filter((m) => typeof m.id === "number" && m.id > 0);
    assert.equal(answered.length, SAVES, "every accepted request was answered before the close");
    assert.ok(answered.every((m) => m.result && !m.result.isError));
    assert.deepEqual(await storedKeys(kv.path), keys);
  } finally {
    await kv.cleanup();
  }
});

Deno.test("SIGTERM with Streamable HTTP requests running keeps every acknowledged save", async () => {
  const kv = await tempKvPath();
  const token = "t".repeat(40);
  try {
    const server = await spawnServer({ KV_PATH: kv.path, AUTH_TOKEN: token });
    const keys = Array.from({ length: SAVES }, (_, i) => `http-${String(i).padStart(2, "0")}`);
    const firstAnswer = Promise.withResolvers<void>();
    const calls = keys.map(async (key, i) => {
      try {
        const r = await fetch(`${server.origin}/${token}/mcp`, {
          method: "POST",
          headers: MCP_POST_HEADERS,
          body: JSON.stringify(save(i + 1, key, 50_000)),
        });
        const text = await r.text();
        firstAnswer.resolve();
        return r.status === 200 && /"result"/.test(text) && !/"isError":true/.test(text)
          ? key
          : undefined;
      } catch {
        return undefined; // refused or cut: never acknowledged
      }
    });
    // Stop while the rest are running: once the first answer is back.
    await firstAnswer.promise;
    const [acknowledged] = await Promise.all([Promise.all(calls), server.close("SIGTERM")]);
    const acked = acknowledged.filter((k) => k !== undefined);
    assert.ok(acked.length > 0, "some saves were acknowledged");
    const stored = await storedKeys(kv.path);
    for (const key of acked) assert.ok(stored.includes(key), `acknowledged ${key} is stored`);
  } finally {
    await kv.cleanup();
  }
});

Deno.test("a client that never finishes its request holds SIGTERM no longer than SHUTDOWN_GRACE_MS", async () => {
  const token = "t".repeat(40);
  const server = await spawnServer({
    KV_PATH: ":memory:",
    AUTH_TOKEN: token,
    SHUTDOWN_GRACE_MS: "300",
  });
  const body = new ReadableStream<Uint8Array>({
    start: (c) => c.enqueue(new TextEncoder().encode('{"jsonrpc":"2.0",')),
  });
  const stuck = fetch(`${server.origin}/${token}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body,
  }).then((r) => r.body?.cancel(), () => {});
  await new Promise((r) => setTimeout(r, 100));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outcome = await Promise.race([
    server.close("SIGTERM").then(() => "exited"),
    new Promise((r) => timer = setTimeout(() => r("still running"), 8000)),
  ]);
  clearTimeout(timer);
  if (outcome !== "exited") await server.close("SIGKILL");
  await body.cancel().catch(() => {});
  await stuck;
  assert.equal(outcome, "exited");
});
