/** Fixtures for the handoff tools' tests: valid arguments. */

/** A valid handoff_save argument. */
export const SAVE = {
  key: "design",
  summary: "We designed the chunked store",
  conversation: "## User\nhow?\n\n## Assistant\nchunks under a manifest\n",
  from_ai: "Claude Desktop",
  tags: ["kv"],
};
