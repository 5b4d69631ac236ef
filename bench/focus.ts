/**
 * Focus toolset: median `get_state` latency over Streamable HTTP on loopback with 0, 1,000 and
 * 10,000 finished tasks in the project, against a bare `ping` on the same server, on a KV file.
 */

import { DEFAULT_FOCUS_LIMITS } from "../src/focus/settings.ts";
import { Client, StreamableHTTPClientTransport } from "../src/mcp/sdk_client.ts";
import { addTask, completeTask, setFocus, setNorthStar } from "../src/focus/store.ts";
import { startServer, tempKvPath } from "../tests/support/harness.ts";
import { type BenchGroup, goal, measureInterleaved, ratio } from "./lib.ts";

const FINISHED = [0, 1_000, 10_000];

/** Seeds a project with a north star, a focus, three open follow-ups and `finished` done tasks. */
async function seed(kv: Deno.Kv, projectId: string, finished: number): Promise<void> {
  const limits = DEFAULT_FOCUS_LIMITS;
  await setNorthStar(kv, limits, projectId, "Keep get_state fast");
  await setFocus(kv, limits, projectId, "Measure it", "numbers beat guesses");
  for (let start = 0; start < finished; start += 50) {
    await Promise.all(Array.from({ length: Math.min(50, finished - start) }, async (_, i) => {
      const task = await addTask(kv, limits, projectId, `finished ${start + i}`, "cleanup");
      await completeTask(kv, task.id);
    }));
  }
  for (const kind of ["cleanup", "record", "main"]) {
    await addTask(kv, limits, projectId, `open ${kind}`, kind);
  }
}

/** Runs the focus benchmark and returns medians and the 10,000-vs-empty ratio. */
export async function benchFocus(): Promise<Record<string, unknown>> {
  const kvFile = await tempKvPath();
  const server = await startServer({ env: { KV_PATH: kvFile.path } });
  const client = new Client({ name: "bench", version: "1" });
  try {
    for (const n of FINISHED) await seed(server.kv, `bench-${n}`, n);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.origin}/${server.token}/mcp`)),
    );
    const cases: Record<string, () => Promise<unknown>> = { ping: () => client.ping() };
    for (const n of FINISHED) {
      const getState = () =>
        client.callTool({ name: "get_state", arguments: { project_id: `bench-${n}` } });
      // Time only a call that returns the seeded state, never a fast error.
      const first = await getState();
      const text = (first.content as { text: string }[])[0].text;
      if (
        first.isError || text.split("\n").length !== 5 || !text.includes("[record] open record")
      ) {
        throw new Error(`get_state for bench-${n} did not return the seeded state: ${text}`);
      }
      cases[`get_state_${n}_finished`] = getState;
    }
    const results = await measureInterleaved(cases, 10, 30);
    return {
      transport: "streamable-http (stateless, SSE responses), loopback",
      kv: "file",
      results,
      ratio_10000_vs_empty: ratio(results.get_state_10000_finished, results.get_state_0_finished),
      ratio_1000_vs_empty: ratio(results.get_state_1000_finished, results.get_state_0_finished),
      goal: "ratio_10000_vs_empty <= 1.5",
    };
  } finally {
    await client.close();
    await server.close();
    await kvFile.cleanup();
  }
}

/** The `focus` benchmark group: get_state with 10,000 finished tasks against an empty project. */
export const focusGroup: BenchGroup = {
  name: "focus",
  what: "get_state latency with 0, 1,000 and 10,000 finished tasks (one client, in-process)",
  run: async () => {
    const report = await benchFocus();
    const measured = report.ratio_10000_vs_empty as number;
    return {
      goals: [goal("get_state latency, 10,000 finished / none", measured, "max", 1.5)],
      ...report,
    };
  },
};
