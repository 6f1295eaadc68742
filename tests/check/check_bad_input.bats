#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# stdiogate --check against bad input: a server that never answers, one that
# floods stdout, closes it, exits at once, needs arguments; a COMMAND that is
# not there or not executable; Ctrl-C during a check.  Every process a run
# started is gone when the check ends.

load ../check_helpers

setup() {
    [ -x "$SRV" ] && [ -x "$ROOT/stdiogate-check" ] || {
        echo "run 'make all fixtures' first" >&2
        return 1
    }
    cd "$BATS_TEST_TMPDIR" || return 1
}

# all_gone FILE: no pid listed in FILE is alive.
all_gone() {
    local pid
    [ -s "$1" ] || { echo "no pids recorded in $1"; return 1; }
    while read -r pid; do
        if kill -0 "$pid" 2>/dev/null; then
            echo "process $pid is still alive: $(cat "/proc/$pid/cmdline" 2>/dev/null | tr '\0' ' ')"
            return 1
        fi
    done <"$1"
}

@test "check: a server that never answers: timed out, status 5, its process group and its daemon killed; no run under stdiogate (issue 44)" {
    CHECK_PIDS=$BATS_TEST_TMPDIR/pids check --timeout 1 --linger 0 -- "$SRV" silent noexit daemon
    expect status 5 "$status"
    expect outcome no_answer "$(q .runs[0].requests[0].outcome)"
    expect reason timeout "$(q .runs[0].requests[0].reason)"
    expect late null "$(q .runs[0].requests[0].late_ms)"
    expect answer_timeout true "$(q .runs[0].exit.answer_timeout)"
    expect exit_timeout true "$(q .runs[0].exit.exit_timeout)"
    expect killed true "$(q .runs[0].exit.killed_by_check)"
    # no answer at all unwrapped: the runs under stdiogate would only wait as long
    expect ran "true false false" "$(q '[.runs[].ran | tostring] | join(" ")')"
    [[ "$(q .runs[1].note)" == "the unwrapped run got no answer at all (in 1s, and 1s more for a late one): this run would wait as long for nothing" ]]
    # the daemon (its own session, not in the group) counts as left behind
    expect leftovers 1 "$(q .runs[0].exit.leftover_processes)"
    expect summary "no answer within 1 s" "$(q .verdict.summary)"
    expect fixed_by null "$(q .verdict.fixed_by)"
    expect config null "$(q .verdict.config)"
    [[ "$(q .verdict.advice)" == "raise --timeout, or look at its stderr"* ]]
    # no --protocol: a Content-Length frame was tried too, and said
    expect protocol "mcp default" "$(q '"\(.protocol) \(.protocol_source)"')"
    expect note "MCP, the default; a Content-Length frame (LSP) got no answer either" "$(q .protocol_note)"
    # two tries (a JSON line, a frame), each a server and a daemon: four pids, all gone
    expect pids 4 "$(wc -l <"$BATS_TEST_TMPDIR/pids")"
    all_gone "$BATS_TEST_TMPDIR/pids"
    # with --protocol, one run only: two pids
    CHECK_PIDS=$BATS_TEST_TMPDIR/pids1 check --timeout 1 --linger 0 --protocol mcp -- "$SRV" silent noexit daemon
    expect given_status 5 "$status"
    expect given_ran "true false false" "$(q '[.runs[].ran | tostring] | join(" ")')"
    expect given_pids 2 "$(wc -l <"$BATS_TEST_TMPDIR/pids1")"
    all_gone "$BATS_TEST_TMPDIR/pids1"
    check_text --timeout 1 --linger 0 -- "$SRV" silent noexit
    expect status 5 "$status"
    [[ "$output" == *"initialize 1: NO ANSWER (timeout)"$'\n'* ]]
    [[ "$output" == *"did not exit within 1s after its stdin was closed: killed"* ]]
    [[ "$output" == *"verdict (exit status 5): no answer within 1 s."* ]]
    [[ "$output" != *"stray"* && "$output" != *"never made"* ]]
}

