/**
 * The `eras` group (issue 15): both MCP eras on `/mcp`, measured against the SDK's own floor.
 *
 * - Goal 1: server CPU per `tools/call` of `list_projects` on an empty KV, ÷ that of the SDK's
 *   minimal `createMcpHandler` server with one trivial tool (`bench/sdk_floor.ts`), for 2026
 *   clients (SDK v2, pinned) and 2025 clients (SDK v1): ≤ 1.3 (issue 25).
 * - Goal 2: the same call with all four toolsets ÷ with `focus` alone (flat in the tool count).
 * - Goal 3: HTTP requests a 2026 client makes to connect and make its first call.
 * - Details: the same call ÷ the floor whose tool lists one empty KV page (`FLOOR_KV_PATH`), as
 *   `list_projects` does, and that floor ÷ the no-op floor: what the one read costs the SDK's own
 *   server, the least any tool that reads KV can be held to.
 *
 * The three servers run one after another in each repeat (16 clients, 4 client processes), and
 * each ratio is the median of the per-repeat ratios, so a noisy stretch hits one repeat.
 */

import { tempKvPath } from "../tests/support/harness.ts";
import { ClientV2, StreamableHTTPClientTransportV2 } from "../src/client/sdk_client_v2.ts";
import { type BenchGroup, goal, type GroupReport, median, round } from "./lib.ts";
import { type CaseSpec, type Era, runLoad } from "./load.ts";
import { type ServerProcess, startServerProcess } from "./process.ts";

const REPEATS = 5;
const ROUNDS = { rounds: 4, warmupRounds: 2 };
const LIST: Record<string, CaseSpec> = { call: { call: { tool: "list_projects" } } };
const NOOP: Record<string, CaseSpec> = { call: { call: { tool: "noop" } } };
/** `ping` on both servers (2025 era): the serving path alone, no tool (a detail, not a goal). */
const PING: Record<string, CaseSpec> = { call: { call: { tool: "ping" } } };

/** Server CPU per call of `cases` on `server`, for clients of `era`. */
async function cpuPerCall(
  server: ServerProcess,
  cases: Record<string, CaseSpec>,
  era: Era,
): Promise<number> {
  const result = await runLoad(server, cases, { era, ...ROUNDS });
  return result.call.cpu_ms_per_call;
}

/** The HTTP requests a pinned 2026 client makes to connect and call `list_projects` once. */
async function firstCallRequests(url: string): Promise<number> {
  let requests = 0;
  const client = new ClientV2({ name: "bench-first-call", version: "1" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await client.connect(
    new StreamableHTTPClientTransportV2(new URL(url), {
      fetch: (input, init) => {
        requests++;
        return fetch(input, init);
      },
    }),
  );
  await client.callTool({ name: "list_projects", arguments: {} });
  await client.close();
  return requests;
}

export const erasGroup: BenchGroup = {
  name: "eras",
  what:
    "list_projects per call vs the SDK's minimal createMcpHandler server (2026 and 2025 clients), all toolsets vs focus alone, requests to a first 2026 call",
  async run(): Promise<GroupReport> {
    const kvAll = await tempKvPath();
    const kvFocus = await tempKvPath();
    const kvFloor = await tempKvPath();
    const floor = await startServerProcess({}, "bench/sdk_floor.ts");
    const floorKv = await startServerProcess({ FLOOR_KV_PATH: kvFloor.path }, "bench/sdk_floor.ts");
    const all = await startServerProcess({ KV_PATH: kvAll.path });
    const focus = await startServerProcess({ KV_PATH: kvFocus.path, TOOLSETS: "focus" });
    try {
      const repeats: Record<string, number>[] = [];
      for (let r = 0; r < REPEATS; r++) {
        const row: Record<string, number> = {};
        for (const era of ["2026", "2025"] as const) {
          row[`floor_${era}`] = await cpuPerCall(floor, NOOP, era);
          row[`floor_kv_${era}`] = await cpuPerCall(floorKv, NOOP, era);
          row[`all_${era}`] = await cpuPerCall(all, LIST, era);
          row[`focus_${era}`] = await cpuPerCall(focus, LIST, era);
          if (era === "2025") { // the 2026-07-28 revision has no ping
            row.floor_ping_2025 = await cpuPerCall(floor, PING, era);
            row.all_ping_2025 = await cpuPerCall(all, PING, era);
          }
        }
        repeats.push(row);
      }
      const ratio = (a: string, b: string) => median(repeats.map((r) => r[a] / r[b]));
      const requests = await firstCallRequests(all.mcpUrl);
      const cases = Object.fromEntries(
        Object.keys(repeats[0]).map((k) => [k, round(median(repeats.map((r) => r[k])))]),
      );
      return {
        goals: [
          goal(
            "list_projects ÷ SDK floor, server CPU per call, 2026",
            ratio("all_2026", "floor_2026"),
            "max",
            1.3,
          ),
          goal(
            "list_projects ÷ SDK floor, server CPU per call, 2025",
            ratio("all_2025", "floor_2025"),
            "max",
            1.3,
          ),
          goal(
            "all four toolsets ÷ focus alone, CPU per call, 2026",
            ratio("all_2026", "focus_2026"),
            "max",
            1.2,
          ),
          goal(
            "all four toolsets ÷ focus alone, CPU per call, 2025",
            ratio("all_2025", "focus_2025"),
            "max",
            1.2,
          ),
          goal("HTTP requests to connect and make a first 2026 call", requests, "max", 2),
        ],
        cases: { cpu_ms_per_call: cases, repeats },
        // How much of the gap is the serving path (ping, no tool) and how much the tool call.
        ping_vs_floor_ping_2025: round(ratio("all_ping_2025", "floor_ping_2025")),
        // The same ratio against a floor whose tool makes the one KV read list_projects makes.
        vs_floor_with_kv_read: {
          "2026": round(ratio("all_2026", "floor_kv_2026")),
          "2025": round(ratio("all_2025", "floor_kv_2025")),
        },
        // What that one read costs the SDK's own server: its floor with the read ÷ without. Above
        // the 1.3 goal, no tool that reads KV once can meet it against the no-op floor.
        floor_with_kv_read_vs_floor: {
          "2026": round(ratio("floor_kv_2026", "floor_2026")),
          "2025": round(ratio("floor_kv_2025", "floor_2025")),
        },
      };
    } finally {
      await Promise.all([floor.close(), floorKv.close(), all.close(), focus.close()]);
      await kvAll.cleanup();
      await kvFocus.cleanup();
      await kvFloor.cleanup();
    }
  },
};
