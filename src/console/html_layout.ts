/**
 * The console's page shell: one stylesheet inline, no script, no external asset, every stored
 * string escaped by the callers through `esc` (attributes) or `bdi` (content, direction-isolated). Landmarks, headings and labels for screen
 * readers; every control is a native form element, so the keyboard reaches all of it.
 */

import { escapeHtml, isolatedHtml, isolatedText } from "../kit/web.ts";
import { formatTime } from "../table/view_html.ts";

/** Escapes stored or typed text for HTML (attributes, and text the server wrote). */
export const esc = escapeHtml;

/**
 * Stored text shown in a page's content (a name, a title, a workspace): escaped and
 * direction-isolated, so it cannot reorder the page's own text (`kit/web.ts`).
 */
export const bdi = isolatedHtml;

/** Stored text in a page's title (no markup there): direction-isolated by U+2068…U+2069. */
export const bdiText = isolatedText;

/** What every signed-in page shows around its content. */
export interface Frame {
  ownerName: string;
  zone: string;
  /** The session's CSRF token, for the sign-out form in the header. */
  csrf: string;
  /** Which nav entry is the current page. */
  current?: "waiting" | "apps" | "import" | "search";
}

/** An ISO time in the console's zone. */
export function at(iso: string | number, zone: string): string {
  const text = formatTime(typeof iso === "number" ? new Date(iso).toISOString() : iso, zone);
  return `<time datetime="${esc(new Date(iso).toISOString())}">${esc(text)}</time>`;
}

/** The hidden CSRF field every form carries. */
export function csrfField(csrf: string): string {
  return `<input type="hidden" name="csrf" value="${esc(csrf)}">`;
}

/** A status line after an action, or an alert after a refusal. */
export function notice(kind: "done" | "problem", text: string | undefined): string {
  if (text === undefined) return "";
  return kind === "done"
    ? `<p class="done" role="status">${esc(text)}</p>`
    : `<p class="problem" role="alert">${esc(text)}</p>`;
}

const STYLE = `
*{box-sizing:border-box}
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2330;background:#f4f5f7}
header{background:#1d2330;color:#fff;padding:8px 18px;display:flex;gap:18px;align-items:center;flex-wrap:wrap}
header .site{font-weight:700;font-size:16px;margin-right:auto}
header a{color:#d7e4ff;text-decoration:none;padding:4px 6px;border-radius:4px}
header a[aria-current=page]{background:#37415a;color:#fff}
header button{background:none;border:1px solid #8c96ab;color:#fff;border-radius:4px;padding:3px 10px;font:inherit;cursor:pointer}
main{max-width:980px;margin:0 auto;padding:10px 18px 48px}
h1{font-size:21px;margin:14px 0 6px}h2{font-size:16px;margin:0 0 8px}
section{background:#fff;border:1px solid #dde1e8;border-radius:8px;padding:12px 16px;margin:14px 0}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:5px 8px;border-top:1px solid #eceff3;vertical-align:top}
th{font-size:12px;text-transform:uppercase;color:#5b6474;border-top:0}
.meta{color:#5b6474;font-size:13px}.via{font-size:12px;background:#eef1f6;border-radius:4px;padding:0 5px;color:#3b4352}
.stale{color:#a33b00;font-weight:600}.proof{font-weight:600}.proof-relayed{color:#8a5a00}
pre{white-space:pre-wrap;word-wrap:break-word;font:14px/1.45 ui-monospace,monospace;margin:6px 0 0;background:#f7f8fa;padding:8px 10px;border-radius:6px;border:1px solid #eceff3}
.msg{border-top:1px solid #eceff3;padding:10px 0}.msg:first-child{border-top:0}
label{display:block;font-weight:600;margin:10px 0 4px}label.inline{display:inline;font-weight:400;margin-right:14px}
input[type=text],input[type=password],textarea{font:inherit;width:100%;padding:6px 8px;border:1px solid #b9c0cc;border-radius:5px}
textarea{min-height:90px}fieldset{border:1px solid #dde1e8;border-radius:6px;margin:8px 0}legend{font-weight:600}
button.primary,form.inline button{font:inherit;padding:5px 14px;border-radius:5px;border:1px solid #2b4f9e;background:#2f5cc0;color:#fff;cursor:pointer;margin-top:10px}
form.inline{display:inline}form.inline button{margin:0;padding:2px 10px}
form.inline button.danger{background:#b3261e;border-color:#8c1d17}
header form.inline button{background:none;border:1px solid #8c96ab;color:#fff}
td time{white-space:nowrap}td code{word-break:break-all}
:focus-visible{outline:3px solid #f0a500;outline-offset:2px}
.done{background:#e5f4ea;border:1px solid #9bd3ad;padding:8px 12px;border-radius:6px}
.problem{background:#fdeceb;border:1px solid #f0a8a3;padding:8px 12px;border-radius:6px;color:#8c1d17;font-weight:600}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 14px;margin:0}dt{color:#5b6474}dd{margin:0}
footer{max-width:980px;margin:0 auto;padding:0 18px 24px;color:#5b6474;font-size:12px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;color:#000;padding:4px}
`;

function shell(title: string, header: string, body: string, foot: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · handoff-mcp console</title><style>${STYLE}</style></head>
<body><a class="skip" href="#main">Skip to content</a>
${header}
<main id="main">
${body}
</main>
<footer>${foot}</footer>
</body></html>`;
}

/** A signed-in page: the header with navigation and sign-out, then `body`. */
export function page(title: string, frame: Frame, body: string): string {
  const link = (href: string, label: string, key: Frame["current"]) =>
    `<a href="${href}"${frame.current === key ? ' aria-current="page"' : ""}>${label}</a>`;
  const header = `<header><span class="site">handoff-mcp · owner console</span>
<nav aria-label="Console">${link("/console", "Waiting for you", "waiting")} ${
    link("/console/apps", "Apps &amp; settings", "apps")
  } ${link("/console/search", "Search", "search")} ${
    link("/console/import", "Import &amp; export", "import")
  }</nav>
<form class="inline" method="post" action="/console/logout">${
    csrfField(frame.csrf)
  }<button type="submit">Sign out</button></form></header>`;
  return shell(
    title,
    header,
    body,
    `Signed in as ${bdi(frame.ownerName)} (recorded via console) · times in ${esc(frame.zone)}`,
  );
}

/** A page outside the session (sign-in, refusals). */
export function plainPage(title: string, body: string): string {
  return shell(
    title,
    `<header><span class="site">handoff-mcp · owner console</span></header>`,
    body,
    "No script runs on these pages.",
  );
}
