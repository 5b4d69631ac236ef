/** The table toolset's icon: a table with seats around it (a shared meeting table). */

import { svgIcon } from "../tools/icons.ts";

/** On every table tool. */
export const TABLE_ICONS = [
  svgIcon(
    `<rect x="5" y="9" width="14" height="6" rx="1"/><circle cx="8" cy="5" r="1.5"/><circle cx="16" cy="5" r="1.5"/><circle cx="8" cy="19" r="1.5"/><circle cx="16" cy="19" r="1.5"/>`,
    "#059669",
  ),
];
