# SPDX-License-Identifier: MIT
# The doctor's test files (tests/doctor/): running it, showing a run.

# doctor ARG...: stdiogate --check ARG... (bounded); stdout in $output and
# out.txt, stderr in err.txt, the exit status in $status.
doctor() {
    status=0
    timeout "$CHECK_BOUND" "$GATE" --check "$@" >"$BATS_TEST_TMPDIR/out.txt" \
        2>"$BATS_TEST_TMPDIR/err.txt" || status=$?
    output=$(cat "$BATS_TEST_TMPDIR/out.txt")
}

show() {
    echo "--- status $status"
    cat "$BATS_TEST_TMPDIR/out.txt"
    echo "--- stderr"
    cat "$BATS_TEST_TMPDIR/err.txt"
}