# A launcher that stays the server's parent (sh -c without exec, as npx,
# uv run and npm's sh -c do) over a server that does not exit when its stdin
# closes: at --timeout the whole process group gets SIGTERM, so the server
# ends with its launcher and nothing is left behind.  (SIGTERM to the
# launcher alone ended the shell and left the server running: a leftover,
# killed at the end, that a clean group SIGTERM never has.)
@test "check: a launcher (sh -c, not exec) over a server that does not exit at the end of its input: the group gets SIGTERM, nothing left behind" {
    CHECK_PIDS=$BATS_TEST_TMPDIR/pids check --timeout 1 --linger 0 -- sh -c '"$0" noexit; echo "launcher: server ended" >&2' "$SRV"
    expect status 0 "$status"
    expect ran "true true true" "$(q '[.runs[].ran | tostring] | join(" ")')"
    expect exit_timeout "true true true" "$(q '[.runs[].exit.exit_timeout | tostring] | join(" ")')"
    expect signal "15 15 15" "$(q '[.runs[].exit.signal | tostring] | join(" ")')"
    expect leftovers "0 0 0" "$(q '[.runs[].exit.leftover_processes | tostring] | join(" ")')"
    expect named "[]" "$(q -c '[.runs[].exit.leftovers[]]')"
    expect pids 3 "$(wc -l <"$BATS_TEST_TMPDIR/pids")"
    all_gone "$BATS_TEST_TMPDIR/pids"
}

# The group's SIGTERM reaches every process at once, but each dies in its own
# time: the launcher first, then a child that cleans up on SIGTERM (here a
# shell that takes 0.5 s).  Only a process still alive a moment after the
# SIGTERM is left behind; before, with --linger 0 (the doctor's), a child on
# its way out was counted at the launcher's exit (now and then, on a loaded
# machine, even the server itself: a false "left 1 process running").
@test "check: after the group's SIGTERM, a child that takes a moment to exit (0.5 s of cleanup) is not left behind, --linger 0 or not" {
    cat >"$BATS_TEST_TMPDIR/cleanup.sh" <<'EOF'
#!/bin/sh
# a child that cleans up for 0.5 s on SIGTERM, over the server; it holds
# none of the run's pipes (the check sees their end when the server dies)
trap 'sleep 0.5; exit 0' TERM
exec 3<&0   # (a job started with & reads /dev/null unless given its input)
"$1" noexit <&3 3<&- &
echo "$$" >>"$CHECK_PIDS"
exec 3<&- </dev/null >/dev/null 2>&1
wait
EOF
    chmod +x "$BATS_TEST_TMPDIR/cleanup.sh"
    CHECK_PIDS=$BATS_TEST_TMPDIR/pids check --timeout 1 --linger 0 -- sh -c '"$0" "$1"; echo "launcher: ended" >&2' \
        "$BATS_TEST_TMPDIR/cleanup.sh" "$SRV"
    expect status 0 "$status"
    expect exit_timeout "true true true" "$(q '[.runs[].exit.exit_timeout | tostring] | join(" ")')"
    expect leftovers "0 0 0" "$(q '[.runs[].exit.leftover_processes | tostring] | join(" ")')"
    expect named "[]" "$(q -c '[.runs[].exit.leftovers[]]')"
    # the cleaning shells and the servers: each run's two
    expect pids 6 "$(wc -l <"$BATS_TEST_TMPDIR/pids")"
    all_gone "$BATS_TEST_TMPDIR/pids"
}

@test "check: a launcher that fetches packages (npx) and never answers: the advice names the cache" {
    mkdir bin
    printf '#!/bin/sh\nexec "$@"\n' >bin/npx
    chmod +x bin/npx
    PATH=$PWD/bin:$PATH check_text --timeout 0.5 --linger 0 -- npx "$SRV" silent
    expect status 5 "$status"
    [[ "$output" == *"verdict (exit status 5): no answer within 0.5 s."$'\n'"raise --timeout, or run it again once npx has cached the package."* ]]
}

