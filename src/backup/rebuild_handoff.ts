/**
 * The handoff toolset's derived data recomputed from its records (see rebuild.ts): the number of
 * handoffs and the time index (`order` → key) that lists them newest first.
 */

import { listEntries } from "../kit/reads.ts";
import {
  type Handoff,
  handoffCountKey,
  handoffPrefix,
  handoffTimeKey,
  handoffTimePrefix,
} from "../handoff/store_schema.ts";
import type { DerivedPlan, Rebuilder } from "./rebuild_types.ts";

/** The handoff toolset's rebuilder. */
export const handoffRebuilder: Rebuilder = {
  name: "handoff",
  async plan(kv) {
    const entries: DerivedPlan["entries"] = [];
    let count = 0;
    for await (const { value: h } of listEntries<Handoff>(kv, { prefix: handoffPrefix() })) {
      count++;
      entries.push({ key: handoffTimeKey(h.order), value: h.key });
    }
    entries.push({ key: handoffCountKey(), value: count });
    return {
      // No count key means none: a database without handoffs is left without one.
      owned: [{ prefix: handoffTimePrefix() }, {
        prefix: handoffCountKey(),
        absent: (v) => v === 0,
      }],
      entries,
    };
  },
};
