/** The console's search page and read-only item page (pure: stored text is escaped). */

import type { FetchedItem } from "../kit/search_source.ts";
import type { SearchAnswer } from "../search/service.ts";
import { at, esc, type Frame, page } from "./html_layout.ts";

/** A snippet with its «marks» as <mark>, everything else escaped. */
function marked(snippet: string): string {
  return esc(snippet).replace(/«([^»]*)»/g, "<mark>$1</mark>");
}

/** The search box and, when a query was asked, its results in ranked order. */
export function searchPage(
  query: string,
  answer: SearchAnswer | undefined,
  problem: string | undefined,
  frame: Frame,
): string {
  const form = `<form method="get" action="/console/search" role="search">
<label for="q">Search everything</label>
<input id="q" name="q" type="search" value="${esc(query)}" maxlength="1000">
<button type="submit">Search</button></form>`;
  if (problem !== undefined) {
    return page("Search", frame, `${form}<p class="problem" role="alert">${esc(problem)}</p>`);
  }
  if (answer === undefined) return page("Search", frame, `<h1>Search</h1>${form}`);
  const items = answer.results.map((r) =>
    `<li class="result"><a href="${esc(new URL(r.url).pathname)}">${esc(r.title)}</a>
<span class="kind">${esc(r.kind)}</span> · ${esc(r.author ?? "")} · ${at(r.created_at, frame.zone)}
<p class="snippet">${marked(r.snippet)}</p></li>`
  ).join("\n");
  const notes = answer.notes.map((n) => `<p class="note">${esc(n)}</p>`).join("");
  const more = answer.next_cursor === null
    ? ""
    : `<p><a href="/console/search?q=${encodeURIComponent(query)}&amp;cursor=${
      encodeURIComponent(answer.next_cursor)
    }">More results</a></p>`;
  const body = answer.results.length === 0
    ? "<p>Nothing found.</p>"
    : `<ol class="results">${items}</ol>`;
  return page("Search", frame, `<h1>Search</h1>${form}${notes}${body}${more}`);
}

/** One item, read-only: its title, facts and whole text. */
export function itemPage(kind: string, item: FetchedItem, frame: Frame): string {
  const facts: [string, string][] = [
    ["Kind", kind],
    ["Created", at(item.created_at, frame.zone)],
    ...Object.entries(item.meta).filter(([, v]) => v !== undefined) as [string, string][],
    ...Object.entries(item.facts ?? {}),
  ];
  const dl = facts.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join("");
  return page(
    item.title,
    frame,
    `<p><a href="/console/search">Search</a></p><h1>${esc(item.title)}</h1><dl>${dl}</dl>
<pre class="text">${esc(item.text)}</pre>`,
  );
}
