/** handoff-mcp: durable AI work across chats, sessions and vendors, over MCP. */

import { type Config, loadConfig } from "./src/config.ts";
import { startHttpServer } from "./src/http/serve.ts";
import { serveStdio } from "./src/mcp/stdio.ts";
import { openKv } from "./src/store/kv.ts";

function configOrExit(): Config {
  try {
    return loadConfig(Deno.env, new URL(".", import.meta.url).pathname);
  } catch (error) {
    console.error(`handoff-mcp: configuration error: ${(error as Error).message}`);
    Deno.exit(1);
  }
}

const config = configOrExit();
const kv = await openKv(config.kvPath);

if (Deno.args.includes("--stdio")) {
  await serveStdio({ kv, config });
} else {
  const server = await startHttpServer(config, kv);
  const shown = config.authToken === undefined
    ? server.mcpUrl
    : `${server.origin}/<AUTH_TOKEN>/mcp`;
  console.log(
    `handoff-mcp listening on ${server.origin} (toolsets: ${config.toolsets.join(", ")})`,
  );
  console.log(`Connect an MCP client to: ${shown}`);
  if (!config.onDeploy) {
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      Deno.addSignalListener(signal, () => void server.shutdown());
    }
  }
  await server.finished;
}
kv.close();
