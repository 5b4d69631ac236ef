/** A server listening beyond loopback refuses a short AUTH_TOKEN before it serves anything. */

import assert from "node:assert/strict";
import { ROOT, startServer } from "./support/harness.ts";

Deno.test("main.ts with a short AUTH_TOKEN on HOST=0.0.0.0 exits with one line naming AUTH_TOKEN and 32", async () => {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net", "--allow-env", "--allow-read", "--allow-write", "main.ts"],
    cwd: ROOT,
    env: { PORT: "0", HOST: "0.0.0.0", AUTH_TOKEN: "short-secret", KV_PATH: ":memory:" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(code, 1);
  assert.equal(new TextDecoder().decode(stdout), "", "nothing was served or announced");
  const lines = new TextDecoder().decode(stderr).trimEnd().split("\n");
  assert.equal(lines.length, 1, lines.join("\n"));
  assert.match(lines[0], /^handoff-mcp: .*AUTH_TOKEN is too short \(12 characters\).*at least 32/);
  assert.doesNotMatch(lines[0], /short-secret/, "the secret itself is never printed");
});

Deno.test("a short AUTH_TOKEN is fine on loopback; beyond it a 32-character one is needed", async () => {
  const loopback = await startServer({ env: { AUTH_TOKEN: "tiny" } });
  await loopback.close();
  for (const host of ["0.0.0.0", "::"]) {
    await assert.rejects(
      () => startServer({ env: { HOST: host, AUTH_TOKEN: "x".repeat(31) } }),
      /AUTH_TOKEN is too short \(31 characters\).*at least 32/,
    );
  }
  await assert.rejects(
    () =>
      startServer({
        env: {
          HOST: "0.0.0.0",
          AUTH_TOKEN: "x".repeat(32),
          AUTH_TOKENS: `codex=${"c".repeat(20)}`,
        },
      }),
    /AUTH_TOKENS token of "codex" is too short \(20 characters\).*at least 32/,
  );
  const wide = await startServer({ env: { HOST: "0.0.0.0", AUTH_TOKEN: "x".repeat(32) } });
  const res = await fetch(`http://127.0.0.1:${new URL(wide.origin).port}/healthz`);
  assert.equal(await res.text(), "ok");
  await wide.close();
});
