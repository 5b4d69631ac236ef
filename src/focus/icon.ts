/** The focus toolset's icon: a target (the north star and the one focus). */

import { svgIcon } from "../tools/icons.ts";

/** On every focus tool. */
export const FOCUS_ICONS = [
  svgIcon(
    `<circle cx="12" cy="12" r="9"/><circle cx="12" cy="12" r="5"/><circle cx="12" cy="12" r="1"/>`,
    "#dc2626",
  ),
];
