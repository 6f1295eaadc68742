#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Static analysis (tests/lint.mk): cppcheck and clang-tidy on the library
# (shim.c and lib/), the wrapper and the test helpers under shellcheck, gcc
# and clang builds at -Wall -Wextra -Werror.  Expected outcome: `make lint`
# exits 0.  Each target runs on its own so that a failure names the tool.

load lint_helpers

@test "lint: cppcheck on the library is clean" {
    lint lint-cppcheck
}

@test "lint: clang-tidy on the library is clean" {
    lint lint-tidy --brief
}

@test "lint: shellcheck on the wrapper and test helpers is clean" {
    lint lint-shell
}

@test "lint: no test negates an assertion with a bare ! (errexit ignores it)" {
    lint lint-bats
}

@test "lint: every mutation of tests/mutate.sh still applies to its file exactly once (-c)" {
    # an edit of the code can leave a mutation stale, and make mutate takes
    # hours: this says so at once
    run "$ROOT/tests/mutate.sh" -c
    [ "$status" -eq 0 ] || { echo "$output" >&2; false; }
    [[ "$output" == "all "*" mutations apply" ]] || { echo "$output" >&2; false; }
}

@test "lint: gcc and clang build the library, fuzz programs and fixtures at -Wall -Wextra -Werror" {
    lint lint-build
}
