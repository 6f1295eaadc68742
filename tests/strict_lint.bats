#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Static analysis of the strict-mode filter (tests/strict.mk: lint-strict):
# cppcheck and clang-tidy on filter.c with the library's flags and check set.
# (gcc and clang builds at -Werror: `make all check-clang`.)

setup_file() {
    ROOT="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
    export ROOT
    make -C "$ROOT" -s lint-deps >&2
}

@test "lint: cppcheck and clang-tidy on filter.c are clean" {
    run make -C "$ROOT" -s lint-strict
    echo "$output" | grep -E 'error:|warning:' || echo "$output" | tail -20
    [ "$status" -eq 0 ]
}
