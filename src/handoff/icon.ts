/** The handoff toolset's icon: a conversation carried from one place to another. */

import { svgIcon } from "../tools/icons.ts";

/** On every handoff tool and its list view. */
export const HANDOFF_ICONS = [
  svgIcon(
    `<path d="M4 5h10a2 2 0 0 1 2 2v5a2 2 0 0 1-2 2H8l-4 3z"/><path d="M15 17h5m-2-2 2 2-2 2"/>`,
    "#2563eb",
  ),
];
