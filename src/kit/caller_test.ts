import assert from "node:assert/strict";
import { CLIENT_NAME_MAX_CHARS, clientNameProblem } from "./caller.ts";

Deno.test("clientNameProblem() accepts one line of at most 140 characters, counted as code points", () => {
  assert.equal(clientNameProblem("codex", "X"), undefined);
  assert.equal(clientNameProblem("openai/codex 2", "X"), undefined);
  assert.equal(clientNameProblem("😀".repeat(CLIENT_NAME_MAX_CHARS), "X"), undefined);
  assert.equal(clientNameProblem("a".repeat(140), "X"), undefined);
  assert.match(clientNameProblem("a".repeat(141), "X")!, /X is 141 characters; at most 140/);
});

Deno.test("clientNameProblem() refuses blank, multi-line, control characters and lone surrogates", () => {
  assert.match(clientNameProblem("", "CLIENT_NAME")!, /CLIENT_NAME is blank/);
  assert.match(clientNameProblem("   ", "X")!, /blank/);
  assert.match(clientNameProblem("a\nb", "X")!, /one line/);
  assert.match(clientNameProblem("a\u2028b", "X")!, /one line/);
  assert.match(clientNameProblem("a\tb", "X")!, /control/);
  assert.match(clientNameProblem("a\ud800", "X")!, /well-formed/);
});

Deno.test("clientNameProblem() refuses invisible and direction-control characters, naming one", () => {
  assert.match(
    clientNameProblem("bob\u200B", "X-Client-Name")!,
    /^X-Client-Name holds U\+200B, an invisible or direction-control character/,
  );
  assert.match(clientNameProblem("\u202EedualC", "CLIENT_NAME")!, /CLIENT_NAME holds U\+202E/);
  assert.match(clientNameProblem("\uFEFFowner", "OWNER_NAME")!, /U\+FEFF/);
});
