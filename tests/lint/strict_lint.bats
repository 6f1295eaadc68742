#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Static analysis of the strict-mode filter (tests/strict.mk: lint-strict):
# cppcheck and clang-tidy on the filter (filter/*.c) with the library's flags and check set.
# (gcc and clang builds at -Werror: `make all check-clang`.)

load ../lint_helpers

@test "lint: cppcheck and clang-tidy on the filter (filter/*.c) are clean" {
    lint lint-strict --brief
}
