/**
 * The `/view` pages as HTML, built from records: no script, no external asset, every stored
 * string escaped, stored names and titles direction-isolated (`isolatedHtml`). Pure: the route in
 * `view.ts` reads and authorizes, this only renders.
 */

import { escapeHtml, isolatedHtml as bdi, isolatedText } from "../kit/web.ts";
import { TABLE_CONTRACT } from "./settings.ts";
import type { WorkspaceContext } from "./store_context.ts";
import type { Message } from "./store_discussions.ts";
import { type Author, type Discussion, PROOF_TEXT } from "./store_schema.ts";

/** An ISO time shown as `YYYY-MM-DD HH:MM` in `zone` (the console shows times the same way). */
export function formatTime(iso: string, zone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-CA", {
      timeZone: zone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    }).formatToParts(new Date(iso)).map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

const STYLE = `
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f5f6f8}
header{background:#1d2330;color:#fff;padding:10px 18px;display:flex;gap:14px;align-items:baseline;flex-wrap:wrap}
header h1{font-size:17px;margin:0}header a{color:#cfe0ff}
main{max-width:920px;margin:0 auto;padding:14px 18px 40px}
section{background:#fff;border:1px solid #dde1e8;border-radius:8px;padding:10px 14px;margin:12px 0}
h2{font-size:15px;margin:2px 0 8px}ul{margin:0;padding-left:18px}li{margin:3px 0}
.meta{color:#5b6474;font-size:13px}.via{font-size:12px;background:#eef1f6;border-radius:4px;padding:0 5px}
.kind{font-size:12px;font-weight:600;text-transform:uppercase;color:#3d5a99}
.msg{border-top:1px solid #eceff3;padding:8px 0}.msg:first-child{border-top:0}
pre{white-space:pre-wrap;word-wrap:break-word;font:14px/1.45 ui-monospace,monospace;margin:6px 0 0;background:#fafbfc;padding:8px;border-radius:6px}
.state-stale{color:#a33b00;font-weight:600}.bar{position:sticky;bottom:0;background:#e9ecf1;color:#3b4352;font-size:12px;padding:5px 18px;border-top:1px solid #d5dae2}
.counts span{margin-right:14px}form{display:inline}input{font:inherit;padding:1px 4px}
`;

function page(title: string, zone: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>${body}
<div class="bar">table · contract ${TABLE_CONTRACT} · read-only · times in ${escapeHtml(zone)}</div>
</body></html>`;
}

function author(a: Author): string {
  return `${bdi(a.name)} <span class="via">via ${escapeHtml(a.via)}</span>`;
}

function discussionHref(id: string, ws: string): string {
  return `/view/${encodeURIComponent(id)}?workspace=${encodeURIComponent(ws)}`;
}

/** The workspace page: open items, then discussions by latest activity. */
export function workspacePage(c: WorkspaceContext, zone: string): string {
  const o = c.open_items;
  const t = (iso: string) => escapeHtml(formatTime(iso, zone));
  const ws = c.workspace;
  const items = <T>(list: T[], row: (x: T) => string, none: string) =>
    list.length === 0 ? `<p class="meta">${none}</p>` : `<ul>${list.map(row).join("")}</ul>`;
  const body = `
<header><h1>Table · ${bdi(ws)}</h1>
<form method="get" action="/view"><label class="meta">workspace <input name="workspace" value="${
    escapeHtml(ws)
  }" size="24"></label></form></header>
<main>
<section><h2>Open items</h2>
<div class="counts"><span>Tasks: ${o.tasks.open} open</span><span>${o.tasks.in_progress} in progress</span><span>${o.tasks.blocked} blocked</span><span>Handoffs pending: ${o.handoffs_pending.total}</span><span>Current plans: ${o.plans_current}</span></div>
<p class="meta">Health: ${escapeHtml(o.health.status)}${
    o.health.problems.map((p) => ` · ${escapeHtml(p)}`).join("")
  }</p></section>
<section><h2>Decisions awaiting a person (${o.decisions_awaiting.total})</h2>${
    items(
      o.decisions_awaiting.items,
      (d) =>
        `<li>${bdi(d.title)} <span class="meta">proposed by ${author(d.proposed_by)} · ${
          t(d.created_at)
        } · ${escapeHtml(d.id)}</span></li>`,
      "None.",
    )
  }</section>
