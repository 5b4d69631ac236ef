/**
 * The loopback Host/Origin guard against DNS rebinding, by the SDK's own validation: a page on
 * a foreign site that rebinds its DNS name to 127.0.0.1 still sends its own name in `Host` and
 * `Origin`, so only loopback names and `ALLOWED_HOSTS` pass.
 */

import {
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  originValidationResponse,
} from "../mcp/sdk.ts";

const LOOPBACK_NAMES = new Set(["localhost", "[::1]", "::1"]);
const LOOPBACK_V4 = /^127(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/**
 * True when `host` is a loopback address, so the DNS-rebinding guard applies. Only literal
 * addresses count: a name such as `127.0.0.1.evil.example` is a foreign site.
 */
export function isLoopback(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  return LOOPBACK_NAMES.has(name) || LOOPBACK_V4.test(name);
}

/**
 * The guard of a server bound to loopback address `bound`: the SDK's 403 (a JSON-RPC error
 * naming the refused name) for a `Host` or browser `Origin` that is neither a loopback name,
 * the bound address, nor one of `allowedHosts`; `undefined` lets the request on. A request
 * without `Host` is refused before this (`serve.ts`, 400), so it is not checked here.
 */
export function rebindingGuard(
  allowedHosts: readonly string[],
  bound: string,
): (req: Request) => Response | undefined {
  const named = bound.includes(":") && !bound.startsWith("[") ? `[${bound}]` : bound;
  const allowed = [
    ...new Set([...localhostAllowedHostnames(), named.toLowerCase(), ...allowedHosts]),
  ];
  return (req) =>
    (req.headers.has("host") ? hostHeaderValidationResponse(req, allowed) : undefined) ??
      originValidationResponse(req, allowed);
}
