/**
 * The listeners of the `live` bench, in a process of their own so their work never counts in
 * the poster's timings: SDK v2 clients pinned to 2026-07-28, each on one server URL, each able to
 * open a `subscriptions/listen` stream on one URI. Driven by one JSON command per stdin line,
 * answered by one JSON line on stdout:
 *
 * - `{"connect": {"urls": [...], "per_url": 50}}` → `{"connected": n}`
 * - `{"listen": "<uri>"}` → `{"listening": n}` once every stream is acknowledged
 * - `{"wait": n}` → `{"notices": [[url_index, at_ms], …]}` once `n` notices arrived (5 s at most)
 * - `{"unlisten": true}` → `{"listening": 0}`
 * - `{"close": true}` → `{"closed": true}`, then the process exits
 *
 * `at_ms` is `performance.timeOrigin + performance.now()`: the same clock as the coordinator's.
 */

import { ClientV2, StreamableHTTPClientTransportV2 } from "../src/client/sdk_client_v2.ts";

type Client = InstanceType<typeof ClientV2>;
type Subscription = Awaited<ReturnType<Client["listen"]>>;

const listeners: { client: Client; url: number }[] = [];
let subscriptions: Subscription[] = [];
let notices: [number, number][] = [];

const now = () => performance.timeOrigin + performance.now();
const reply = (value: unknown) => console.log(JSON.stringify(value));

async function connect(urls: string[], perUrl: number) {
  for (const [url, base] of urls.entries()) {
    for (let i = 0; i < perUrl; i++) {
      const client = new ClientV2({ name: `listener-${url}-${i}`, version: "1" }, {
        versionNegotiation: { mode: { pin: "2026-07-28" } },
      });
      await client.connect(
        new StreamableHTTPClientTransportV2(new URL(base), {
          requestInit: { headers: { "x-client-name": `listener-${url}-${i}` } },
        }),
      );
      client.setNotificationHandler("notifications/resources/updated", () => {
        notices.push([url, now()]);
      });
      listeners.push({ client, url });
    }
  }
  return { connected: listeners.length };
}

async function wait(n: number) {
  for (let i = 0; i < 500 && notices.length < n; i++) await new Promise((r) => setTimeout(r, 10));
  const got = notices;
  notices = [];
  return { notices: got };
}

for await (const line of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  for (const text of line.split("\n").filter((l) => l.trim() !== "")) {
    const command = JSON.parse(text);
    if (command.connect) reply(await connect(command.connect.urls, command.connect.per_url));
    else if (command.listen) {
      subscriptions = await Promise.all(
        listeners.map((l) => l.client.listen({ resourceSubscriptions: [command.listen] })),
      );
      notices = [];
      reply({ listening: subscriptions.length });
    } else if (command.wait !== undefined) reply(await wait(command.wait));
    else if (command.unlisten) {
      await Promise.all(subscriptions.map((s) => s.close()));
      subscriptions = [];
      reply({ listening: 0 });
    } else if (command.close) {
      await Promise.all(listeners.map((l) => l.client.close().catch(() => {})));
      reply({ closed: true });
      Deno.exit(0);
    }
  }
}
