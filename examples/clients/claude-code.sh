claude mcp add everything -- /usr/local/bin/stdiogate npx -y @modelcontextprotocol/server-everything
