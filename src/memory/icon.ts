/** The memory toolset's icon: three linked nodes of a knowledge graph. */

import { svgIcon } from "../tools/icons.ts";

/** On every memory tool. */
export const MEMORY_ICONS = [
  svgIcon(
    `<circle cx="5" cy="6" r="2.5"/><circle cx="19" cy="6" r="2.5"/><circle cx="12" cy="18" r="2.5"/><path d="M7.5 6h9M6.3 8.2l4.4 7.6M17.7 8.2l-4.4 7.6"/>`,
    "#0d9488",
  ),
];
