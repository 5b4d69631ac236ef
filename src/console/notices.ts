/**
 * The console's success notices: a fixed set of sentences the server chose, named in the
 * redirect after a write (`?done=resolved`). The URL carries only the name, never the text, so a
 * link someone else made cannot put words in the console's green notice; an unknown name shows
 * nothing.
 */

/** Every notice the console can show after a write, by the name its redirect carries. */
export const DONE_NOTICES = {
  approved: "Decision approved: recorded as decided by a person, in the owner console.",
  rejected: "Decision rejected: recorded as decided by a person, in the owner console.",
  accepted: "Accepted: the task is now yours and in progress.",
  handed_on: "Handed on: this is the new handoff.",
  posted: "Posted: your message is the last one on this page.",
  revoked: "Revoked: that app's tokens no longer work.",
} as const;

/** The name of one of the console's notices. */
export type DoneNotice = keyof typeof DONE_NOTICES;

/** `path` with `?done=<name>` added before its anchor. */
export function doneAt(path: string, name: DoneNotice): string {
  const [base, anchor] = path.split("#");
  const join = base.includes("?") ? "&" : "?";
  return `${base}${join}done=${name}${anchor ? `#${anchor}` : ""}`;
}

/** The sentence `url`'s `done` names, or `undefined` when it names none of them. */
export function doneNotice(url: URL): string | undefined {
  const name = url.searchParams.get("done");
  return name !== null && Object.hasOwn(DONE_NOTICES, name)
    ? DONE_NOTICES[name as DoneNotice]
    : undefined;
}
