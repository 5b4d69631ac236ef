/** The limits and the poll interval of the notice feed (`notices.ts`), read once at start. */

import { type EnvSource, intVar } from "./env.ts";

/** How the notice bus is bounded, and how often a local KV file is polled for other writers. */
export interface NoticeSettings {
  /** `NOTICE_POLL_MS`: how often watched topics are read while anyone listens (local file). */
  pollMs: number;
  /** `NOTICE_LISTENERS_MAX`: listeners one process holds at most, over every topic. */
  listenersMax: number;
  /** `NOTICE_TOPICS_MAX`: distinct topics one process watches at most (KV keys polled). */
  topicsMax: number;
  /** `NOTICE_URIS_MAX`: URIs one connection or listen stream listens to at most. */
  urisMax: number;
  /** `NOTICE_STREAMS_MAX`: 2026 `subscriptions/listen` streams over HTTP one process holds at most. */
  streamsMax: number;
}

/** The environment variable of each setting, as errors name it. */
export const NOTICE_SETTING_OF = {
  pollMs: "NOTICE_POLL_MS",
  listenersMax: "NOTICE_LISTENERS_MAX",
  topicsMax: "NOTICE_TOPICS_MAX",
  urisMax: "NOTICE_URIS_MAX",
  streamsMax: "NOTICE_STREAMS_MAX",
} as const;

/** The defaults: a 100 ms poll, 1,000 listeners, 500 topics, 100 URIs and 200 streams. */
export const DEFAULT_NOTICE_SETTINGS: NoticeSettings = {
  pollMs: 100,
  listenersMax: 1000,
  topicsMax: 500,
  urisMax: 100,
  streamsMax: 200,
};

/** Reads the notice settings; throws naming the bad variable and what it allows. */
export function loadNoticeSettings(env: EnvSource): NoticeSettings {
  const d = DEFAULT_NOTICE_SETTINGS;
  const s = NOTICE_SETTING_OF;
  return {
    pollMs: intVar(env, s.pollMs, d.pollMs, 10, 10_000),
    listenersMax: intVar(env, s.listenersMax, d.listenersMax, 1, 100_000),
    topicsMax: intVar(env, s.topicsMax, d.topicsMax, 1, 10_000),
    urisMax: intVar(env, s.urisMax, d.urisMax, 1, 10_000),
    streamsMax: intVar(env, s.streamsMax, d.streamsMax, 1, 10_000),
  };
}
