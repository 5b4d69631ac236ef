/** Client ID metadata documents served on loopback, as a client's own web server would. */

import { REDIRECT_URI } from "./oauth.ts";

/** What a document path answers: a JSON value, or a whole response. */
export type Served = unknown | (() => Response);

/** A loopback document server: set what a path answers, count its fetches. */
export interface DocumentHost {
  origin: string;
  /** The URL of `path` on this host. */
  url(path: string): string;
  /** Serves `value` (JSON, `application/json`) or the response `value()` makes at `path`. */
  set(path: string, value: Served): void;
  /** How many times `path` was fetched. */
  fetches(path: string): number;
  close(): Promise<void>;
}

/** A test CA (its PEM file, for the server's `DENO_CERT`) and a 127.0.0.1 certificate it signed. */
export interface TestTls {
  caFile: string;
  cert: string;
  key: string;
  cleanup(): Promise<void>;
}

/** Makes a CA and a certificate for 127.0.0.1 with `openssl`, valid for a day. */
export async function testTls(): Promise<TestTls> {
  const dir = await Deno.makeTempDir({ prefix: "cimd-tls-" });
  const ssl = async (...args: string[]) => {
    const out = await new Deno.Command("openssl", {
      args,
      cwd: dir,
      stdout: "null",
      stderr: "piped",
    })
      .output();
    if (!out.success) {
      throw new Error(`openssl ${args[0]}: ${new TextDecoder().decode(out.stderr)}`);
    }
  };
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  await ssl(
    "req",
    "-x509",
    ...ec,
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-days",
    "1",
    "-subj",
    "/CN=cimd test CA",
  );
  await ssl("req", ...ec, "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=127.0.0.1");
  await Deno.writeTextFile(
    `${dir}/ext.cnf`,
    "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
  );
  await ssl(
    "x509",
    "-req",
    "-in",
    "leaf.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "leaf.pem",
    "-days",
    "1",
    "-extfile",
    "ext.cnf",
  );
  return {
    caFile: `${dir}/ca.pem`,
    cert: await Deno.readTextFile(`${dir}/leaf.pem`),
    key: await Deno.readTextFile(`${dir}/leaf.key`),
    cleanup: () => Deno.remove(dir, { recursive: true }),
  };
}

/** Starts a document host on a free loopback port (https with `tls`, else plain http). */
export function documentHost(tls?: { cert: string; key: string }): DocumentHost {
  const served = new Map<string, Served>();
  const counts = new Map<string, number>();
  const options = { hostname: "127.0.0.1", port: 0, onListen: () => {}, ...tls };
  const server = Deno.serve(options, (req) => {
    const path = new URL(req.url).pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    if (!served.has(path)) return new Response("not found", { status: 404 });
    const value = served.get(path);
    if (typeof value === "function") return (value as () => Response)();
    return Response.json(value, { headers: { "cache-control": "max-age=300" } });
  });
  const origin = `${tls ? "https" : "http"}://127.0.0.1:${server.addr.port}`;
  return {
    origin,
    url: (path) => `${origin}${path}`,
    set: (path, value) => void served.set(path, value),
    fetches: (path) => counts.get(path) ?? 0,
    close: () => server.shutdown(),
  };
}

/** A valid document for the client whose id is `clientId`. */
export function clientDocument(
  clientId: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    client_id: clientId,
    client_name: "Doc App",
    redirect_uris: [REDIRECT_URI],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    ...overrides,
  };
}
