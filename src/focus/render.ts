/** The fixed `get_state` text format. It lives here and nowhere else. */

import type { FocusState } from "./store_keys.ts";

/** Shown where a north star or focus has not been set. */
export const UNSET = "(未設定)";
/** The line that separates the focus from what must wait. */
export const DEMOTED_HEADER = "— 以下は後処理（北極星達成後・今は着手しない）—";

/** Renders a project's state in the fixed format a new chat reads first. */
export function renderState(state: FocusState): string {
  const northStar = state.project?.northStar ?? UNSET;
  const focus = state.focus
    ? state.focus.statement + (state.focus.why ? `（理由: ${state.focus.why}）` : "")
    : UNSET;
  const followUps = state.followUps.length === 0
    ? ["  （なし）"]
    : state.followUps.map((task) => `  [${task.kind}] ${task.body}`);
  return [
    `🎯 NORTH STAR: ${northStar}`,
    `▶ 本丸（今やる1つ）: ${focus}`,
    DEMOTED_HEADER,
    ...followUps,
  ].join("\n");
}
