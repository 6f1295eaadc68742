# SPDX-License-Identifier: MIT
# lint_helpers.bash - for tests/lint/lint.bats and tests/lint/strict_lint.bats: the
# tools installed once per file, and one make target run per test.

setup_file() {
    ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
    export ROOT
    make -C "$ROOT" -s lint-deps >&2
}

# lint TARGET [--brief]: runs `make TARGET` and shows its output (--brief:
# its error and warning lines, or its last 20 lines if it has none); passes
# when make exits 0.
# (bats' run sets $output and $status.)
# shellcheck disable=SC2154
lint() {
    run make -C "$ROOT" -s "$1"
    if [ "${2:-}" = --brief ]; then
        echo "$output" | grep -E 'error:|warning:' || echo "$output" | tail -20
    else
        echo "$output"
    fi
    [ "$status" -eq 0 ]
}
