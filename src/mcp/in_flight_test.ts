import assert from "node:assert/strict";
import { InFlight } from "./in_flight.ts";

Deno.test("InFlight settles when every request is answered or cancelled, not on notifications", async () => {
  const flight = new InFlight();
  await flight.settled();
  flight.received({ jsonrpc: "2.0", id: 1, method: "tools/call" });
  flight.received({ jsonrpc: "2.0", id: "b", method: "ping" });
  flight.received({ jsonrpc: "2.0", method: "notifications/initialized" });
  assert.equal(flight.size, 2);
  let settled = false;
  const waiting = flight.settled().then(() => settled = true);
  flight.answered({ jsonrpc: "2.0", method: "notifications/progress", params: {} });
  flight.answered({ jsonrpc: "2.0", id: 1, result: {} });
  await Promise.resolve();
  assert.equal(settled, false);
  // The SDK sends no answer to a cancelled request: the cancellation itself ends it.
  flight.received({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: "b" },
  });
  await waiting;
  assert.equal(flight.size, 0);
});