<section><h2>Standing rules (${c.standing_rules.length})</h2>${
    items(
      c.standing_rules,
      (d) =>
        `<li>${bdi(d.title)} <span class="meta">approved by ${
          d.decided_by ? author(d.decided_by) : "?"
        } (${escapeHtml(d.decided_via ? PROOF_TEXT[d.decided_via] : "")})</span></li>`,
      "None.",
    )
  }</section>
<section><h2>Latest plan</h2>${
    o.latest_plan
      ? `<p>${bdi(o.latest_plan.title)} <span class="meta">by ${
        author(o.latest_plan.created_by)
      } · ${t(o.latest_plan.created_at)}</span></p>`
      : `<p class="meta">None.</p>`
  }</section>
<section><h2>Handoffs pending (${o.handoffs_pending.total})</h2>${
    items(
      o.handoffs_pending.items,
      (h) =>
        `<li><span class="state-${escapeHtml(h.state)}">${escapeHtml(h.state)}</span> · ${
          bdi(h.task_title ?? h.task_id)
        } → ${bdi(h.to)} <span class="meta">from ${author(h.from)} · ${
          t(h.created_at)
        }</span></li>`,
      "None.",
    )
  }</section>
<section><h2>Discussions (${c.total_discussions}), latest activity first</h2>${
    items(
      c.discussions,
      (d) =>
        `<li><a href="${escapeHtml(discussionHref(d.id, ws))}">${
          bdi(d.title)
        }</a> <span class="meta">${d.latest_seq} message(s) · last ${
          t(d.last_message_at)
        } · opened by ${author(d.created_by)}</span></li>`,
      "No discussions yet.",
    )
  }${
    c.has_more ? `<p class="meta">Only the ${c.discussions.length} most recent are shown.</p>` : ""
  }
</section></main>`;
  return page(`Table · ${isolatedText(ws)}`, zone, body);
}

/** The discussion page: every message by seq with kind, author and how it connected. */
export function discussionPage(d: Discussion, messages: Message[], zone: string): string {
  const t = (iso: string) => escapeHtml(formatTime(iso, zone));
  const rows = messages.map((m) =>
    `<div class="msg" id="seq-${m.seq}"><span class="meta">#${m.seq}</span> <span class="kind">${
      escapeHtml(m.kind)
    }</span> ${author(m.author)} <span class="meta">· ${t(m.created_at)}${
      m.in_reply_to === null ? "" : ` · reply to #${m.in_reply_to}`
    }</span><pre>${escapeHtml(m.body)}</pre></div>`
  ).join("");
  const body = `
<header><h1>${bdi(d.title)}</h1><a href="/view?workspace=${encodeURIComponent(d.workspace)}">← ${
    bdi(d.workspace)
  }</a></header>
<main><p class="meta">Opened by ${author(d.created_by)} · ${
    t(d.created_at)
  } · ${d.latest_seq} message(s) · ${escapeHtml(d.id)}</p>
<section>${rows || `<p class="meta">No messages yet.</p>`}</section></main>`;
  return page(isolatedText(d.title), zone, body);
}

/** The page a visitor without a valid key gets, saying what was wrong. */
export function keyPage(problem: "missing" | "mismatch"): string {
  const text = problem === "missing"
    ? "This page needs the view key: open it once as /view?key=&lt;VIEW_TOKEN&gt; (it is then kept in a cookie and removed from the address), or send Authorization: Bearer &lt;VIEW_TOKEN&gt;."
    : "The view key did not match. Ask for the current VIEW_TOKEN and open /view?key=&lt;VIEW_TOKEN&gt; again.";
  return page(
    "Table · key needed",
    "UTC",
    `<main><section><h2>${
      problem === "missing" ? "View key missing" : "View key did not match"
    }</h2><p>${text}</p></section></main>`,
  );
}

/** A page saying why a workspace or discussion cannot be shown, with a way back. */
export function problemPage(message: string, defaultWorkspace: string, zone: string): string {
  return page(
    "Table · cannot show this",
    zone,
    `<main><section><h2>Cannot show this</h2><p>${
      escapeHtml(message)
    }</p><p><a href="/view?workspace=${
      encodeURIComponent(defaultWorkspace)
    }">Back to the table</a></p></section></main>`,
  );
}
