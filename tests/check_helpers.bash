# SPDX-License-Identifier: MIT
# check_helpers.bash - helpers for tests/check/check_*.bats (stdiogate --check).
#
#   ROOT, GATE (./stdiogate), SRV (tests/bin/check_srv: see its usage)
#   run_check OUT ERR ARG...  `stdiogate --check ARG...` (bounded), its
#                      output in $BATS_TEST_TMPDIR/OUT and ERR; sets $status
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

# run_check OUT ERR ARG...: stdiogate --check ARG..., bounded; its stdout
# in $BATS_TEST_TMPDIR/OUT, its stderr in .../ERR, its exit status in $status.
run_check() {
    local out=$BATS_TEST_TMPDIR/$1 err=$BATS_TEST_TMPDIR/$2
    shift 2
    status=0
    timeout "$CHECK_BOUND" "$GATE" --check "$@" >"$out" 2>"$err" || status=$?
}

check() {
    run_check check.json check.err --json "$@"
    jq -e . "$BATS_TEST_TMPDIR/check.json" >/dev/null || { show_check; return 1; }
}

check_text() {
    run_check check.txt check.err "$@"
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
