/**
 * `deno task rotate-token`: replaces the token a local server generated and keeps in KV, and
 * prints the new connector URL once. `AUTH_TOKEN`, when set, overrides the stored token, so
 * rotating then is refused: change `AUTH_TOKEN` instead.
 */

import { fileURLToPath } from "node:url";
import { loadConfig } from "./config.ts";
import { openKv } from "./kit/open_kv.ts";
import { rotateAuthToken } from "./kit/settings.ts";

/** Rotates the stored token; returns the exit code. */
export async function rotateTokenCli(): Promise<number> {
  try {
    const config = loadConfig(Deno.env, fileURLToPath(new URL("..", import.meta.url)));
    if (config.authToken !== undefined) {
      throw new Error(
        "AUTH_TOKEN is set and overrides the stored token: change AUTH_TOKEN to rotate it",
      );
    }
    if (config.kvPath === undefined) {
      throw new Error("on Deno Deploy the token is AUTH_TOKEN: change it in the app's settings");
    }
    const kv = await openKv(config.kvPath);
    let token: string;
    try {
      token = await rotateAuthToken(kv);
    } finally {
      kv.close();
    }
    const host = config.host.includes(":") ? `[${config.host}]` : config.host;
    console.log(`http://${host}:${config.port}/${token}/mcp`);
    console.error(
      "The old token no longer works once the server restarts: restart it, then give clients " +
        "the URL above (shown once; it is also what the server prints at start).",
    );
    return 0;
  } catch (error) {
    console.error(`handoff-mcp rotate-token: ${(error as Error).message}`);
    return 1;
  }
}

if (import.meta.main) Deno.exit(await rotateTokenCli());
