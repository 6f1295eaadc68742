# SPDX-License-Identifier: MIT
"""A stdio MCP server that prints on stdout the way many real ones do (stdiogate tests)."""
