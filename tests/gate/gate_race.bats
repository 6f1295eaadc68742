#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# An answer written by another thread while the gate is opening.  The
# opening flushes C stdio's stdout to the diversion and waits (bounded) for
# the helper: with stderr not read yet, that takes until the helper's stall
# rule (5 s), and a write to the diversion meanwhile used to go to stderr,
# the answer lost and the client waiting.  It waits now until fd 1 is the
# wire (tests/fixtures/gate_race.c says how the window is made).

load ../helpers

# race [--wrapped] [ARG]: gate_race ARG under late_stderr_client.py,
# through ./stdiogate with --wrapped.
race() {
    local wrap=()
    if [ "${1:-}" = --wrapped ]; then
        wrap=("$ROOT/stdiogate")
        shift
    fi
    result=$(INIT=$INIT timeout 120 "$PYTHON" "$FIX/late_stderr_client.py" --out "$OUT" --err "$ERR" \
        -- "${wrap[@]}" "$BIN/gate_race" "$@")
}

@test "gate race: an answer written by a second thread while the gate opens reaches the wire" {
    local ans='{"jsonrpc":"2.0","id":0,"result":{"by":"thread"}}'
    race
    [ "$result" = "status 0" ] || { echo "unwrapped: $result" >&2; false; }
    grep -q '^race-startup-junk' "$OUT"
    grep -qxF "$ans" "$OUT"
    race --wrapped
    echo "$result"; grep -v '^race-startup-junk' "$ERR" | cut -c1-200 | head -20 || true
    [ "$result" = "status 0" ]
    [ "$(cat "$OUT")" = "$ans" ]
    grep -q '^race-startup-junk' "$ERR"
    ! grep -q '"result"' "$ERR" || false
}

@test "gate race: an answer written while the gate's opening flushes a large stdio buffer (the fail-safe's lock held for seconds) waits for the wire, and reaches it" {
    local ans='{"jsonrpc":"2.0","id":0,"result":{"by":"thread"}}'
    race buffered
    [ "$result" = "status 0" ] || { echo "unwrapped: $result" >&2; false; }
    grep -q '^race-startup-junk' "$OUT"
    grep -qF "$ans" "$OUT"
    race --wrapped buffered
    echo "$result"; grep -v '^race-startup-junk' "$ERR" | cut -c1-200 | head -20 || true
    [ "$result" = "status 0" ]
    [ "$(cat "$OUT")" = "$ans" ]
    grep -q '^race-startup-junk' "$ERR"
    ! grep -q '"result"' "$ERR" || false
}

# The opening waits (at most 2 s) for the helper to pass the startup junk
# on, fd 1 still the diversion; the helper is stopped until the second
# thread has written its answer (gate_race drain).  The answer must wait
# for the wire, not go into the diversion: it would reach stderr, and the
# client would wait for ever.  (A log file makes the helper start at once,
# so that the client can stop it before the server writes anything.)
@test "gate race: an answer written by a second thread while the opening waits for the helper waits for the wire, and reaches it" {
    local ans='{"jsonrpc":"2.0","id":0,"result":{"by":"thread"}}'
    ungated --line "$INIT" -- "$BIN/gate_race" drain
    assert_status 0
    assert_stdout_has race-startup-junk "$ans"
    STDIOGATE_LOG="$BATS_TEST_TMPDIR/junk.log" STDIOGATE_DEBUG=3 gated --timeout 60 \
        --stop-helper race-thread-wrote --line "$INIT" -- "$BIN/gate_race" drain
    assert_status 0
    assert_stdout_bytes "$ans"$'\n'
    assert_stderr_has "waiting for the helper to pass on 6400 bytes" race-thread-wrote
    assert_stderr_lacks '"result"'
    [ "$(grep -c '^race-startup-junk' "$ERR")" = 100 ] || { show_run; false; }
}
