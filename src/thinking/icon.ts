/** The thinking toolset's icon: steps of a thought with a branch. */

import { svgIcon } from "../tools/icons.ts";

/** On every thinking tool and its view. */
export const THINKING_ICONS = [
  svgIcon(
    `<circle cx="6" cy="5" r="2"/><circle cx="6" cy="19" r="2"/><circle cx="18" cy="12" r="2"/><path d="M6 7v10M6 12h4a4 4 0 0 0 4-2l2-1"/>`,
    "#7c3aed",
  ),
];
