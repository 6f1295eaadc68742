# SPDX-License-Identifier: MIT
# The doctor's test files (tests/doctor/): its HOME, running it, showing a run.

# doctor_home: the fixture HOME (tests/fixtures/doctor/home, every client's
# files) copied to $H ($BATS_TEST_TMPDIR/home) with its @HOME@ filled in;
# HOME, CHECK_PIDS and PATH exported (check_srv found through it, as a
# client finds a server); the current directory its project (work/app).
doctor_home() {
    [ -x "$SRV" ] && [ -x "$ROOT/stdiogate-check" ] && [ -x "$ROOT/stdiogate-filter" ] || {
        echo "run 'make all fixtures' first" >&2
        return 1
    }
    H=$BATS_TEST_TMPDIR/home
    cp -a "$ROOT/tests/fixtures/doctor/home" "$H"
    grep -rl @HOME@ "$H" | xargs sed -i "s|@HOME@|$H|g"
    export HOME=$H PATH=$ROOT/tests/bin:$PATH CHECK_PIDS=$BATS_TEST_TMPDIR/pids
    unset XDG_CONFIG_HOME CODEX_HOME COPILOT_HOME
    cd "$H/work/app" || return 1
}

# doctor ARG...: stdiogate --check ARG... (bounded); stdout in $output and
# out.txt, stderr in err.txt, the exit status in $status.
doctor() {
    run_check out.txt err.txt "$@"
    output=$(cat "$BATS_TEST_TMPDIR/out.txt")
}

# (status: set by run_check, in tests/check_helpers.bash, loaded before this file)
# shellcheck disable=SC2154
show() {
    echo "--- status $status"
    cat "$BATS_TEST_TMPDIR/out.txt"
    echo "--- stderr"
    cat "$BATS_TEST_TMPDIR/err.txt"
}
