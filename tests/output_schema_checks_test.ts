/** The checks tests/output_schemas_test.ts applies to every result can fail: each on its case. */

import assert from "node:assert/strict";
import { guidanceProblems, outputValidators, untrustedProblems } from "./support/output_schema.ts";
import { SENTINEL } from "./support/tool_walk.ts";

Deno.test("the walk's checks catch an undeclared field, a missing or late notice and a lost note", () => {
  const schema = {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: {
      untrusted: { type: "object", properties: { nonce: { type: "string" } } },
      items: {
        type: "array",
        items: {
          type: "object",
          properties: { body: { type: "string" } },
          additionalProperties: false,
        },
      },
      has_more: { type: "boolean" },
      notes: { type: "array", items: { type: "string" } },
    },
    additionalProperties: false,
  };
  const validate = outputValidators([{ name: "t", outputSchema: schema }]).get("t")!;
  assert.deepEqual(validate({ items: [{ body: "x" }] }), []);
  const extra = validate({ items: [{ body: "x", notice: "n" }] });
  assert.match(extra[0], /^Ajv: data\/items\/0 must NOT have additional properties/);
  assert.equal(extra[1], "$.items[0].notice is not declared");
  const held = { items: [{ body: `a ${SENTINEL}` }] };
  assert.match(untrustedProblems("", held, schema, SENTINEL)[0], /items\[\]\.body without/);
  const notice = { notice: "⚠ UNTRUSTED DATA n1: …", nonce: "n1", fields: ["items[].body"] };
  assert.deepEqual(
    untrustedProblems("END OF SAVED DATA n1", { untrusted: notice, ...held }, schema, SENTINEL),
    [],
  );
  assert.deepEqual(untrustedProblems("", { ...held, untrusted: notice }, schema, SENTINEL), [
    "untrusted is key 1, not the first",
  ]);
  const wrong = { ...notice, fields: ["items[].title"] };
  assert.deepEqual(
    untrustedProblems("END OF SAVED DATA n2", { untrusted: wrong, ...held }, schema, SENTINEL),
    [
      "others' text at items[].body, not in untrusted.fields",
      "untrusted.fields names items[].title, not in the schema",
      "text ends data with nonce n2, notice has n1",
    ],
  );
  assert.deepEqual(guidanceProblems("⚠ Showing 1 of 2\nNote: pass x", { has_more: true }), [
    'the text\'s "⚠ Showing 1 of 2" is not in the structured content',
    'the text\'s "Note: pass x" is not in the structured content',
    "a cut list without notes saying how to see the rest",
  ]);
  assert.deepEqual(guidanceProblems("Note: pass x", { has_more: true, notes: ["pass x"] }), []);
});
