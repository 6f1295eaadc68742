#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Issue 22: every option of the wrapper, asserted by its effect on a real
# server under the real library (wrapper.bats checks the environment the
# options set, with a stand-in library; strict_wrapper.bats checks --strict
# and --protocol).  One row per spelling: the answer alone on the wire, the
# junk on stderr (or nowhere with --discard), and exactly the diagnostics of
# the level asked for: 2 names the call and byte count that opened the gate,
# 3 adds the drain line, 4 the per-call trace.  The failing rows are named.

load ../helpers

SRV=$BIN/core_srv

# row: OPTIONS | JUNK (stderr or nowhere) | LEVEL (1 to 4)
ROWS=(
    "|stderr|1"
    "--|stderr|1"
    "-v|stderr|2"
    "-v --|stderr|2"
    "-vv|stderr|3"
    "-v -v|stderr|3"
    "-vvv|stderr|4"
    "--discard|nowhere|1"
    "--discard -v|nowhere|2"
    "-v --discard --|nowhere|2"
)

one_row() {
    local opts=$1 where=$2 level=$3 div=stderr
    [ "$where" = nowhere ] && div=/dev/null
    # (client.py puts a -- of its own before COMMAND: taken out, so that
    # the row's options are the whole command line before COMMAND)
    printf '#!/bin/sh\n[ "$1" = -- ] && shift\nexec "%s" %s "$@"\n' "$ROOT/stdiogate" "$opts" >"$BATS_TEST_TMPDIR/w"
    chmod +x "$BATS_TEST_TMPDIR/w"
    JUNK=(printf-junk write-junk)
    both --line "$INIT" -- "$SRV" read printf write
    STDIOGATE_WRAPPER=$BATS_TEST_TMPDIR/w gated --line "$INIT" -- "$SRV" read printf write
    assert_status 0
    assert_frames "$(answer 0 initialize)"
    if [ "$where" = stderr ]; then assert_junk_on_stderr; else assert_nowhere "${JUNK[@]}"; fi
    if [ "$level" -ge 2 ]; then
        # through the helper the count is exact (printf-junk too); to /dev/null, what went through write
        if [ "$where" = stderr ]; then summary="$div: 23 bytes in 2 lines"; else summary="$div: at least 11 bytes in 1 line"; fi
        assert_stderr_has "diverting stdout to $div" "diverted to $summary"
        assert_gate_opened_by read "$INIT_BYTES"
    else
        assert_stderr_lacks "stdiogate["
    fi
    if [ "$level" -ge 3 ]; then assert_stderr_has "libstdiogate.so version"; else assert_stderr_lacks "libstdiogate.so version"; fi
    if [ "$level" -ge 4 ]; then assert_stderr_has "read: 221 bytes from stdin"; else assert_stderr_lacks "bytes from stdin"; fi
}

@test "wrapper options: -v, -vv, -vvv, --discard, -- and their combinations, by their effect" {
    unset STDIOGATE_DEBUG STDIOGATE_DISCARD
    local row opts where level bad=()
    for row in "${ROWS[@]}"; do
        IFS='|' read -r opts where level <<<"$row"
        ( set -e; one_row "$opts" "$where" "$level" ) 2>"$BATS_TEST_TMPDIR/row.err" &
        if ! wait $!; then
            bad+=("[$opts]")
            { echo "=== row failed: [$opts] (junk $where, level $level)"; cat "$BATS_TEST_TMPDIR/row.err"; } >&2
        fi
    done
    [ "${#bad[@]}" = 0 ] || { echo "failed rows: ${bad[*]}" >&2; false; }
}