@test "check: an answer after --timeout in every run: timing (status 5, 'slow: the answer took'), not junk, not stray" {
    check --timeout 1 --linger 0 -- "$SRV" slow=2000
    expect status 5 "$status"
    expect outcomes "no_answer no_answer no_answer" "$(q '[.runs[].requests[0].outcome] | join(" ")')"
    # the late answer is the answer to the request made, not a stray one
    expect stray "0 0 0" "$(q '[.runs[].stray_answers | tostring] | join(" ")')"
    expect late "true true true" "$(q '[.runs[].requests[0].late_ms >= 2000 | tostring] | join(" ")')"
    [[ "$(q .verdict.summary)" =~ ^"slow: the answer took "[0-9]+\.[0-9]" s (--timeout 1)"$ ]]
    expect advice "raise --timeout and check again" "$(q .verdict.advice)"
    expect config null "$(q .verdict.config)"
    check_text --timeout 1 --linger 0 -- "$SRV" slow=2000
    [[ "$output" == *"initialize 1: NO ANSWER (timeout), a late answer after "* ]]
    [[ "$output" != *"never made"* && "$output" != *"non-protocol"* ]]
}

@test "check: runs that disagree only in timing (two slow, the third in time): timing, status 5, no --strict advice" {
    CHECK_RUNS=$BATS_TEST_TMPDIR/runs check --timeout 1 --linger 0 -- "$SRV" slow=2000 slowruns=12
    expect status 5 "$status"
    expect clean "false false true" "$(q '[.runs[].clean | tostring] | join(" ")')"
    expect fixed_by null "$(q .verdict.fixed_by)"
    [[ "$(q .verdict.summary)" == "slow: the answer took "* ]]
    [[ "$(q .verdict.summary)$(q .verdict.advice)" != *"strict"* ]]
    # junk in the slow runs is named, but not judged
    rm "$BATS_TEST_TMPDIR/runs"
    CHECK_RUNS=$BATS_TEST_TMPDIR/runs check --timeout 1 --linger 0 -- "$SRV" banner slow=2000 slowruns=12
    expect status 5 "$status"
    [[ "$(q .verdict.summary)" == *"; it also wrote 20 bytes of non-protocol output (20 before the first message), to be judged once it answers in time" ]]
    # only the strongest run slow: the verdict stands, with a note that it is timing
    rm "$BATS_TEST_TMPDIR/runs"
    CHECK_RUNS=$BATS_TEST_TMPDIR/runs check --timeout 1 --linger 0 -- "$SRV" slow=2000 slowruns=3
    expect status 0 "$status"
    expect notes "the --strict run got no answer within 1s: timing, not junk (raise --timeout)" "$(q '.verdict.notes | join("|")')"
}

@test "check: leftovers: a clean server (default mode, strict mode) leaves nothing, stdiogate's own helpers are not counted (#25)" {
    # stderr: the default mode's drain helper runs; the strict run has its filter
    check --linger 0 -- "$SRV" stderr
    expect status 0 "$status"
    expect leftovers "0 0 0" "$(q '[.runs[].exit.leftover_processes | tostring] | join(" ")')"
    expect named "[]" "$(q -c '[.runs[].exit.leftovers[]]')"
    check_text --linger 0 -- "$SRV" stderr
    [[ "$output" != *"left "* ]]
}

