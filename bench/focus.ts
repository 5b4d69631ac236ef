/** get_state latency with 0, 1,000 and 10,000 finished tasks, and a bare ping, over HTTP. */

export function benchFocus(): Promise<Record<string, unknown>> {
  return Promise.resolve({ todo: true });
}
