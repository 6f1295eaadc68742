#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# stdiogate-filter (filter.c) at the edges that the mutation check
# (tests/mutate.sh) found unpinned: --protocol framed from the first byte,
# the descriptors a launcher hands it beyond 0, 1 and 2.  Each test runs
# the filter directly (stdiogate-filter -- COMMAND) with a COMMAND that
# writes exact bytes, and checks stdout and stderr byte for byte.

bats_require_minimum_version 1.5.0

setup_file() {
    export REPO="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
}

setup() {
    cd "$BATS_TEST_TMPDIR"
}

ANSWER='{"jsonrpc":"2.0","id":1,"result":{}}'
FRAME='Content-Length: 2\r\n\r\n{}'

# filtered PROTOCOL FORMAT ARG...: the filter over printf FORMAT ARG...;
# stdout in "out", stderr in "err", each read through a pipe to its end of
# file (the filter, forked away, holds both until it exits)
filtered() {
    local protocol=$1
    shift
    ( "$REPO/stdiogate-filter" --protocol "$protocol" -- printf "$@" 2>&1 >&3 3>&- </dev/null |
        cat >err ) 3>&1 | cat >out
}

@test "filter: --protocol framed: a JSON-RPC line is junk even before any frame; auto passes it" {
    filtered framed "%s\n$FRAME" "$ANSWER"
    [ "$(cat out)" = "$(printf "$FRAME")" ]
    [ "$(cat err)" = "$ANSWER" ]
    filtered auto '%s\n' "$ANSWER"
    [ "$(cat out)" = "$ANSWER" ]
    [ ! -s err ]
}

@test "filter: --protocol jsonl: a frame is junk even before any JSON line; auto passes it" {
    filtered jsonl "$FRAME%s\n" "$ANSWER"
    [ "$(cat out)" = "$ANSWER" ]
    [ "$(cat err)" = "$(printf "$FRAME")" ]
    filtered auto "$FRAME"
    [ "$(cat out)" = "$(printf "$FRAME")" ]
    [ ! -s err ]
}

@test "filter: a descriptor 4 the launcher was given is not kept by the filter" {
    # stderr a regular file: the filter needs no handle of its own on it, so
    # it holds exactly the wire, stderr and the pipe (1, 2, 3)
    cat >report <<'SH'
for _ in $(seq 2000); do grep -q "strict: filtering" err-log && break; sleep 0.01; done
pid=$(sed -n "s/^stdiogate\[\([0-9]*\)\]: strict: filtering.*/\1/p" err-log)
echo "filter fds $(ls /proc/$pid/fd | sort -n | tr "\n" " ")" >&2
SH
    timeout 20 env STDIOGATE_DEBUG=2 "$REPO/stdiogate-filter" -- sh report 2>err-log </dev/null 4<report
    cat err-log >&2
    [ "$(sed -n 's/^filter fds //p' err-log)" = "1 2 3 " ]
}

# The exit line at level 2, read from a pipe to its end of file (the filter
# writes it after the server has exited: strict_wrapper.bats's "strict
# diagnostics" reads a file at once, and misses it now and then)
@test "filter: the level-2 exit line counts the junk bytes and lines (a last line without its newline too), or says /dev/null" {
    srv='read x; echo junk1; echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"; printf junk2'
    ( STDIOGATE_DEBUG=2 "$REPO/stdiogate-filter" -- sh -c "$srv" 2>&1 >&3 3>&- </dev/null | cat >err ) 3>&1 |
        cat >out
    cat err >&2
    [ "$(cat out)" = "$ANSWER" ]
    grep -q "strict: end of the server's output; 11 bytes of junk in 2 lines diverted to stderr, 0 of them dropped" err
    ( STDIOGATE_DEBUG=2 STDIOGATE_DISCARD=1 "$REPO/stdiogate-filter" -- sh -c 'read x; echo junk1' 2>&1 >&3 3>&- \
        </dev/null | cat >err ) 3>&1 | cat >out
    cat err >&2
    grep -q "6 bytes of junk in 1 lines diverted to /dev/null" err
    if grep -q junk1 err out; then false; fi
}
