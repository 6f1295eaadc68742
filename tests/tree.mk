# SPDX-License-Identifier: MIT
# tests/tree.mk - what the process-tree tests (tests/tree/tree_*.bats) run besides
# bats and python3: dash and bash as launchers, jq (a bash server answers with
# it), strace (checks which path CPython's subprocess took).  node and npx:
# as the integration tests (tests/npm.mk).
TEST_TOOLS += dash:dash jq:jq strace:strace
