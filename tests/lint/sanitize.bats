#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# valgrind memcheck on wrapped C servers: the library must not make a single
# memory error in the processes it enters (issue 5).  UBSan runs in
# `make check-ubsan` (tests/sanitize.mk).

load ../helpers

# valgrind_run FIXTURE [CLIENT-OPTION...] -- FIXTURE-ARG...: the wrapped
# tests/bin/FIXTURE under valgrind, the initialize message in, its answer
# out, $JUNK on stderr; valgrind's report goes to a file of its own.
valgrind_run() {
    local prog=$1 log="$BATS_TEST_TMPDIR/valgrind.log" opts=()
    shift
    while [ "$1" != -- ]; do opts+=("$1"); shift; done
    shift
    gated "${opts[@]}" --line "$INIT" -- valgrind -q --error-exitcode=99 --leak-check=full \
        --errors-for-leak-kinds=definite --log-file="$log" "$BIN/$prog" "$@"
    if [ "$status" -ne 0 ] || [ -s "$log" ]; then
        show_run; echo "--- valgrind:"; cat "$log"; return 1
    fi
    assert_frames "$(answer 0 initialize)"
    assert_junk_on_stderr
}

# memcheck SERVER-ARGS...: core_srv SERVER-ARGS... under valgrind_run.
memcheck() {
    JUNK=(printf-junk puts-junk write-junk)
    valgrind_run core_srv -- "$@"
}

@test "valgrind: a wrapped fgets server, junk diverted, gate opened: no memory error" {
    memcheck fgets printf puts write
}

@test "valgrind: a wrapped getline server with a copy of fd 1 (shell save/restore): no memory error" {
    memcheck getline printf puts write shellsave
}

@test "valgrind: a wrapped read(2) server that execs nothing but calls system(): no memory error" {
    memcheck read printf puts write system
    assert_stderr_has system-junk
}

# The library and the C fixtures built with UBSan (undefined behaviour
# aborts the process), in a copy of the tree, running every test file whose
# servers are C programs.
@test "ubsan: the C-fixture test files pass with library and fixtures built with -fsanitize=undefined" {
    # a bats run of its own: a clean environment, a PATH without this bats'
    # libexec (its own `bats` there needs the outer one's functions), no fd 3
    local path
    path=$(printf '%s\n' "$PATH" | tr ':' '\n' | grep -v bats-core | paste -sd:)
    run env -i PATH="$path" HOME="$HOME" make -C "$ROOT" -s check-ubsan 3>&-
    if [ "$status" -ne 0 ]; then
        echo "$output" | grep -E "^not ok|runtime error|^#" | head -80
        return 1
    fi
    # it ran the tests, instrumented
    nm -D "$ROOT/build/ubsan/libstdiogate.so" | grep -q __ubsan_handle
    [[ "$output" == *"ok 1 "* ]]
    [[ "$output" != *"not ok"* ]]
}

@test "ubsan: outside a git checkout (a release tarball, tests/mutate.sh's copy) its copy is the sources, without the programs built beside them" {
    local t=$BATS_TEST_TMPDIR/t
    mkdir "$t"
    (cd "$ROOT" && tar --exclude=./.git --exclude=./build --exclude=./tests/node_modules -cf - .) | tar -xf - -C "$t"
    [ -e "$t/libstdiogate.so" ] && [ -d "$t/tests/bin" ]    # built, and copied along
    run env -i PATH="$PATH" HOME="$HOME" make -C "$t" -s ubsan-tree 3>&-
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    local f
    for f in shim.c lib/helper.c filter/relay.c Makefile stdiogate tests/sanitize.mk tests/fixtures/setups_srv.c; do
        cmp "$ROOT/$f" "$t/build/ubsan/$f"
    done
    # rebuilt there with UBSan, not taken as built
    [ ! -e "$t/build/ubsan/libstdiogate.so" ] && [ ! -e "$t/build/ubsan/stdiogate-filter" ] &&
        [ ! -e "$t/build/ubsan/tests/bin" ] && [ ! -e "$t/build/ubsan/.git" ] ||
        { ls -a "$t/build/ubsan" "$t/build/ubsan/tests" | head -60; false; }
}

# The fail-safe (core_failsafe.bats): the split of a write, the stdout buffer
# taken apart at fflush and at exit.
# memcheck_failsafe MODE [CLIENT-OPTION...]: core_failsafe MODE under
# valgrind_run.
memcheck_failsafe() {
    JUNK=(printf-junk write-junk)
    valgrind_run core_failsafe "${@:2}" -- "$1"
}

@test "valgrind: the fail-safe splitting junk from an answer in one write: no memory error" {
    memcheck_failsafe glue
    assert_stderr_has glue-junk
}

@test "valgrind: the fail-safe in stdout's buffer at fflush and at exit: no memory error" {
    memcheck_failsafe stdio
    memcheck_failsafe exit --frames 0
}
