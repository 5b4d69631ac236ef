/**
 * One runner per agent CLI: writes its configuration (the stub model as its API, the MCP server
 * as `handoff`) into a fresh home folder and runs one prompt non-interactively.
 */

import { join } from "node:path";
import {
  type AgentOptions,
  type AgentRun,
  baseEnv,
  type CliRun,
  makeHome,
  type McpTarget,
  runCli,
  SERVER_NAME,
} from "./agents.ts";

async function finish(home: string, run: Promise<CliRun>): Promise<AgentRun> {
  const out = await run;
  return { ...out, home, cleanup: () => Deno.remove(home, { recursive: true }) };
}

/** Claude Code's `mcpServers` entry (also Gemini's, with `httpUrl` for HTTP). */
function claudeServer(mcp: McpTarget): Record<string, unknown> {
  return mcp.kind === "http"
    ? { type: "http", url: mcp.url, headers: mcp.headers ?? {} }
    : { type: "stdio", command: mcp.command, args: mcp.args, env: mcp.env ?? {} };
}

/** Options of {@link runClaude}: settings are merged into its `settings.json` (hooks and so on). */
export interface ClaudeOptions extends AgentOptions {
  settings?: Record<string, unknown>;
  /** Extra command-line arguments. */
  args?: string[];
}

/**
 * `claude -p <prompt>` with the server allowed (`--allowedTools mcp__handoff`), the stub as
 * `ANTHROPIC_BASE_URL`, and its config in `CLAUDE_CONFIG_DIR` under the home folder.
 */
export async function runClaude(o: ClaudeOptions): Promise<AgentRun> {
  const home = await makeHome();
  const configDir = join(home, ".claude");
  await Deno.mkdir(configDir, { recursive: true });
  await Deno.writeTextFile(join(configDir, "settings.json"), JSON.stringify(o.settings ?? {}));
  const mcpConfig = join(home, "mcp.json");
  await Deno.writeTextFile(
    mcpConfig,
    JSON.stringify({ mcpServers: { [SERVER_NAME]: claudeServer(o.mcp) } }),
  );
  const env = {
    ...baseEnv(home, o.proxy),
    CLAUDE_CONFIG_DIR: configDir,
    ANTHROPIC_BASE_URL: o.modelUrl,
    ANTHROPIC_API_KEY: "sk-ant-stub-key",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_BUG_COMMAND: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL: "1",
    MCP_TIMEOUT: "60000",
    // `-p` starts its first turn before --mcp-config servers connect unless told to wait; a slow
    // stdio start then leaves the model without the server's tools.
    MCP_CONNECTION_NONBLOCKING: "false",
    MCP_CONNECT_TIMEOUT_MS: "60000",
    ...o.env,
  };
  const args = [
    "-p",
    o.prompt,
    "--mcp-config",
    mcpConfig,
    "--strict-mcp-config",
    "--allowedTools",
    `mcp__${SERVER_NAME}`,
    "--output-format",
    "json",
    ...o.args ?? [],
  ];
  return await finish(
    home,
    runCli(o.clients.claude, args, { env, cwd: join(home, "work"), timeoutMs: o.timeoutMs }),
  );
}

/**
 * `gemini -p <prompt> --approval-mode yolo` with the stub as `GOOGLE_GEMINI_BASE_URL`, an API key
 * sign-in, the server trusted, and telemetry, usage statistics and update checks off in
 * `~/.gemini/settings.json`.
 */
export async function runGemini(o: AgentOptions): Promise<AgentRun> {
  const home = await makeHome();
  await Deno.mkdir(join(home, ".gemini"), { recursive: true });
  const server = o.mcp.kind === "http"
    ? { httpUrl: o.mcp.url, headers: o.mcp.headers ?? {}, trust: true, timeout: 60000 }
    : { command: o.mcp.command, args: o.mcp.args, env: o.mcp.env ?? {}, trust: true };
  await Deno.writeTextFile(
    join(home, ".gemini", "settings.json"),
    JSON.stringify({
      mcpServers: { [SERVER_NAME]: server },
      security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
      general: { disableAutoUpdate: true, disableUpdateNag: true, enableAutoUpdate: false },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
    }),
  );
  const env = {
    ...baseEnv(home, o.proxy),
    GEMINI_API_KEY: "stub-gemini-key",
    GOOGLE_GEMINI_BASE_URL: o.modelUrl,
    GEMINI_TELEMETRY_ENABLED: "false",
    GEMINI_CLI_NO_RELAUNCH: "true",
    ...o.env,
  };
  const args = ["-p", o.prompt, "--approval-mode", "yolo", "--output-format", "json"];
  return await finish(
    home,
    runCli(o.clients.gemini, args, { env, cwd: join(home, "work"), timeoutMs: o.timeoutMs }),
  );
}

/** A TOML string (JSON's escaping is valid TOML for a basic string). */
const toml = (value: string) => JSON.stringify(value);

/**
 * `codex exec <prompt>` with a `model_providers.stub` entry (`base_url` = the stub's `openaiUrl`,
 * `wire_api = "responses"`) in `CODEX_HOME/config.toml`, approvals off and a read-only sandbox.
 */
export async function runCodex(o: AgentOptions): Promise<AgentRun> {
  const home = await makeHome();
  const codexHome = join(home, ".codex");
  await Deno.mkdir(codexHome, { recursive: true });
  const server = o.mcp.kind === "http" ? [`url = ${toml(o.mcp.url)}`] : [
    `command = ${toml(o.mcp.command)}`,
    `args = [${o.mcp.args.map(toml).join(", ")}]`,
    `env = { ${Object.entries(o.mcp.env ?? {}).map(([k, v]) => `${k} = ${toml(v)}`).join(", ")} }`,
  ];
  const config = [
    `model = "gpt-5-stub"`,
    `model_provider = "stub"`,
    `approval_policy = "never"`,
    `sandbox_mode = "read-only"`,
    `check_for_update_on_startup = false`,
    ``,
    `[model_providers.stub]`,
    `name = "stub"`,
    `base_url = ${toml(o.modelUrl)}`,
    `wire_api = "responses"`,
    `env_key = "STUB_API_KEY"`,
    `request_max_retries = 0`,
    `stream_max_retries = 0`,
    ``,
    `[analytics]`,
    `enabled = false`,
    ``,
    // Each of these fetches from github.com or chatgpt.com at start (seen through the dial
    // recorder): the curated plugin marketplace, remote plugins, connectors, model discovery.
    `[features]`,
    `plugins = false`,
    `remote_plugin = false`,
    `plugin_sharing = false`,
    `apps = false`,
    `api_key_model_discovery = false`,
    `in_app_updates = false`,
    ``,
    `[mcp_servers.${SERVER_NAME}]`,
    ...server,
    // Tools that write need approval even with approval_policy "never" (which then refuses).
    `default_tools_approval_mode = "approve"`,
    `startup_timeout_sec = 60`,
    `tool_timeout_sec = 60`,
    ``,
  ].join("\n");
  await Deno.writeTextFile(join(codexHome, "config.toml"), config);
  const env = { ...baseEnv(home, o.proxy), CODEX_HOME: codexHome, STUB_API_KEY: "stub", ...o.env };
  const args = ["exec", "--skip-git-repo-check", "--json", o.prompt];
  return await finish(
    home,
    runCli(o.clients.codex, args, { env, cwd: join(home, "work"), timeoutMs: o.timeoutMs }),
  );
}
