#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The library exports the functions it interposes and nothing else: the
# list is committed (tests/exports.txt), so that adding or losing an
# interposer, or leaking an internal symbol, is a visible change.

load ../helpers

@test "exports: libstdiogate.so exports exactly the symbols in tests/exports.txt" {
    nm -D --defined-only "$STDIOGATE_LIB" | awk '{ print $3 }' | sort >"$BATS_TEST_TMPDIR/now"
    diff -u "$TESTS/exports.txt" "$BATS_TEST_TMPDIR/now" ||
        { echo "update tests/exports.txt if the change is meant" >&2; false; }
    # every one of them is a function (T), none a variable
    [ -z "$(nm -D --defined-only "$STDIOGATE_LIB" | awk '$2 != "T"')" ]
}
