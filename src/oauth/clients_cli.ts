/**
 * `deno task clients`: the owner's list of registered OAuth clients with their last use, and
 * `deno task clients revoke <client_id>` to remove one with every token it holds.
 */

import { fileURLToPath } from "node:url";
import { loadConfig } from "../config.ts";
import { openKv } from "../kit/open_kv.ts";
import { deleteClient, listClients } from "./store_clients.ts";

const USAGE = "Usage: deno task clients            list registered OAuth clients\n" +
  "       deno task clients revoke <id>  revoke a client and every token it holds";

/** Runs the command in `args` against `kv`; returns the exit code. */
export async function runClients(
  kv: Deno.Kv,
  args: readonly string[],
  print: (line: string) => void,
): Promise<number> {
  if (args.length === 0 || (args.length === 1 && args[0] === "list")) {
    const clients = await listClients(kv);
    if (clients.length === 0) {
      print("No OAuth clients are registered.");
      return 0;
    }
    print(["client_id", "name", "registered", "approved", "last used", "grants"].join("\t"));
    for (const { client, grants } of clients) {
      print(
        [
          client.id,
          client.name,
          client.createdAt,
          client.approvedAt ?? "never",
          client.lastUsedAt ?? "never",
          String(grants),
        ].join("\t"),
      );
    }
    return 0;
  }
  if (args.length === 2 && args[0] === "revoke") {
    if (await deleteClient(kv, args[1])) {
      print(
        `Revoked ${args[1]}: its tokens no longer work; it must register and be approved again.`,
      );
      return 0;
    }
    print(`No client ${args[1]}: run deno task clients to list the registered ones.`);
    return 1;
  }
  print(USAGE);
  return 2;
}

/**
 * Opens the server's KV: `KV_PATH` or the project's default file; a `KV_PATH` URL (Deno Deploy's
 * KV Connect, with `DENO_KV_ACCESS_TOKEN`) reaches a deployed server's database.
 */
async function openServerKv(): Promise<Deno.Kv> {
  const config = loadConfig(Deno.env, fileURLToPath(new URL("../..", import.meta.url)));
  return await openKv(config.kvPath);
}

if (import.meta.main) {
  const kv = await openServerKv();
  let code: number;
  try {
    code = await runClients(kv, Deno.args, (line) => console.log(line));
  } finally {
    kv.close();
  }
  Deno.exit(code);
}
