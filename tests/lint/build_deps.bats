#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# A stale build: every C target is rebuilt when a header it includes
# changes, and only then.  The compiler writes each target's list of headers
# (-MMD -MP, or an -MM pass for a target of several sources) under build/deps
# (the Makefile's DEP_DIR; the fixtures' under tests/bin), and make reads them
# back.  In a copy of the tree (the files git knows, as they are now), built
# once: with a header touched, make -n would rebuild exactly the targets that
# include it (the header's time stamp is put back after), and make does (once
# for real); with nothing changed, nothing.  (Not make -W: it compares names,
# and the compiler names protocol/detect.h tests/fixtures/../../protocol/detect.h there.)
#
# Which target includes which header is worked out here from the sources'
# own #include lines, followed through the local files they include, where a
# target is one source file (the fixtures, the benchmarks); the rest is
# listed by hand below.

# Every target that compiles C or C++ (the fuzzers' libFuzzer pair included).
TARGETS="all fixtures examples fuzz-build fuzz-stream-build bench-bins setups-fixtures"

setup_file() {
    ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
    TREE=$BATS_FILE_TMPDIR/tree
    export ROOT TREE
    mkdir -p "$TREE"
    git -C "$ROOT" ls-files -z -co --exclude-standard | (cd "$ROOT" && tar --null -T - -cf -) |
        tar -xf - -C "$TREE"
    # shellcheck disable=SC2086
    make -C "$TREE" -s $TARGETS >"$BATS_FILE_TMPDIR/build.log" 2>&1 ||
        { cat "$BATS_FILE_TMPDIR/build.log" >&2; return 1; }
}

# rebuilt: the targets make -n would build, one a line, sorted (fuzz-deps's
# probe, which it builds every time to see whether clang links libFuzzer
# programs, left out)
rebuilt() {
    # shellcheck disable=SC2086
    make -C "$TREE" -n $TARGETS | grep -oE -- '(^|[[:space:]])-o [^[:space:]]+' |
        sed -E 's/^[[:space:]]*-o //' |
        grep -vx 'protocol/bin/probe' | sort -u
}

# includes FILE HEADER: does FILE include HEADER, directly or through the
# local files it includes?
includes() {
    local want dir inc
    want=$(realpath -m "$2")
    dir=$(dirname "$1")
    for inc in $(sed -n 's/^#include "\(.*\)".*/\1/p' "$1"); do
        inc=$(realpath -m "$dir/$inc")
        [ "$inc" = "$want" ] && return 0
        [ -f "$inc" ] && includes "$inc" "$2" && return 0
    done
    return 1
}

