/** The shapes a tool handler returns: text for the model, with data beside it, or an error. */

/** One block of text, the part of a result every client shows the model. */
export interface TextResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
}

/** A result whose content is one text block. */
export function textResult(text: string): TextResult {
  return { content: [{ type: "text", text }] };
}

/** A text result with `data` as its `structuredContent` (matching the tool's `outputSchema`). */
export function structuredResult<T extends Record<string, unknown>>(
  text: string,
  data: T,
): TextResult & { structuredContent: T } {
  return { ...textResult(text), structuredContent: data };
}

/** A result the client reads as a failure (`isError: true`), for refusals that are not thrown. */
export function errorResult(text: string): TextResult & { isError: true } {
  return { ...textResult(text), isError: true };
}
