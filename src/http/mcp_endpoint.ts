/**
 * `/mcp`: both MCP eras on one URL, routed once by `mcp_route.ts`, which splits the eras as the
 * SDK's own `createMcpHandler` does. A 2026-07-28 request goes to the SDK's `createMcpHandler`
 * (strict, `legacy: 'reject'`), which serves it under that revision (header checks, `resultType`,
 * cache hints, `server/discover`) from the body read and parsed once here (`readRpcBody`). A 2025
 * request (an `initialize`, a 2025 client's calls) is served statelessly by the SDK's
 * `WebStandardStreamableHTTPServerTransport` made for the one request, as `createMcpHandler`'s
 * own stateless fallback does, except that the answer is plain JSON unless a request asks for
 * progress (the fallback always opens an event stream). Each request gets a server of its own
 * holding only what the router says it needs (`McpApp.buildServer`).
 */

import type { McpApp, RequestNeeds, Toolset } from "../mcp/server.ts";
import {
  type AuthInfo,
  createMcpHandler,
  type McpHttpHandler,
  WebStandardStreamableHTTPServerTransport,
} from "../mcp/sdk.ts";
import { readRpcBody, routeOf } from "./mcp_route.ts";
import { type ListenOptions, ListenStreams } from "./listen_streams.ts";

/** The `/mcp` endpoint of one process. */
export class McpEndpoint {
  readonly #app: McpApp;
  readonly #maxBytes: number;
  #sdk: McpHttpHandler | undefined;
  /** What each 2026 request's server must hold, for the factory. */
  readonly #routed = new WeakMap<Request, { toolsets: readonly Toolset[]; needs: RequestNeeds }>();
  readonly #listens: ListenStreams;

  constructor(app: McpApp, options: ListenOptions) {
    this.#app = app;
    this.#maxBytes = options.maxRequestBytes;
    this.#listens = new ListenStreams(app, options);
  }

  /** Answers one POST to `/mcp` for a client that chose `toolsets`. */
  async post(req: Request, toolsets: readonly Toolset[], authInfo?: AuthInfo): Promise<Response> {
    const body = await readRpcBody(req, this.#maxBytes);
    if (body instanceof Response) return body;
    const { parsed } = body;
    const route = routeOf(req, parsed);
    // The SDK's client cancels a listen without the 2026 envelope: whichever era it reads as,
    // it may end a listen stream of this caller.
    if (route.cancels) this.#listens.cancel(parsed, authInfo);
    switch (route.kind) {
      case "refused":
        return route.response;
      case "legacy":
        return await this.#legacy(req, parsed, toolsets, route, authInfo);
      case "each":
        return await this.#each(req, route.parts, toolsets, authInfo);
      case "listen":
        return await this.#listens.serve(req, parsed, toolsets, authInfo);
      case "modern":
        this.#routed.set(req, { toolsets, needs: route.needs });
        return await this.#handler().fetch(req, { authInfo, parsedBody: parsed });
    }
  }

  /** A 2025-era POST, on a server holding `needs` and an SDK transport made for it alone. */
  async #legacy(
    req: Request,
    parsed: unknown,
    toolsets: readonly Toolset[],
    { needs, stream }: { needs: RequestNeeds; stream: boolean },
    authInfo?: AuthInfo,
  ): Promise<Response> {
    const server = this.#app.buildServer(toolsets, needs);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !stream,
    });
    await server.connect(transport);
    const response = await transport.handleRequest(req, { authInfo, parsedBody: parsed });
    // A JSON answer is complete; a stream ends when its last answer is written.
    if (!stream || response.body === null) await server.close();
    return response;
  }

  /**
   * A 2025-03-26 batch that repeats a request id, answered message by message: the SDK's
   * transport keys its answers by id, so it would answer such a batch with one of them. Each
   * request gets its answer, in order, as plain JSON (progress is not streamed here).
   */
  async #each(
    req: Request,
    parts: { message: unknown; needs: RequestNeeds }[],
    toolsets: readonly Toolset[],
    authInfo?: AuthInfo,
  ): Promise<Response> {
    // Each message goes to the SDK parsed (`parsedBody`), so the request is shared: the SDK
    // reads only its URL and headers.
    const answers = await Promise.all(parts.map(async ({ message, needs }) => {
      const response = await this.#legacy(
        req,
        message,
        toolsets,
        { needs, stream: false },
        authInfo,
      );
      if (response.status === 202 || response.body === null) {
        await response.body?.cancel();
        return undefined;
      }
      return await response.json();
    }));
    const answered = answers.filter((a) => a !== undefined);
    if (answered.length === 0) return new Response(null, { status: 202 });
    return Response.json(answered);
  }

  /**
   * Ends the 2026-07-28 exchanges and listen streams still open (2025 ones hold nothing between
   * requests).
   */
  async close(): Promise<void> {
    const sdk = this.#sdk;
    this.#sdk = undefined;
    await Promise.all([this.#listens.close(), sdk?.close()]);
  }

  /**
   * The SDK's handler, made on first use (and again for a request already in flight when `close`
   * ran): one for every toolset choice, as the factory builds each request's server from what
   * `post` recorded for it.
   */
  #handler(): McpHttpHandler {
    return this.#sdk ??= createMcpHandler((ctx) => {
      // Every request reaches the SDK routed (`post`), and the SDK hands the factory that request.
      const routed = ctx.requestInfo && this.#routed.get(ctx.requestInfo);
      if (!routed) throw new Error("handoff-mcp: a 2026 request reached the SDK unrouted");
      return this.#app.buildServer(routed.toolsets, routed.needs);
    }, { legacy: "reject", maxRequestBodySize: this.#maxBytes });
  }
}
