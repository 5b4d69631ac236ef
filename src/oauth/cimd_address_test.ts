import assert from "node:assert/strict";
import { addressProblem, isLoopbackHost } from "./cimd_address.ts";

Deno.test("addressProblem() lets only public addresses through; loopback only when allowed", () => {
  for (const ip of ["8.8.8.8", "1.1.1.1", "2606:4700::1111", "::ffff:8.8.8.8"]) {
    assert.equal(addressProblem(ip, false), undefined, ip);
  }
  const refused: [string, RegExp][] = [
    ["127.0.0.1", /loopback/],
    ["127.8.9.10", /loopback/],
    ["::1", /loopback/],
    ["::ffff:127.0.0.1", /loopback/],
    ["::ffff:7f00:1", /loopback/],
    ["10.0.0.1", /private/],
    ["172.16.5.4", /private/],
    ["192.168.1.1", /private/],
    ["100.64.0.1", /carrier-grade NAT/],
    ["169.254.169.254", /link-local/],
    ["fe80::1", /link-local/],
    ["fd12:3456::1", /unique local/],
    ["0.0.0.0", /unspecified/],
    ["::", /unspecified/],
    ["224.0.0.1", /multicast/],
    ["ff02::1", /multicast/],
    ["64:ff9b::10.0.0.1", /private/],
    ["2001:db8::1", /documentation/],
    ["1.2.3", /not an IP address/],
    ["1::2::3", /not an IP address/],
  ];
  for (const [ip, why] of refused) assert.match(addressProblem(ip, false) ?? "", why, ip);
  assert.equal(addressProblem("127.0.0.1", true), undefined);
  assert.equal(addressProblem("::1", true), undefined);
  assert.match(
    addressProblem("10.0.0.1", true) ?? "",
    /private/,
    "the testing setting opens loopback only",
  );
  assert.equal(isLoopbackHost("localhost"), true);
  assert.equal(isLoopbackHost("app.localhost"), true);
  assert.equal(isLoopbackHost("127.0.0.1"), true);
  assert.equal(isLoopbackHost("example.com"), false);
});

Deno.test("addressProblem() refuses IPv6 forms that carry or reach a private IPv4 or site", () => {
  const refused: [string, RegExp][] = [
    // IPv4-compatible (deprecated ::a.b.c.d), 6to4 (2002:AABB:CCDD::) and local-use NAT64.
    ["::127.0.0.1", /loopback/],
    ["::7f00:1", /loopback/],
    ["::10.0.0.1", /private/],
    ["2002:7f00:1::1", /loopback/],
    ["2002:a9fe:a9fe::", /link-local/],
    ["64:ff9b:1::a00:1", /local-use NAT64/],
    ["fec0::1", /site-local/],
  ];
  for (const [ip, why] of refused) assert.match(addressProblem(ip, false) ?? "", why, ip);
  assert.equal(addressProblem("2002:808:808::1", false), undefined, "6to4 of a public IPv4");
});
