import assert from "node:assert/strict";
import { ConnectionTransport } from "./connection.ts";

/** A connection that keeps what it writes. */
class Recorded extends ConnectionTransport {
  readonly written: object[] = [];
  protected write(message: object): Promise<void> {
    this.written.push(message);
    return Promise.resolve();
  }
  protected end(): void {}
}

Deno.test("ConnectionTransport settles when every request is answered or cancelled, not on notifications", async () => {
  const connection = new Recorded("test connection");
  await connection.settled();
  connection.deliver({ jsonrpc: "2.0", id: 1, method: "tools/call" });
  connection.deliver({ jsonrpc: "2.0", id: "b", method: "ping" });
  connection.deliver({ jsonrpc: "2.0", method: "notifications/initialized" });
  assert.equal(connection.pending, 2);
  let settled = false;
  const waiting = connection.settled().then(() => settled = true);
  await connection.send({ jsonrpc: "2.0", method: "notifications/progress", params: {} } as never);
  await connection.send({ jsonrpc: "2.0", id: 1, result: {} });
  await Promise.resolve();
  assert.equal(settled, false);
  // The SDK sends no answer to a cancelled request: the cancellation itself ends it.
  connection.deliver({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: "b" },
  });
  await waiting;
  assert.equal(connection.pending, 0);
});

Deno.test("ConnectionTransport waits for every request that reused an id, not just the first answer", async () => {
  const connection = new Recorded("test connection");
  // A client that breaks the unique-id rule still gets each of its requests carried out.
  connection.deliver({ jsonrpc: "2.0", id: 9, method: "ping" });
  connection.deliver({ jsonrpc: "2.0", id: 9, method: "tools/call" });
  assert.equal(connection.pending, 2);
  let settled = false;
  const waiting = connection.settled().then(() => settled = true);
  await connection.send({ jsonrpc: "2.0", id: 9, result: {} });
  await Promise.resolve();
  assert.equal(settled, false, "the second request with id 9 is still running");
  assert.equal(connection.pending, 1);
  await connection.send({ jsonrpc: "2.0", id: 9, result: {} });
  await waiting;
  assert.equal(connection.pending, 0);
});

Deno.test("ConnectionTransport does not wait for a request delivered as not awaiting an answer, and refuses a send after close", async () => {
  const connection = new Recorded("test connection");
  let closed = false;
  connection.onclose = () => closed = true;
  connection.deliver({ jsonrpc: "2.0", id: 1, method: "subscriptions/listen" }, undefined, false);
  assert.equal(connection.pending, 0);
  await connection.settled();
  await connection.close();
  assert.equal(closed, true);
  await assert.rejects(
    connection.send({ jsonrpc: "2.0", id: 1, result: {} }),
    /test connection is closed/,
  );
  assert.equal(connection.written.length, 0);
});
