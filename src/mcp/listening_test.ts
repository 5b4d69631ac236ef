import assert from "node:assert/strict";
import { AppError } from "../kit/errors.ts";
import { DEFAULT_NOTICE_SETTINGS } from "../kit/notice_settings.ts";
import { NoticeBus, RESOURCE_LIST_CHANGED, type UriTopics } from "../kit/notices.ts";
import { Listening, refusalOf, StdioListens } from "./listening.ts";
import type { JSONRPCMessage, ServerEvent } from "./sdk.ts";

const TOPICS: UriTopics = {
  templates: ["test://{n}"],
  topicOf: (uri, caller) => uri.startsWith("test://") ? `${uri}#${caller.name}` : undefined,
};
const ANN = { name: "ann", via: "local" as const };
const STAMP = "00000000000000010000";

/** A macrotask later: when `Listening` delivers. */
const later = () => new Promise((resolve) => setTimeout(resolve, 1));

function listening(settings = {}) {
  const bus = new NoticeBus({ ...DEFAULT_NOTICE_SETTINGS, ...settings });
  const l = new Listening(bus, [TOPICS]);
  const told: ServerEvent[] = [];
  l.deliverTo((e) => told.push(e));
  return { bus, l, told };
}

Deno.test("Listening holds a URI once however many subscriptions name it, and tells it once", async () => {
  const { bus, l, told } = listening();
  l.add("a", ["test://1", "test://1"], ANN);
  l.add("b", ["test://1", "test://2"], ANN, { lists: true });
  assert.equal(bus.listeners(), 3, "test://1, test://2 and the list changes");
  assert.equal(l.size, 2);
  bus.committed(["test://1#ann", "test://2#ann"], STAMP);
  bus.committed(["test://1#ann"], STAMP);
  bus.publish(RESOURCE_LIST_CHANGED);
  assert.deepEqual(told, [], "delivery waits a macrotask (the writer's answer goes first)");
  await later();
  assert.deepEqual(told, [
    { kind: "resource_updated", uri: "test://1" },
    { kind: "resource_updated", uri: "test://2" },
    { kind: "resources_list_changed" },
  ]);
  l.remove("b");
  assert.equal(bus.listeners(), 1, "test://1 is still a's");
  bus.committed(["test://1#ann"], STAMP);
  l.remove("a", ["test://1"]);
  await later();
  assert.equal(told.length, 3, "a URI let go of before delivery is not told");
  assert.equal(bus.listeners(), 0);
});

Deno.test("Listening refuses in one place and one shape, all or nothing, naming the setting", () => {
  const { bus, l } = listening({ urisMax: 2, listenersMax: 4 });
  l.add("a", ["test://1"], ANN);
  // One limit for everything one connection holds, checked once, whichever call adds it.
  for (const asked of [["test://2", "test://3"], ["test://1", "test://2", "test://3"]]) {
    assert.throws(
      () => l.add("b", asked, ANN),
      (e: unknown) =>
        e instanceof AppError && e.kind === "full" &&
        /At most 2 resources can be listened to at once \(NOTICE_URIS_MAX\), got 3/.test(e.message),
    );
  }
  assert.throws(
    () => l.add("b", ["other://x"], ANN),
    (e: unknown) =>
      e instanceof AppError && e.kind === "invalid" &&
      /Cannot listen to other:\/\/x: the resources that tell of changes are test:\/\/\{n\}/.test(
        e.message,
      ),
  );
  bus.listen("x", () => {});
  bus.listen("y", () => {});
  assert.throws(() => l.add("b", ["test://2"], ANN, { lists: true }), /NOTICE_LISTENERS_MAX/);
  assert.equal(bus.listeners(), 3, "a refused call leaves no listener behind");
  assert.equal(l.size, 1);

  const full = refusalOf(7, new AppError("full", "too many (NOTICE_URIS_MAX)"));
  assert.deepEqual(full, {
    jsonrpc: "2.0",
    id: 7,
    error: { code: -32603, message: "too many (NOTICE_URIS_MAX)" },
  });
  assert.equal(refusalOf(null, new AppError("invalid", "no")).error.code, -32602);
  assert.equal(refusalOf(1, new Error("secret detail")).error.message, "The subscription failed");

  l.close();
  assert.equal(bus.listeners(), 2, "closing lets go of everything");
  assert.throws(() => l.add("a", ["test://1"], ANN), /closed/);
});

Deno.test("Listening: a change pending when it closes is never told", async () => {
  const { bus, l, told } = listening();
  l.add("a", ["test://1"], ANN);
  bus.committed(["test://1#ann"], STAMP);
  l.close();
  await later();
  assert.deepEqual(told, []);
});

Deno.test("StdioListens holds a 2026 listen's URIs until it is cancelled or answered, and refuses in the one shape", () => {
  const { bus, l } = listening();
  const listens = new StdioListens(l, ANN);
  const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" };
  const listen = (id: number | string, uris: string[]) =>
    ({
      jsonrpc: "2.0",
      id,
      method: "subscriptions/listen",
      params: { _meta: meta, notifications: { resourceSubscriptions: uris } },
    }) as JSONRPCMessage;
  assert.equal(listens.inbound(listen(1, ["test://1", "test://2"])), undefined);
  assert.equal(listens.inbound(listen("1", ["test://2"])), undefined, "a string id is another");
  assert.equal(bus.listeners(), 2);
  assert.deepEqual(listens.inbound(listen(2, ["other://x"])), {
    jsonrpc: "2.0",
    id: 2,
    error: {
      code: -32602,
      message: "Cannot listen to other://x: the resources that tell of changes are test://{n}",
    },
  });
  const noEnvelope = { ...listen(3, ["test://3"]), params: {} } as JSONRPCMessage;
  assert.equal(listens.isListen(noEnvelope), false, "a 2025 message is the SDK's to refuse");
  listens.inbound({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: 1 },
  } as JSONRPCMessage);
  assert.equal(bus.listeners(), 1, "test://2 is still the string id's");
  listens.outbound({ jsonrpc: "2.0", id: "1", result: {} } as JSONRPCMessage);
  assert.equal(bus.listeners(), 0, "an answer ends a listen");
  listens.inbound(listen(4, ["test://1"]));
  listens.close();
  assert.equal(bus.listeners(), 0);
});

Deno.test("Listening.flush tells what is due now, and the macrotask then tells nothing twice", async () => {
  const { bus, l, told } = listening();
  l.add("a", ["test://1"], ANN);
  bus.committed(["test://1#ann"], STAMP);
  l.flush();
  assert.deepEqual(told, [{ kind: "resource_updated", uri: "test://1" }]);
  await later();
  assert.equal(told.length, 1);
  l.close();
});

Deno.test("Listening: an empty URI is refused even while resource-list changes are held", () => {
  const { bus, l } = listening();
  l.add("connection", [], ANN, { lists: true });
  assert.throws(() => l.add("subscribed", [""], ANN), /Cannot listen to : the resources/);
  l.remove("subscribed", [""]);
  assert.equal(bus.listeners(RESOURCE_LIST_CHANGED), 1, "the list changes are still held");
  l.close();
});