@test "check: leftovers: a real child left behind is named (pid and command); a slow exit within the linger is not one (#25)" {
    CHECK_PIDS=$BATS_TEST_TMPDIR/pids check --linger 0 -- "$SRV" sleeper
    expect status 0 "$status"
    expect leftovers "1 1 1" "$(q '[.runs[].exit.leftover_processes | tostring] | join(" ")')"
    expect names "sleep sleep sleep" "$(q '[.runs[].exit.leftovers[].name] | join(" ")')"
    # the pid named is the sleeper's (the second pid each run recorded), and it is gone
    expect pids "$(sed -n 2p pids) $(sed -n 4p pids) $(sed -n 6p pids)" "$(q '[.runs[].exit.leftovers[].pid | tostring] | join(" ")')"
    all_gone "$BATS_TEST_TMPDIR/pids"
    check_text --linger 0 -- "$SRV" sleeper
    [[ "$output" =~ "left 1 process running, killed: pid "[0-9]+" (sleep)" ]]
    # a child that exits 200 ms after the server: its own slow exit, within the linger
    check --linger 2 -- "$SRV" slowchild
    expect status 0 "$status"
    expect slow_exit "0 0 0" "$(q '[.runs[].exit.leftover_processes | tostring] | join(" ")')"
}

@test "check: 100 MiB on stdout: every byte counted, memory bounded, the stretch list truncated with a count" {
    check --timeout 60 --linger 0 -- "$SRV" flood many
    # the default mode keeps both off the wire: the flood before the first message, the lines after it
    expect status 1 "$status"
    expect fixed_by gated "$(q .verdict.fixed_by)"
    expect junk_before 104857601 "$(q .runs[0].stdout.junk.before_first_message)"
    expect stdout_bytes_over_100MiB true "$(q '.runs[0].stdout.bytes > 104857600')"
    # 1 flood stretch + 40 junk lines between notifications: 16 kept, 25 counted
    expect listed 16 "$(q '.runs[0].stdout.stretches | length')"
    expect omitted 25 "$(q .runs[0].stdout.stretches_omitted)"
    expect omitted_bytes $((25 * 27)) "$(q .runs[0].stdout.bytes_omitted)"
    expect first_bytes '{xxxxxxxx' "$(q '.runs[0].stdout.stretches[0].first_bytes[0:9]')"
    expect answers "result result result result" "$(q '[.runs[0].requests[].outcome] | join(" ")')"
    # the gate kept the flood off the wire, sending it to stderr, and the guard the 40 lines
    expect gated_before 0 "$(q .runs[1].stdout.junk.before_first_message)"
    expect gated_serving 0 "$(q .runs[1].stdout.junk.serving)"
    expect gated_notifications 40 "$(q .runs[1].stdout.notifications)"
    expect gated_stderr '{xxxxxxxx' "$(q '.runs[1].stderr.first_bytes[0:9]')"
    # nothing lost: the check reads stderr all along, so the drain drops nothing
    expect dropped 0 "$(q .runs[1].stderr.dropped_by_stdiogate)"
    expect all_on_stderr true "$(q '.runs[1].stderr.bytes >= 104857601 + 40 * 27')"
    # far below the 100 MiB it read (a line is never kept whole)
    [ "$(q .self.max_rss_kib)" -lt 65536 ] || { show_check; return 1; }
    check_text --timeout 60 --linger 0 -- "$SRV" flood many
    # the text lists 5: the flood and 4 lines
    [[ "$output" == *"... and 36 more stretches (972 bytes), not listed"* ]]
    [[ "$output" == *"104858681 bytes of non-protocol output in 41 stretches"* ]]
}

@test "check: a server that closes stdout at once: status 4, 'closed its stdout before it answered'" {
    check --timeout 5 --linger 0 -- "$SRV" closeout
    expect status 4 "$status"
    expect reason "stdout closed" "$(q .runs[0].requests[0].reason)"
    expect closed true "$(q .runs[0].stdout.closed)"
    [[ "$(q .verdict.summary)" == *"closed its stdout before it answered"* ]]
}

