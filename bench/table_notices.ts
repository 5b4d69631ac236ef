/**
 * The notice feed's delay: from a post's acknowledgement to a listener's notice, on one KV file,
 * for a listener in the posting process (told by `committed`) and in another process (the poll,
 * `NOTICE_POLL_MS`). The listener's bus lives in this bench process; "another process" posts
 * go through the server process (`main.ts`) over Streamable HTTP.
 */

import type { Client } from "../src/client/sdk_client.ts";
import { DEFAULT_NOTICE_SETTINGS } from "../src/kit/notice_settings.ts";
import { NoticeBus } from "../src/kit/notices.ts";
import { loadTableSettings } from "../src/table/settings.ts";
import { tableCtx } from "../src/table/store_common.ts";
import { createDiscussion, postMessage } from "../src/table/store_discussions.ts";
import { discussionTopic } from "../src/table/store_notices.ts";
import { percentile, round } from "./lib.ts";

const POSTS = 60;

type McpClient = InstanceType<typeof Client>;

/**
 * p50/p99 of delays from an acknowledgement to a notice, in ms; a notice written before the
 * acknowledgement (told by the commit itself) counts as 0.
 */
export function delays(samples: number[]) {
  const clamped = samples.map((d) => Math.max(0, d));
  return {
    notices: samples.length,
    p50_ms: round(percentile(clamped, 0.5)),
    p99_ms: round(percentile(clamped, 0.99)),
    before_ack: samples.filter((d) => d <= 0).length,
  };
}

/** Posts `POSTS` times with `post`, each after a random pause, and times each notice. */
async function timed(bus: NoticeBus, topic: string, post: (n: number) => Promise<unknown>) {
  let noticed: PromiseWithResolvers<number> = Promise.withResolvers();
  const stop = bus.listen(topic, () => noticed.resolve(performance.now()));
  await bus.ready();
  const samples: number[] = [];
  try {
    for (let n = 0; n < POSTS; n++) {
      // A pause off the poll's rhythm, so posts land anywhere within an interval.
      await new Promise((r) => setTimeout(r, Math.random() * 40));
      noticed = Promise.withResolvers();
      await post(n);
      const acked = performance.now();
      const at = await Promise.race([
        noticed.promise,
        new Promise<number>((r) => setTimeout(() => r(NaN), 5000)),
      ]);
      if (Number.isNaN(at)) throw new Error(`post ${n}: no notice within 5 s`);
      samples.push(at - acked);
    }
  } finally {
    stop();
  }
  return delays(samples);
}

/** The delays, same process and another process, on the KV file at `kvPath`. */
export async function noticeDelays(kvPath: string, poster: McpClient) {
  const kv = await Deno.openKv(kvPath);
  const bus = new NoticeBus();
  bus.connect(kv, "poll", DEFAULT_NOTICE_SETTINGS);
  const ctx = tableCtx(kv, loadTableSettings(new Map()), bus);
  const me = { name: "bench-notices", via: "local" as const };
  try {
    const { discussion } = await createDiscussion(ctx, me, { title: "notices", workspace: "n" });
    const topic = discussionTopic(discussion.id);
    const same = await timed(
      bus,
      topic,
      (n) => postMessage(ctx, me, { discussion_id: discussion.id, body: `same ${n}` }),
    );
    const other = await timed(bus, topic, async (n) => {
      const r = await poster.callTool({
        name: "post_message",
        arguments: { discussion_id: discussion.id, body: `other ${n}` },
      });
      if (r.isError) throw new Error(`post_message failed: ${JSON.stringify(r.content)}`);
    });
    return { poll_ms: DEFAULT_NOTICE_SETTINGS.pollMs, same_process: same, other_process: other };
  } finally {
    bus.close();
    kv.close();
  }
}
