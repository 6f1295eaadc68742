#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# An answer written by another thread while the gate is opening.  The
# opening flushes C stdio's stdout to the diversion and waits (bounded) for
# the helper: with stderr not read yet, that takes until the helper's stall
# rule (5 s), and a write to the diversion meanwhile used to go to stderr,
# the answer lost and the client waiting.  It waits now until fd 1 is the
# wire (tests/fixtures/gate_race.c says how the window is made).

load helpers

race() {
    result=$(INIT=$INIT timeout 120 "$PYTHON" "$FIX/late_stderr_client.py" --out "$OUT" --err "$ERR" \
        -- "$@" "$BIN/gate_race")
}

@test "gate race: an answer written by a second thread while the gate opens reaches the wire" {
    local ans='{"jsonrpc":"2.0","id":0,"result":{"by":"thread"}}'
    race
    [ "$result" = "status 0" ] || { echo "unwrapped: $result" >&2; false; }
    grep -q '^race-startup-junk' "$OUT"
    grep -qxF "$ans" "$OUT"
    race "$ROOT/stdiogate"
    echo "$result"; grep -v '^race-startup-junk' "$ERR" | cut -c1-200 | head -20 || true
    [ "$result" = "status 0" ]
    [ "$(cat "$OUT")" = "$ans" ]
    grep -q '^race-startup-junk' "$ERR"
    ! grep -q '"result"' "$ERR" || false
}
