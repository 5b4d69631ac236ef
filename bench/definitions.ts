/**
 * The `definitions` group (issue 24): what the tool definitions cost a model on every turn, as
 * the real Claude Code sends them (through the stub model, `tests/support/stub_model.ts`).
 *
 * - Claude Code 2.1.197 (pinned) declares every MCP tool in each request's `tools`: the bytes of
 *   each `mcp__handoff__*` entry (JSON, as sent: name, description, input_schema), per tool and
 *   per toolset. Goal: ≤ 550 bytes per tool on average.
 * - The server's `instructions`, which the CLI puts in its system prompt: goal ≤ 800 bytes.
 * - Claude Code 2.1.332 (newest) names the tools only and loads them through ToolSearch: the
 *   bytes of the entries it declares once all of them are loaded, for comparison.
 *
 * Sizes do not vary between runs: one run of each CLI, no repeats.
 */

import { type AgentRun, startDialRecorder } from "../tests/support/agents.ts";
import { runClaude } from "../tests/support/agent_runners.ts";
import { type Clients, installClients } from "../tests/support/clients.ts";
import { startServer, type TestServer } from "../tests/support/harness.ts";
import { Client, StreamableHTTPClientTransport } from "../src/client/sdk_client.ts";
import { type RecordedRequest, startStubModel } from "../tests/support/stub_model.ts";
import { type BenchGroup, goal, type GroupReport } from "./lib.ts";

const PREFIX = "mcp__handoff__";
const TOOLSETS = ["focus", "handoff", "thinking", "table"];
const utf8 = (text: string) => new TextEncoder().encode(text).length;

interface Declared {
  name: string;
  description?: string;
  input_schema?: unknown;
}

/** The server's tool names per toolset (`?toolsets=`), and its full instructions. */
async function toolsetsOf(server: TestServer) {
  const byTool = new Map<string, string>();
  const connectTo = async (query: string) => {
    const client = new Client({ name: "bench-definitions", version: "1" });
    const url = new URL(`${server.origin}/${server.token}/mcp${query}`);
    await client.connect(new StreamableHTTPClientTransport(url));
    return client;
  };
  for (const toolset of TOOLSETS) {
    const client = await connectTo(`?toolsets=${toolset}`);
    for (const tool of (await client.listTools()).tools) byTool.set(tool.name, toolset);
    await client.close();
  }
  const all = await connectTo("");
  const instructions = all.getInstructions() ?? "";
  await all.close();
  return { byTool, instructions };
}

/** Runs one Claude Code through `plan` and returns every request it sent its model. */
async function requestsOf(
  clients: Clients,
  claude: Clients["claude"],
  server: TestServer,
  preload: string[],
): Promise<{ requests: RecordedRequest[]; run: AgentRun }> {
  // One harmless call; a CLI that defers tools loads every tool of the server with it.
  const stub = await startStubModel({ plan: [{ tool: "list_projects" }], preload });
  const recorder = startDialRecorder();
  try {
    const run = await runClaude({
      clients: { ...clients, claude },
      modelUrl: stub.url,
      mcp: { kind: "http", url: `${server.origin}/${server.token}/mcp` },
      prompt: "List the tools.",
      proxy: recorder.url,
    });
    await run.cleanup();
    if (run.code !== 0) throw new Error(`claude exited ${run.code}: ${run.stderr.slice(-500)}`);
    return { requests: [...stub.requests], run };
  } finally {
    recorder.close();
    await stub.close();
  }
}

/** The server's tools as the last conversational request declared them, by unprefixed name. */
function declaredTools(requests: RecordedRequest[]): Map<string, number> {
  const turns = requests.filter((r) => r.answered !== "utility" && r.answered !== "404");
  const body = turns[turns.length - 1]?.body as { tools?: Declared[] } | undefined;
  const sizes = new Map<string, number>();
  for (const tool of body?.tools ?? []) {
    if (tool.name.startsWith(PREFIX)) {
      sizes.set(tool.name.slice(PREFIX.length), utf8(JSON.stringify(tool)));
    }
  }
  return sizes;
}

/** Bytes per toolset: tools, total, average. */
function perToolset(sizes: Map<string, number>, byTool: Map<string, string>) {
  const out: Record<string, { tools: number; bytes: number; bytes_per_tool: number }> = {};
  for (const toolset of TOOLSETS) {
    const own = [...sizes].filter(([name]) => byTool.get(name) === toolset).map(([, b]) => b);
    const bytes = own.reduce((a, b) => a + b, 0);
    out[toolset] = {
      tools: own.length,
      bytes,
      bytes_per_tool: own.length ? Math.round(bytes / own.length) : 0,
    };
  }
  return out;
}

/** Total and average bytes of `sizes`. */
function totals(sizes: Map<string, number>) {
  const bytes = [...sizes.values()].reduce((a, b) => a + b, 0);
  return { tools: sizes.size, bytes, bytes_per_tool: Math.round(bytes / Math.max(1, sizes.size)) };
}

/** Measures the definitions as both Claude Codes send them. */
async function runDefinitions(): Promise<GroupReport> {
  const clients = await installClients();
  if ("skip" in clients) throw new Error(clients.skip);
  const server = await startServer();
  try {
    const { byTool, instructions } = await toolsetsOf(server);
    const everyTool = [...byTool.keys()];
    const pinned = declaredTools((await requestsOf(clients, clients.claude, server, [])).requests);
    const newest = declaredTools(
      (await requestsOf(clients, clients.claudeNewest, server, everyTool)).requests,
    );
    const pinnedTotals = totals(pinned);
    const instructionBytes = utf8(instructions);
    return {
      goals: [
        goal(
          `tool definition bytes per tool, Claude Code ${
            clients.versions["@anthropic-ai/claude-code"]
          }`,
          pinnedTotals.bytes_per_tool,
          "max",
          550,
        ),
        goal("server instructions (bytes)", instructionBytes, "max", 800),
      ],
      claude_code_pinned: {
        version: clients.versions["@anthropic-ai/claude-code"],
        ...pinnedTotals,
        per_toolset: perToolset(pinned, byTool),
        per_tool: Object.fromEntries([...pinned].sort((a, b) => b[1] - a[1])),
      },
      claude_code_newest: {
        version: clients.versions.claudeNewest,
        loaded_through: "ToolSearch",
        ...totals(newest),
        per_toolset: perToolset(newest, byTool),
      },
      instructions_bytes: instructionBytes,
    };
  } finally {
    await server.close();
  }
}

/** The `definitions` group. */
export const definitionsGroup: BenchGroup = {
  name: "definitions",
  what: "tool definition bytes per tool and per toolset as Claude Code (pinned and newest) " +
    "sends them to its model, and the server instructions",
  run: runDefinitions,
};
