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

# Issue 43: what loading the library costs every process is mostly the
# loader's work on it.  Symbols looked up at load (not lazily, at a first
# call) are libc's three variables the library reads, not the startup
# files' weak names that no process defines; pointers the loader must
# relocate are a handful, not tables of names; and the library is never
# unloaded (the fork handlers registered under its own __dso_handle, with
# no startup files to remove them, must not outlive it).  make bench measures the cost; this keeps its causes out.
@test "exports: the loader looks up stdout, stdin and environ at load and nothing else, relocates a handful of pointers, never unloads the library" {
    run readelf -rW "$STDIOGATE_LIB"
    assert_status 0
    local eager relative
    eager=$(printf '%s\n' "$output" | awk '$3 ~ /^R_/ && $3 !~ /_(RELATIVE|JUMP_SLOT)$/ { sub(/@.*/, "", $5); print $5 }' | sort | tr '\n' ' ')
    relative=$(printf '%s\n' "$output" | grep -c "_RELATIVE " || true)
    [ "$eager" = "environ stdin stdout " ] || { echo "looked up at load: $eager" >&2; false; }
    [ "$relative" -le 16 ] || { echo "$relative relative relocations" >&2; false; }
    readelf -dW "$STDIOGATE_LIB" | grep -q 'FLAGS_1.*NODELETE'
}
