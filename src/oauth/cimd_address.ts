/**
 * Where a client ID metadata document may be fetched from: public addresses only. The server
 * fetches a URL a stranger chose, so without this check it could be made to read its own
 * loopback services, the cloud's metadata endpoint or a private network (SSRF).
 */

/** Why `ip` (an IPv4 or IPv6 address, without brackets) may not be fetched, or `undefined`. */
export function addressProblem(ip: string, allowLoopback: boolean): string | undefined {
  const v4 = parseIpv4(ip);
  if (v4 !== undefined) return ipv4Problem(v4, allowLoopback);
  const v6 = parseIpv6(ip);
  if (v6 === undefined) return `${ip} is not an IP address`;
  return ipv6Problem(v6, allowLoopback);
}

/** True when `host` (a URL's hostname) is loopback by name: `localhost` and its subdomains. */
export function isLoopbackName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  return h === "localhost" || h.endsWith(".localhost");
}

/** True when `host` (a hostname or an IP without brackets) is a loopback name or address. */
export function isLoopbackHost(host: string): boolean {
  return isLoopbackName(host) || addressProblem(host, false) === LOOPBACK;
}

const LOOPBACK =
  "a loopback address (allowed only with OAUTH_CIMD_ALLOW_LOOPBACK=on, for local testing)";

/** IPv4 ranges that are not the public internet: [first octets as a number, prefix, what]. */
const V4_BLOCKED: [number, number, string][] = [
  [0x00000000, 8, "an unspecified address"],
  [0x0a000000, 8, "a private address"],
  [0x64400000, 10, "a shared (carrier-grade NAT) address"],
  [0xa9fe0000, 16, "a link-local address"],
  [0xac100000, 12, "a private address"],
  [0xc0000000, 24, "a reserved address"],
  [0xc0000200, 24, "a documentation address"],
  [0xc0a80000, 16, "a private address"],
  [0xc6120000, 15, "a benchmarking address"],
  [0xc6336400, 24, "a documentation address"],
  [0xcb007100, 24, "a documentation address"],
  [0xe0000000, 4, "a multicast address"],
  [0xf0000000, 4, "a reserved address"],
];

function ipv4Problem(n: number, allowLoopback: boolean): string | undefined {
  if (n >>> 24 === 127) return allowLoopback ? undefined : LOOPBACK;
  for (const [base, bits, what] of V4_BLOCKED) {
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    if (((n & mask) >>> 0) === base) return what;
  }
  return undefined;
}

function ipv6Problem(h: number[], allowLoopback: boolean): string | undefined {
  const zeroUpTo = (i: number) => h.slice(0, i).every((x) => x === 0);
  if (zeroUpTo(7) && h[7] === 1) return allowLoopback ? undefined : LOOPBACK;
  if (zeroUpTo(8)) return "an unspecified address";
  // IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) addresses reach an IPv4 host.
  const embedded = ((h[6] << 16) | h[7]) >>> 0;
  if (zeroUpTo(5) && h[5] === 0xffff) return ipv4Problem(embedded, allowLoopback);
  if (h[0] === 0x64 && h[1] === 0xff9b && h.slice(2, 6).every((x) => x === 0)) {
    return ipv4Problem(embedded, allowLoopback);
  }
  // IPv4-compatible (::a.b.c.d, deprecated) carries an IPv4 host in its last 32 bits, 6to4
  // (2002:AABB:CCDD::) in bits 16–48; local-use NAT64 (RFC 8215) reaches whatever IPv4 the
  // local translator serves, private ones included.
  if (zeroUpTo(6)) return ipv4Problem(embedded, allowLoopback);
  if (h[0] === 0x2002) return ipv4Problem(((h[1] << 16) | h[2]) >>> 0, allowLoopback);
  if (h[0] === 0x64 && h[1] === 0xff9b && h[2] === 1) return "a local-use NAT64 address";
  if ((h[0] & 0xffc0) === 0xfec0) return "a site-local address";
  if ((h[0] & 0xfe00) === 0xfc00) return "a private (unique local) address";
  if ((h[0] & 0xffc0) === 0xfe80) return "a link-local address";
  if ((h[0] & 0xff00) === 0xff00) return "a multicast address";
  if (h[0] === 0x2001 && h[1] === 0x0db8) return "a documentation address";
  if (h[0] === 0x0100 && zeroUpTo(4)) return "a discard address";
  return undefined;
}

function parseIpv4(ip: string): number | undefined {
  const parts = ip.split(".");
  if (parts.length !== 4 || parts.some((p) => !/^(0|[1-9]\d{0,2})$/.test(p) || Number(p) > 255)) {
    return undefined;
  }
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part allowed). */
function parseIpv6(ip: string): number[] | undefined {
  let text = ip.toLowerCase();
  const dotted = text.match(/^(.*:)(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    const v4 = parseIpv4(dotted[2]);
    if (v4 === undefined) return undefined;
    text = `${dotted[1]}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const groups = (s: string) => s === "" ? [] : s.split(":");
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  if (all.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return undefined;
  return all.map((g) => parseInt(g, 16));
}
