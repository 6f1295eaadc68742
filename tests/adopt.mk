# SPDX-License-Identifier: MIT
# tests/adopt.mk - what tests/docs/recipes.bats and tests/docs/adopt.bats run besides the
# rest: pylsp (the LSP recipes' real server) and man (renders the man page).
TEST_TOOLS += pylsp:python3-pylsp man:man-db
