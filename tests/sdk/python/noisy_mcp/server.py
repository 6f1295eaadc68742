# SPDX-License-Identifier: MIT
"""noisy-mcp-python: a print() banner at import, a dependency's notice at import (pygame prints
two lines on stdout when it is imported), one tool (`echo`) that print()s while it runs."""
print("noisy-mcp-python: starting MCP server on stdio")

import pygame  # noqa: E402,F401  (imported for its notice, as a server that uses it would be)
from mcp.server.mcpserver import MCPServer  # noqa: E402

server = MCPServer("noisy-mcp-python")


@server.tool()
def echo(message: str) -> str:
    """Echoes the message back."""
    print("noisy-mcp-python: tool echo called")
    return f"Echo: {message}"


def main():
    server.run()
