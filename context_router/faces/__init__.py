"""The faces: the CLI, editor hooks, the MCP server, watch, and the read-only views and reports."""
