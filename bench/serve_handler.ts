/**
 * What the bench's yardstick servers (the SDK's minimal server, the FTS5 search server) share:
 * serve one MCP handler at `path` on a free loopback port and print the `listening on` line
 * `bench/process.ts` waits for.
 */

/** Serves `handler` at `path`; anything else is 404. */
export function serveHandler(
  path: string,
  handler: { fetch(req: Request): Promise<Response> },
): void {
  Deno.serve(
    {
      hostname: "127.0.0.1",
      port: 0,
      onListen: ({ hostname, port }) => console.log(`listening on http://${hostname}:${port}`),
    },
    (req) =>
      new URL(req.url).pathname === path
        ? handler.fetch(req)
        : Promise.resolve(new Response("Not found", { status: 404 })),
  );
}
