# SPDX-License-Identifier: MIT
# tests/doctor/doctor.bats runs the Neovim entries `stdiogate --check --client neovim`
# prints with Lua (tests/fixtures/doctor/neovim.lua); the JSONC parser VS Code
# uses (jsonc-parser) is pinned in tests/package.json with the rest.
TEST_TOOLS += lua5.4:lua5.4