@test "check: a server that exits at once: status 4, its exit status reported" {
    check --timeout 5 --linger 0 -- "$SRV" exit
    expect status 4 "$status"
    expect exit 0 "$(q .runs[0].exit.status)"
    expect early true "$(q .runs[0].exit.before_stdin_closed)"
    [[ "$(q .verdict.summary)" == *"exited before it answered"* ]]
    # an exit is no timeout: the runs under stdiogate are run too, and exit
    # as it did (ind7-check-skip-after-exit: not run, with a note that the
    # unwrapped run got no answer in time)
    expect wrapped_ran "true true" "$(q '[.runs[1:][] | .ran | tostring] | join(" ")')"
    expect wrapped_notes "null null" "$(q '[.runs[1:][] | .note | tostring] | join(" ")')"
    expect wrapped_exits "0 0" "$(q '[.runs[1:][] | .exit.status | tostring] | join(" ")')"
    check --timeout 5 --linger 0 -- false
    expect false_status 4 "$status"
    expect false_exit 1 "$(q .runs[0].exit.status)"
}

# (coverage round 2 of 2026-12-07: no server died of a signal.)
@test "check: a server killed by a signal before it answers: status 4, the signal named (JSON and text)" {
    check --timeout 5 --linger 0 -- sh -c 'kill -TERM $$'
    expect status 4 "$status"
    expect exit_status null "$(q .runs[0].exit.status)"
    expect signal 15 "$(q .runs[0].exit.signal)"
    expect text "killed by signal 15 (Terminated)" "$(q .runs[0].exit.text)"
    [[ "$(q .verdict.summary)" == *"exited before it answered"* ]]
    check_text --timeout 5 --linger 0 -- sh -c 'kill -TERM $$'
    [[ "$output" == *"killed by signal 15 (Terminated)"* ]] || { echo "$output"; false; }
}

@test "check: a server that needs arguments and fails: status 4, its exit status and stderr shown" {
    check --timeout 5 --linger 0 -- "$SRV" needargs
    expect status 4 "$status"
    expect exit 2 "$(q .runs[0].exit.status)"
    expect stderr 'usage: check_srv needargs -- FILE\n' "$(q .runs[0].stderr.first_bytes)"
    check_text --timeout 5 --linger 0 -- "$SRV" needargs
    [[ "$output" == *'stderr begins: "usage: check_srv needargs -- FILE\n"'* ]]
    [[ "$output" == *"exited with status 2 before its stdin was closed"* ]]
    # given its argument it is a clean server
    check --linger 0 -- "$SRV" needargs -- file
    expect with_args 0 "$status"
}

# A #! script with Windows line ends: the kernel looks for "/bin/sh\r".
# The report says so, and prints no raw carriage return (a terminal would
# show the line garbled).
@test "check: a #! script with Windows line ends: status 4, the carriage return named, none in the report" {
    printf '#!/bin/sh\r\necho hi\r\n' >crlf
    chmod +x crlf
    check --linger 0 -- ./crlf
    expect status 4 "$status"
    expect summary "the server could not be started: No such file or directory (its #! line ends in a carriage return: the file has Windows line ends)" "$(q .verdict.summary)"
    expect interpreter '"/bin/sh\r"' "$(jq -c .program.script_interpreter "$BATS_TEST_TMPDIR/check.json")"
    check_text --linger 0 -- ./crlf
    expect text_status 4 "$status"
    grep -qxF "program: ./crlf: a #! script run by /bin/sh^M (Windows line ends); not an ELF program" check.txt || { show_check; false; }
    ! grep -q $'\r' check.txt || { echo "a carriage return in the report"; show_check; false; }
}

@test "check: COMMAND not found or not executable: status 4, nothing run" {
    check -- no-such-command-xyz
    expect status 4 "$status"
    expect ran "false false false" "$(q '[.runs[].ran | tostring] | join(" ")')"
    [[ "$(q .verdict.summary)" == *"command not found"* ]]
    printf '#!/bin/sh\n' >not-executable
    chmod 644 not-executable
    check -- ./not-executable
    expect not_executable 4 "$status"
    [[ "$(q .verdict.summary)" == *"not executable"* ]]
    check_text -- no-such-command-xyz
    [[ "$output" == *"verdict (exit status 4): the server could not be started: command not found"* ]]
}

