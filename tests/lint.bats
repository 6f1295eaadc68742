#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Static analysis (tests/lint.mk): cppcheck and clang-tidy on the library
# (shim.c and lib/), the wrapper and the test helpers under shellcheck, gcc
# and clang builds at -Wall -Wextra -Werror.  Expected outcome: `make lint`
# exits 0.  Each target runs on its own so that a failure names the tool.

setup_file() {
    ROOT="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
    export ROOT
    make -C "$ROOT" -s lint-deps >&2
}

@test "lint: cppcheck on the library is clean" {
    run make -C "$ROOT" -s lint-cppcheck
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "lint: clang-tidy on the library is clean" {
    run make -C "$ROOT" -s lint-tidy
    echo "$output" | grep -E 'error:|warning:' || echo "$output" | tail -20
    [ "$status" -eq 0 ]
}

@test "lint: shellcheck on the wrapper and test helpers is clean" {
    run make -C "$ROOT" -s lint-shell
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "lint: gcc and clang build the library, fuzz programs and fixtures at -Wall -Wextra -Werror" {
    run make -C "$ROOT" -s lint-build
    echo "$output"
    [ "$status" -eq 0 ]
}
