import assert from "node:assert/strict";
import { AppError } from "../kit/errors.ts";
import { DEFAULT_NOTICE_SETTINGS } from "../kit/notice_settings.ts";
import { NoticeBus, type UriTopics } from "../kit/notices.ts";
import { refusalOf, StdioListens } from "./listening.ts";
import { Listening } from "../kit/notice_listening.ts";
import type { JSONRPCMessage } from "./sdk.ts";

const TOPICS: UriTopics = {
  templates: ["test://{n}"],
  topicOf: (uri, caller) => uri.startsWith("test://") ? `${uri}#${caller.name}` : undefined,
};
const ANN = { name: "ann", via: "local" as const };

function listening() {
  const bus = new NoticeBus(DEFAULT_NOTICE_SETTINGS);
  return { bus, l: new Listening(bus, [TOPICS]) };
}

Deno.test("refusalOf: invalid params for a URI, the SDK's limit code for a limit, our message", () => {
  const full = refusalOf(7, new AppError("full", "too many (NOTICE_URIS_MAX)"));
  assert.deepEqual(full, {
    jsonrpc: "2.0",
    id: 7,
    error: { code: -32603, message: "too many (NOTICE_URIS_MAX)" },
  });
  assert.equal(refusalOf(null, new AppError("invalid", "no")).error.code, -32602);
  assert.equal(refusalOf(1, new Error("secret detail")).error.message, "The subscription failed");
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
