# SPDX-License-Identifier: MIT
# strict_helpers.bash - shared by tests/strict/strict_*.bats (`load strict_helpers`).
# Loads helpers.bash, and makes `gated` (and `both`) run COMMAND under
# `stdiogate --strict` (STRICT_OPTS: more wrapper options, e.g. --protocol
# framed), through a two-line wrapper script that client.py runs as
# $STDIOGATE_WRAPPER.  STRICT_VIA=filter runs the filter alone instead
# (stdiogate-filter OPTS -- COMMAND), STRICT_VIA=guard the default mode
# (stdiogate OPTS COMMAND: the library's session guard): strict_alone.bats
# runs the edge and fault cases that way, with the same expectations.
#
#   SRV               the Python fixture (tests/fixtures/strict_server.py)
#   strict_pid        the filter's pid, from its level-2 "strict: filtering"
#                     line in $ERR (run with STDIOGATE_DEBUG=2)
#   assert_gone PID   PID has exited (or is a zombie waiting to be reaped)
#                     within a bounded wait
#   assert_file_stdout FILE   stdout is byte for byte FILE

load ../helpers

SRV="$FIX/strict_server.py"

strict_wrapper() {
    local w=$BATS_TEST_TMPDIR/strict-wrapper
    if [ "${STRICT_VIA:-}" = filter ]; then
        # the filter alone, no library: what `stdiogate --strict` must equal
        printf '#!/bin/sh\n[ "$1" = -- ] && shift\nexec "%s" %s -- "$@"\n' "$ROOT/stdiogate-filter" "${STRICT_OPTS:-}" >"$w"
    elif [ "${STRICT_VIA:-}" = guard ]; then
        # the default mode: the library's session guard, no filter process
        printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$ROOT/stdiogate" "${STRICT_OPTS:-}" >"$w"
    else
        printf '#!/bin/sh\nexec "%s" --strict %s "$@"\n' "$ROOT/stdiogate" "${STRICT_OPTS:-}" >"$w"
    fi
    chmod +x "$w"
    export STDIOGATE_WRAPPER=$w
}

strict_pid() {
    sed -n 's/^stdiogate\[\([0-9]*\)\]: strict: filtering.*/\1/p' "$ERR" | head -1
}

assert_gone() {
    local pid=$1 state
    [ -n "$pid" ] || { echo "no filter pid" >&2; show_run; return 1; }
    timeout 20 sh -c '
        while [ -e /proc/$1 ]; do
            state=$(sed "s/.*) //" /proc/$1/stat 2>/dev/null | cut -c1) || exit 0
            # a zombie whose other threads have ended too (they hold the descriptors)
            [ "$state" = Z ] && [ "$(ls /proc/$1/task 2>/dev/null)" = "$1" ] && exit 0
            sleep 0.01  # polling for the exit, not a timing guess
        done' sh "$pid" || { echo "process $pid still running" >&2; ps -o pid,ppid,stat,args -p "$pid" >&2; return 1; }
}

assert_file_stdout() {
    if ! cmp "$1" "$OUT"; then
        echo "stdout differs from $1" >&2; show_run; return 1
    fi
}

# assert_no_filter TAG: no filter process whose command line holds TAG is
# left (bounded wait: the filter exits right after it closed the wire).
assert_no_filter() {
    timeout 20 sh -c 'while pgrep -f "[s]tdiogate-filter .*$1" >/dev/null; do sleep 0.01; done' sh "$1" ||
        { echo "a filter for $1 is still running:" >&2; pgrep -af "[s]tdiogate-filter .*$1" >&2; return 1; }
}
