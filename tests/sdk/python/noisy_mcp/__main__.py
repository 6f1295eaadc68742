# SPDX-License-Identifier: MIT
from noisy_mcp.server import main

main()
