import assert from "node:assert/strict";
import type { FocusState, Task } from "./store_keys.ts";
import { renderState } from "./render.ts";

const at = "2026-11-30T00:00:00.000Z";

function task(kind: Task["kind"], body: string): Task {
  return {
    id: body,
    projectId: "p",
    body,
    kind,
    demoted: kind !== "main",
    status: "open",
    createdAt: at,
  };
}

Deno.test("renderState() writes the fixed format with why and follow-ups", () => {
  const state: FocusState = {
    projectId: "p",
    project: { id: "p", northStar: "Ship v1", openFollowUps: 2, createdAt: at, updatedAt: at },
    focus: { statement: "Write the store", why: "all depends on it", updatedAt: at },
    followUps: [task("cleanup", "Rename vars"), task("record", "Note schema")],
  };
  assert.equal(
    renderState(state),
    "🎯 NORTH STAR: Ship v1\n" +
      "▶ 本丸（今やる1つ）: Write the store（理由: all depends on it）\n" +
      "— 以下は後処理（北極星達成後・今は着手しない）—\n" +
      "  [cleanup] Rename vars\n" +
      "  [record] Note schema",
  );
});

Deno.test("renderState() shows 未設定 and なし for an empty project", () => {
  assert.equal(
    renderState({ projectId: "p", project: null, focus: null, followUps: [] }),
    "🎯 NORTH STAR: (未設定)\n" +
      "▶ 本丸（今やる1つ）: (未設定)\n" +
      "— 以下は後処理（北極星達成後・今は着手しない）—\n" +
      "  （なし）",
  );
});

Deno.test("renderState() leaves out the reason when why is absent or empty", () => {
  const base = { projectId: "p", project: null, followUps: [] };
  for (const why of [undefined, ""]) {
    const text = renderState({ ...base, focus: { statement: "Do it", why, updatedAt: at } });
    assert.equal(text.split("\n")[1], "▶ 本丸（今やる1つ）: Do it");
  }
});
