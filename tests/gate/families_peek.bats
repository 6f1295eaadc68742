#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Issue 45: a peek consumes nothing, in every member of the socket reader
# family, not only recv.  tests/bin/fam_peek peeks at the client's first
# line with one member and MSG_PEEK (alone, or with MSG_DONTWAIT beside
# it), writes "fam-peek-junk" on stdout, then reads stdin with read(2) and
# answers.  Judged by the gate's own effect, not through what the session
# guard leaves on the wire (the guard would send the junk to stderr even
# after a gate the peek opened too early): with --gate-only
# (STDIOGATE_GUARD=0) a gate opened by the peek lets the junk onto the
# wire; and the level-2 line must name read, after exactly the first
# message's bytes (a peek counted, then the read counted again, would say
# another call or another count).

load ../helpers

PK=$BIN/fam_peek

setup() { [ -x "$PK" ] || { echo "make fixtures" >&2; return 1; }; }

# peeked MEMBER [dontwait]: unwrapped, the junk on stdout (the test can
# fail); wrapped with the gate alone, the junk on stderr, stdout exactly
# the answers, the gate opened by read after the first message's bytes.
peeked() {
    JUNK=(fam-peek-junk)
    local -x STDIOGATE_GUARD=0
    init_ping_diverted --sockets -- "$PK" "$@"
    assert_gate_opened_by read "$INIT_BYTES"
    assert_stderr_lacks "gate opened by $1"
}

@test "families: a peek opens no gate in any socket reader (recv, __recv_chk, recvfrom, __recvfrom_chk, recvmsg; MSG_PEEK alone and with MSG_DONTWAIT), --gate-only" {
    local rows=() m
    for m in recv __recv_chk recvfrom __recvfrom_chk recvmsg; do
        rows+=("$m" "$m dontwait")
    done
    row_table peeked "${rows[@]}"
}

# The same for every other read that must not open the gate (the core
# tests in core_read_paths.bats and core_junk.bats judge them in the
# default mode, where the session guard hides a gate opened too early):
# with the gate alone, the junk written after the event is on stderr and
# the gate opened by the reader named, after the first message's bytes.
# Each row: CALL SEND CORE-SRV-MODE... [-- CLIENT-OPTION...]; SEND is
# "line" ($INIT, newline) or "ws" (a newline and blanks first).
early() {
    local call=$1 send=$2 args=() opts=()
    shift 2
    while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    opts=("$@")
    JUNK=("after-${args[-1]}-junk")
    case ${args[-1]} in nonblock) JUNK=(after-eagain-junk) ;; handshake0) JUNK=(after-open0-junk) ;;
        readfile) JUNK=(after-config-junk) ;; esac
    local -x STDIOGATE_GUARD=0
    if [ "$send" = ws ]; then
        diverted --send $'\n  '"$INIT"$'\n' "${opts[@]}" -- "$BIN/core_srv" "${args[@]}"
        assert_gate_opened_by "$call" $((INIT_BYTES + 3))
    else
        diverted --line "$INIT" "${opts[@]}" -- "$BIN/core_srv" "${args[@]}"
        assert_gate_opened_by "$call" "$INIT_BYTES"
    fi
    assert_frames "$(answer 0 initialize)"
}

@test "families: nothing that reads no byte of the message opens the gate (EAGAIN, fgets' EAGAIN, a 0-byte read, a peek, ungetc, another file, popen, STDIOGATE_OPEN=0), --gate-only" {
    row_table early \
        "read line read nonblock -- --wait-err core-srv-probed" \
        "fgets line fgets nbfgets -- --wait-err core-srv-probed" \
        "read line read zeroread" \
        "read line read peek -- --sockets" \
        "fgets ws fgets ungetc" \
        "read line read readfile" \
        "fgets line fgets popen" \
        "read line read handshake0"
}
