import assert from "node:assert/strict";
import { NoticeBus } from "./notices.ts";

Deno.test("NoticeBus tells each listener of a topic, until it stops listening", () => {
  const bus = new NoticeBus();
  const heard: string[] = [];
  const stopA = bus.listen("t", (t) => heard.push(`a:${t}`));
  bus.listen("t", () => {
    throw new Error("a closed session");
  });
  bus.listen("other", () => heard.push("other"));
  bus.publish("t");
  assert.deepEqual(heard, ["a:t"], "a throwing listener does not stop the others");
  stopA();
  stopA();
  bus.publish("t");
  assert.deepEqual(heard, ["a:t"]);
  assert.equal(bus.listeners("t"), 1);
  assert.equal(bus.listeners("nobody"), 0);
});

Deno.test("NoticeBus forgets a topic once nobody listens, and publishing to none is a no-op", () => {
  const bus = new NoticeBus();
  const stop = bus.listen("t", () => {});
  stop();
  assert.equal(bus.listeners("t"), 0);
  bus.publish("t");
  bus.publish("never");
});
