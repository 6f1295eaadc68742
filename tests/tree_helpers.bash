# SPDX-License-Identifier: MIT
# The tree tests' helpers are tests/helpers.bash now; this name stays for branches that load it.
source "$(dirname "${BASH_SOURCE[0]}")/helpers.bash"
