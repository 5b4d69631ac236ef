/** Fixtures for the table toolset's tests: KV, settings with a hand-moved clock, and clients. */

import assert from "node:assert/strict";
import { loadConfig } from "../../src/config.ts";
import { AppError } from "../../src/kit/errors.ts";
import type { Caller } from "../../src/kit/caller.ts";
import { Client, InMemoryTransport } from "../../src/client/sdk_client.ts";
import { createMcpServer } from "../../src/mcp/server.ts";
import { loadTableSettings, type TableSettings } from "../../src/table/settings.ts";
import { type TableCtx, tableCtx } from "../../src/table/store_common.ts";
import { tableToolset } from "../../src/table/toolset.ts";

/** An SDK client. */
export type McpClient = InstanceType<typeof Client>;

/** A clock tests move by hand. */
export interface Clock {
  now: number;
  /** Moves the clock forward by `days` (decimals allowed). */
  advanceDays(days: number): void;
}

/** What a table test gets. */
export interface TableWorld {
  kv: Deno.Kv;
  settings: TableSettings;
  clock: Clock;
  ctx: TableCtx;
  /** A client connected in memory to a server whose process caller is `caller`. */
  client(caller: Caller): Promise<McpClient>;
}

/** Callers used across the tests. */
export const CODEX: Caller = { name: "codex", via: "token" };
export const CLAUDE: Caller = { name: "claude", via: "header" };
export const OWNER: Caller = { name: "owner", via: "default" };

/** Runs `fn` with a fresh in-memory KV and table settings read from `env`. */
export async function withTable(
  env: Record<string, string>,
  fn: (world: TableWorld) => Promise<void>,
  kv?: Deno.Kv,
): Promise<void> {
  const clock: Clock = {
    now: Date.parse("2026-03-01T09:00:00.000Z"),
    advanceDays(days) {
      this.now += days * 86_400_000;
    },
  };
  const settings = loadTableSettings(new Map(Object.entries(env)), () => clock.now);
  const store = kv ?? await Deno.openKv(":memory:");
  const config = loadConfig(new Map([["KV_PATH", ":memory:"]]));
  const closers: (() => Promise<void>)[] = [];
  const world: TableWorld = {
    kv: store,
    settings,
    clock,
    ctx: tableCtx(store, settings),
    async client(caller) {
      const server = createMcpServer({ kv: store, config, caller }, [tableToolset(settings)]);
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const client = new Client({ name: `table-test-${caller.name}`, version: "1.0.0" });
      await server.connect(serverSide);
      await client.connect(clientSide);
      closers.push(async () => {
        await client.close();
        await server.close();
      });
      return client;
    },
  };
  try {
    await fn(world);
  } finally {
    for (const close of closers) await close();
    if (!kv) store.close();
  }
}

/** Asserts `promise` fails with an `AppError` of `kind` whose message matches `pattern`. */
export async function fails(
  promise: Promise<unknown>,
  kind: string,
  pattern: RegExp,
): Promise<AppError> {
  let caught: AppError | undefined;
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.kind, kind, error.message);
    assert.match(error.message, pattern);
    caught = error;
    return true;
  });
  return caught!;
}
