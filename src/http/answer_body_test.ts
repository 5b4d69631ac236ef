import assert from "node:assert/strict";
import { AnswerBodies } from "./answer_body.ts";

const LARGE = '後処理 — follow-up: "tidy" the notes\n\t\u2028 '.repeat(300);

function frozen<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) frozen(inner);
    Object.freeze(value);
  }
  return value;
}

/** What `body` wrote, as text. */
function written(body: string | Uint8Array): string {
  return typeof body === "string" ? body : new TextDecoder().decode(body);
}

Deno.test("AnswerBodies.body() writes exactly the JSON of the answers, frozen or not", () => {
  const answers = new AnswerBodies();
  const shared = frozen({ content: [{ type: "text", text: LARGE }] });
  const cases: unknown[][] = [
    [{ result: shared, jsonrpc: "2.0", id: 1 }],
    [{ result: shared, jsonrpc: "2.0", id: 'ü-"quoted"' }],
    [{ result: frozen({ content: [{ type: "text", text: "small" }] }), jsonrpc: "2.0", id: 2 }],
    [{ result: { content: [{ type: "text", text: LARGE }] }, jsonrpc: "2.0", id: 3 }],
    [{ jsonrpc: "2.0", id: 4, result: shared }],
    [{ result: shared, jsonrpc: "2.0", id: 5 }, { result: shared, jsonrpc: "2.0", id: 6 }],
    [{ jsonrpc: "2.0", id: 7, error: { code: -32601, message: "Method not found" } }],
  ];
  for (let round = 0; round < 2; round++) {
    for (const responses of cases) {
      const expected = JSON.stringify(responses.length === 1 ? responses[0] : responses);
      const prepared = responses.map((r) => answers.prepare(r));
      assert.equal(written(answers.body(prepared)), expected);
    }
  }
});

Deno.test("AnswerBodies keeps the bytes of a large frozen result and copies them into each answer", () => {
  const answers = new AnswerBodies();
  const result = frozen({ content: [{ type: "text", text: LARGE }] });
  const first = answers.body([{ result, jsonrpc: "2.0", id: 1 }]);
  const second = answers.body([{ result, jsonrpc: "2.0", id: 2 }]);
  assert.ok(first instanceof Uint8Array && second instanceof Uint8Array, "bytes, not a string");
  assert.equal(JSON.parse(written(second)).id, 2);
  // A result that is not frozen may change between answers, so it is written anew each time.
  const open = { content: [{ type: "text", text: LARGE }] };
  assert.equal(typeof answers.body([{ result: open, jsonrpc: "2.0", id: 3 }]), "string");
  open.content[0].text = "changed";
  assert.equal(
    written(answers.body([answers.prepare({ result: open, jsonrpc: "2.0", id: 4 })])),
    JSON.stringify({ result: open, jsonrpc: "2.0", id: 4 }),
  );
});
