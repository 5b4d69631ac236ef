/**
 * Icons for the server, each toolset's tools and the MCP Apps views: small SVGs inlined as data
 * URIs, so a host shows them without fetching anything from anywhere (the same on stdio, where
 * there is no HTTP origin to serve them from).
 */

import type { Icon } from "./sdk.ts";

/**
 * An icon of a 24×24 SVG drawing: `body` is the markup inside the `<svg>` element, drawn in
 * `color` (strokes and fills use `currentColor`), shown at any size.
 */
export function svgIcon(body: string, color: string): Icon {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" ` +
    `stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" ` +
    `color="${color}">${body}</svg>`;
  return {
    src: `data:image/svg+xml;base64,${btoa(svg)}`,
    mimeType: "image/svg+xml",
    sizes: ["any"],
  };
}

/** The server's icon (`serverInfo.icons`): two speech bubbles passing a baton, i.e. a handoff. */
export const SERVER_ICONS: Icon[] = [
  svgIcon(
    `<rect x="2" y="3" width="13" height="9" rx="2"/><path d="M6 12v3l3-3"/>` +
      `<rect x="9" y="12" width="13" height="9" rx="2" fill="currentColor" fill-opacity=".15"/>`,
    "#2563eb",
  ),
];