@test "check: Ctrl-C during a check: the server and its daemon are killed, the check dies of SIGINT" {
    mkfifo started
    CHECK_PIDS=$BATS_TEST_TMPDIR/started "$GATE" --check --timeout 60 -- "$SRV" silent noexit daemon \
        >out 2>err &
    local check_pid=$!
    # the fixture writes its pid and its daemon's once both run
    timeout 30 cat started >pids
    expect pids 2 "$(wc -l <pids)"
    kill -INT "$check_pid"
    timeout 30 tail --pid="$check_pid" -f /dev/null
    local rc=0
    wait "$check_pid" || rc=$?
    expect status 130 "$rc"
    grep -q "interrupted; the server's processes were killed" err
    [ ! -s out ]
    all_gone pids
}

@test "check: a command of 71 arguments: the configuration printed (JSON and text) keeps every one (issue 44)" {
    local args=() i
    for i in $(seq 1 68); do args+=("a$i"); done
    # COMMAND: SRV banner -- a1 ... a68, 71 words in all
    check --linger 0 -- "$SRV" banner -- "${args[@]}"
    expect status 1 "$status"
    expect nargs 71 "$(q '.verdict.config.args | length')"
    expect last a68 "$(q '.verdict.config.args[-1]')"
    expect first "$SRV" "$(q '.verdict.config.args[0]')"
    check_text --linger 0 -- "$SRV" banner -- "${args[@]}"
    [[ "$output" == *'"a67", "a68"]' ]] || { show_check; false; }
}

@test "check on a terminal: stderr says what each run is doing as it goes; nothing more on a pipe, the report the same (issue 44)" {
    # sleep never answers: the first try, the wait for a late answer, the kill, the frame tried, the runs not run
    script -qec "'$GATE' --check --timeout 1 --linger 0 -- sleep 1000 >report.txt" /dev/null >tty.txt || true
    tr -d '\r' <tty.txt >said.txt
    local want=(
        "stdiogate --check: run 1 of 3, unwrapped (MCP): started; waiting up to 1s for the answer to initialize"
        "stdiogate --check: run 1: no answer to initialize within 1s; waiting 1s more for a late one"
        "stdiogate --check: run 1: still running 1s after its stdin was closed: killing it"
        "stdiogate --check: run 1: a JSON line (MCP) got no answer: trying a Content-Length frame (LSP)"
        "stdiogate --check: run 1 of 3, unwrapped (LSP): started; waiting up to 1s for the answer to initialize"
        "stdiogate --check: no answer at all: the runs under stdiogate are not run (they would wait as long)"
    ) line
    for line in "${want[@]}"; do
        grep -qxF "$line" said.txt || { echo "not said: $line"; cat said.txt; false; }
    done
    # the report itself went to stdout, whole, with none of it
    grep -q '^verdict (exit status 5): no answer within 1 s\.$' report.txt
    ! grep -q 'stdiogate --check: run' report.txt || false
    # a clean server: each run started and done
    script -qec "'$GATE' --check --linger 0 -- '$SRV' >report2.txt" /dev/null >tty2.txt || true
    tr -d '\r' <tty2.txt >said2.txt
    for line in "run 1 of 3, unwrapped (MCP): started" "run 2 of 3, default mode (MCP): started" \
                "run 3 of 3, --strict (MCP): started" "run 3: done in "; do
        grep -qF "stdiogate --check: $line" said2.txt || { echo "not said: $line"; cat said2.txt; false; }
    done
    # not a terminal: no progress on stderr, the same report
    check_text --linger 0 -- "$SRV"
    [ ! -s "$BATS_TEST_TMPDIR/check.err" ] || { cat "$BATS_TEST_TMPDIR/check.err"; false; }
    diff <(sed 's/after [0-9.]* ms/after N ms/' report2.txt) <(sed 's/after [0-9.]* ms/after N ms/' "$BATS_TEST_TMPDIR/check.txt")
}
