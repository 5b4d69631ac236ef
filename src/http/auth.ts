/** The loopback Origin/Host guard against DNS rebinding. */

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
 * Why a request to a loopback-bound server must be refused, or `undefined`. A page on a foreign
 * site that rebinds its DNS name to 127.0.0.1 still sends its own name in `Host` and `Origin`.
 */
export function rebindingRefusal(
  req: Request,
  allowedHosts: readonly string[],
): string | undefined {
  return refusalOf(req, (name) => isLoopback(name) || allowedHosts.includes(name));
}

/** `rebindingRefusal` for one server's `ALLOWED_HOSTS`. */
export function rebindingGuard(
  allowedHosts: readonly string[],
): (req: Request) => string | undefined {
  return (req) => rebindingRefusal(req, allowedHosts);
}

function refusalOf(req: Request, allowed: (name: string) => boolean): string | undefined {
  const host = req.headers.get("host");
  if (host !== null && !allowed(hostName(host))) {
    return `Host "${host}" is not allowed: this server is bound to loopback (set ALLOWED_HOSTS to add names)`;
  }
  const origin = req.headers.get("origin");
  if (origin !== null) {
    let name: string;
    try {
      name = new URL(origin).hostname;
    } catch {
      return `Origin "${origin}" is not allowed`;
    }
    if (!allowed(name)) {
      return `Origin "${origin}" is not allowed: this server is bound to loopback`;
    }
  }
  return undefined;
}

function hostName(host: string): string {
  if (host.startsWith("[")) return host.slice(0, host.indexOf("]") + 1);
  const colon = host.indexOf(":");
  return colon === -1 ? host : host.slice(0, colon);
}
