from noisy_mcp.server import main

main()
