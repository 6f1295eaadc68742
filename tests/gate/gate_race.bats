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