# includers GLOB HEADER: tests/bin/NAME or bench/bin/NAME for each source
# file in GLOB that includes HEADER
includers() {
    local f base
    for f in $1; do
        includes "$f" "$2" || continue
        base=${f##*/}
        base=${base%.*}
        case $f in
            bench/*) echo "bench/bin/$base" ;;
            *) echo "tests/bin/$base" ;;
        esac
    done
}

# touched HEADER: what make -n would build with HEADER touched (its time
# stamp put back after)
touched() {
    touch -r "$1" "$BATS_TEST_TMPDIR/stamp"
    touch "$1"
    rebuilt
    touch -r "$BATS_TEST_TMPDIR/stamp" "$1"
}

# expect HEADER TARGET...: with HEADER touched, make would build exactly the
# TARGETs
expect() {
    local header=$1
    shift
    printf '%s\n' "$@" | sed '/^$/d' | sort -u >"$BATS_TEST_TMPDIR/want"
    touched "$header" >"$BATS_TEST_TMPDIR/got"
    diff -u "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got" >&2
}

@test "build deps: built once, nothing is rebuilt" {
    run rebuilt
    [ "$status" -eq 0 ]
    [ -z "$output" ]
}

@test "build deps: protocol/detect.h rebuilds the library, the filter, the checker, the fuzzers, the classifier's benchmark and the fixtures that include it" {
    cd "$TREE"
    fixtures=$(includers "tests/fixtures/*.c tests/fixtures/*.cpp" protocol/detect.h)
    [ -n "$fixtures" ]      # core_answer_check: the case that was stale
    expect protocol/detect.h libstdiogate.so stdiogate-filter stdiogate-check \
        protocol/bin/diff protocol/bin/endof protocol/bin/fuzz_detect protocol/bin/stream_diff protocol/bin/fuzz_stream \
        bench/bin/classify $fixtures
}

@test "build deps: stall.h rebuilds the library and the filter" {
    cd "$TREE"
    expect common/stall.h libstdiogate.so stdiogate-filter \
        $(includers "tests/fixtures/*.c tests/fixtures/*.cpp" common/stall.h)
}

@test "build deps: env.h rebuilds the library, the filter and the checker" {
    cd "$TREE"
    expect common/env.h libstdiogate.so stdiogate-filter stdiogate-check \
        $(includers "tests/fixtures/*.c tests/fixtures/*.cpp" common/env.h)
}

@test "build deps: inspect.h rebuilds the library and the checker" {
    cd "$TREE"
    expect common/inspect.h libstdiogate.so stdiogate-check \
        $(includers "tests/fixtures/*.c tests/fixtures/*.cpp" common/inspect.h)
}

@test "build deps: lib/internal.h, and each of the library's sources, rebuild the library alone" {
    cd "$TREE"
    expect lib/internal.h libstdiogate.so
    for f in shim.c lib/*.c; do
        expect "$f" libstdiogate.so
    done
}

@test "build deps: a fixture header rebuilds the fixtures that include it, and only those" {
    cd "$TREE"
    checked=0
    for h in tests/fixtures/*.h; do
        want=$(includers "tests/fixtures/*.c tests/fixtures/*.cpp" "$h")
        [ -n "$want" ] || continue
        # setups_srv_musl is built from setups_srv.c (tests/setups.mk)
        want=$(printf '%s\n' $want | sed 's|^tests/bin/setups_srv$|&\ntests/bin/setups_srv_musl|')
        expect "$h" $want
        checked=$((checked + 1))
    done
    [ "$checked" -ge 2 ]    # core_answer.h and core_srv.h at least
}

@test "build deps: bench/src/common.h rebuilds the benchmark programs that include it" {
    cd "$TREE"
    want=$(includers "bench/src/*.c" bench/src/common.h)
    [ -n "$want" ]
    expect bench/src/common.h $want
}

@test "build deps: the fuzzers' own headers rebuild the fuzzers that include them" {
    cd "$TREE"
    expect protocol/reference.h protocol/bin/diff protocol/bin/endof protocol/bin/fuzz_detect
    expect protocol/stream_harness.h protocol/bin/stream_diff protocol/bin/fuzz_stream
    expect protocol/diff_main.h protocol/bin/diff protocol/bin/stream_diff
}

@test "build deps: touch protocol/detect.h, make: exactly its includers are rebuilt, then nothing" {
    cd "$TREE"
    want=$(touched protocol/detect.h | tr "\n" " ")
    [ -n "$want" ]
    touch protocol/detect.h
    # shellcheck disable=SC2086
    make -s $TARGETS >"$BATS_TEST_TMPDIR/make.log" 2>&1 || { cat "$BATS_TEST_TMPDIR/make.log" >&2; false; }
    run rebuilt
    [ "$status" -eq 0 ]
    [ -z "$output" ]
    # and what was rebuilt is newer than protocol/detect.h, what was not is older
    for t in $want; do [ "$t" -nt protocol/detect.h ] || { echo "$t not rebuilt" >&2; false; }; done
    for t in stdiogate-check libstdiogate.so tests/bin/core_srv examples/bin/noisy-server bench/bin/client; do
        case " $want " in *" $t "*) continue ;; esac
        [ protocol/detect.h -nt "$t" ] || { echo "$t rebuilt although it does not include protocol/detect.h" >&2; false; }
    done
}
