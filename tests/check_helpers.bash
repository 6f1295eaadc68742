# SPDX-License-Identifier: MIT
# check_helpers.bash - helpers for tests/check/check_*.bats (stdiogate --check).
#
#   ROOT, GATE (./stdiogate), SRV (tests/bin/check_srv: see its usage)
#   check ARG...       runs `stdiogate --check --json ARG...` (bounded by
#                      timeout), leaves the document in $BATS_TEST_TMPDIR/check.json,
#                      its stderr in check.err; sets $status; fails if stdout
#                      is not one JSON document
#   check_text ARG...  the same without --json: the report in $output (check.txt)
#   q [-c] FILTER      jq -r FILTER on check.json
#   expect NAME WANT GOT   compares, printing both on failure
#   show_check         prints the last report and stderr (on failure)

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GATE=$ROOT/stdiogate
SRV=$ROOT/tests/bin/check_srv
# Bounds a whole check: a hang fails the test instead of hanging the suite.
CHECK_BOUND=180

check() {
    status=0
    timeout "$CHECK_BOUND" "$GATE" --check --json "$@" >"$BATS_TEST_TMPDIR/check.json" \
        2>"$BATS_TEST_TMPDIR/check.err" || status=$?
    jq -e . "$BATS_TEST_TMPDIR/check.json" >/dev/null || { show_check; return 1; }
}

check_text() {
    status=0
    timeout "$CHECK_BOUND" "$GATE" --check "$@" >"$BATS_TEST_TMPDIR/check.txt" \
        2>"$BATS_TEST_TMPDIR/check.err" || status=$?
    output=$(cat "$BATS_TEST_TMPDIR/check.txt")
}

q() {
    jq -r "$@" "$BATS_TEST_TMPDIR/check.json"
}

expect() {
    if [ "$2" != "$3" ]; then
        echo "$1: expected [$2], got [$3]"
        show_check
        return 1
    fi
}

show_check() {
    echo "--- status $status"
    cut -c1-2000 "$BATS_TEST_TMPDIR/check.json" 2>/dev/null
    cut -c1-2000 "$BATS_TEST_TMPDIR/check.txt" 2>/dev/null
    echo "--- stderr"
    cut -c1-2000 "$BATS_TEST_TMPDIR/check.err" 2>/dev/null
}
