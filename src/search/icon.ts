/** The search toolset's icon: a magnifying glass. */

import { svgIcon } from "../tools/icons.ts";

/** On `search` and `fetch`. */
export const SEARCH_ICONS = [
  svgIcon(`<circle cx="10.5" cy="10.5" r="6.5"/><path d="M15.5 15.5L21 21"/>`, "#ea580c"),
];
