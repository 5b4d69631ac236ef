/** The MIME type of an MCP Apps view (a `ui://` HTML resource), told apart by the registry. */
export const MCP_APP_MIME = "text/html;profile=mcp-app";
