/**
 * Tool annotations, said once. Every tool here keeps state in KV and touches nothing outside
 * this server, so none is open-world; only the reading tools are read-only.
 */

/**
 * Annotations of a tool that only reads: safe to call any number of times. Every hint is said
 * outright (directories ask for an explicit `destructiveHint`, though it means nothing here).
 */
export const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** Annotations of a tool that writes: whether it can destroy data, and whether repeating it is harmless. */
export function writes(hints: { destructive: boolean; idempotent: boolean }) {
  return {
    readOnlyHint: false,
    destructiveHint: hints.destructive,
    idempotentHint: hints.idempotent,
    openWorldHint: false,
  };
}
