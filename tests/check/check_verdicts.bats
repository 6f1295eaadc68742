#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# stdiogate --check: one fixture server (tests/fixtures/check_srv.c) per
# verdict and exit status, MCP, LSP and DAP; the --json fields and the text
# report.  Each junk test also asserts where the junk went in the other runs
# (the default mode puts it on stderr, --strict too), so that a check that
# saw nothing could not pass.  Status 2 (junk the default mode lets through)
# comes from junk the library cannot see: check_srv's word raw writes it with
# syscall(SYS_write), as Go and static programs do; or from --gate-only.

bats_require_minimum_version 1.5.0

load ../check_helpers

setup() {
    [ -x "$SRV" ] && [ -x "$ROOT/stdiogate-check" ] || {
        echo "run 'make all fixtures' first" >&2
        return 1
    }
    # Strict mode is part of the build: the third run is expected.
    [ -x "$ROOT/stdiogate-filter" ] || { echo "stdiogate-filter is not built" >&2; return 1; }
    cd "$BATS_TEST_TMPDIR" || return 1
}

@test "check: a clean server: status 0, three clean runs, every request answered, no change needed" {
    check --linger 0 -- "$SRV"
    expect status 0 "$status"
    expect verdict 0 "$(q .verdict.status)"
    expect fixed_by unwrapped "$(q .verdict.fixed_by)"
    expect runs "unwrapped gated strict" "$(q '[.runs[].mode] | join(" ")')"
    expect clean "true true true" "$(q '[.runs[].clean | tostring] | join(" ")')"
    expect junk "0 0 0" "$(q '[.runs[].stdout.junk_bytes | tostring] | join(" ")')"
    # initialize, tools/list and resources/list (advertised), ping; no prompts/list
    expect methods "initialize tools/list resources/list ping" "$(q '[.runs[0].requests[].method] | join(" ")')"
    expect outcomes "result result result result" "$(q '[.runs[0].requests[].outcome] | join(" ")')"
    expect ping_id '"stdiogate-ping"' "$(q '.runs[0].requests[3].id')"
    expect exit 0 "$(q .runs[0].exit.status)"
    expect killed false "$(q .runs[0].exit.killed_by_check)"
    [ "$(q .runs[0].first_answer_ms)" != null ]
    expect config "$SRV" "$(q .verdict.config.command)"
    expect config_args 0 "$(q '.verdict.config.args | length')"
    expect gated_argv "$GATE -- $SRV" "$(q '.runs[1].argv | join(" ")')"
    expect strict_argv "$GATE --strict --protocol jsonl -- $SRV" "$(q '.runs[2].argv | join(" ")')"
    expect program_static false "$(q .program.static)"
    [[ "$(q .program.elf_interpreter)" == */ld-linux* ]]

    check_text --linger 0 -- "$SRV"
    expect text_status 0 "$status"
    [[ "$output" == *"run 1, unwrapped: $SRV"* ]]
    [[ "$output" == *"stdout: protocol only, 4 messages"* ]]
    [[ "$output" == *'ping "stdiogate-ping": answered'* ]]
    [[ "$output" == *"verdict (exit status 0): clean"* ]]
    [[ "$output" == *"\"command\": \"$SRV\", \"args\": []"* ]]
}

@test "check: a banner before the first message: status 1, fixed by the default mode, the junk on stderr" {
    check --linger 0 -- "$SRV" banner
    expect status 1 "$status"
    expect verdict 1 "$(q .verdict.status)"
    expect fixed_by gated "$(q .verdict.fixed_by)"
    # unwrapped: the banner on stdout, at offset 0, before the first message
    expect stretches 1 "$(q '.runs[0].stdout.stretches | length')"
    expect phase before_first_message "$(q .runs[0].stdout.stretches[0].phase)"
    expect offset 0 "$(q .runs[0].stdout.stretches[0].offset)"
    expect length 20 "$(q .runs[0].stdout.stretches[0].length)"
    expect first_bytes 'check_srv: starting\n' "$(q .runs[0].stdout.stretches[0].first_bytes)"
    expect junk_before 20 "$(q .runs[0].stdout.junk.before_first_message)"
    expect unwrapped_stderr 0 "$(q .runs[0].stderr.bytes)"
    # gated: nothing but protocol on stdout, the banner on stderr
    expect gated_clean true "$(q .runs[1].clean)"
    expect gated_junk 0 "$(q .runs[1].stdout.junk_bytes)"
    expect gated_stderr 'check_srv: starting\n' "$(q .runs[1].stderr.first_bytes)"
    expect gated_answers "result result result result" "$(q '[.runs[1].requests[].outcome] | join(" ")')"
    expect config_command "$(realpath "$GATE")" "$(q .verdict.config.command)"
    expect config_args "[\"$SRV\",\"banner\"]" "$(q -c .verdict.config.args)"

    check_text --linger 0 -- "$SRV" banner
    expect text_status 1 "$status"
    [[ "$output" == *'before the first message, offset 0, 20 bytes: "check_srv: starting\n"'* ]]
    [[ "$output" == *"verdict (exit status 1): 20 bytes of non-protocol output (20 before the first message); stdiogate's default mode keeps them off the wire"* ]]
    [[ "$output" == *"run 2, default mode: $GATE -- $SRV banner"* ]]
    [[ "$output" == *"\"command\": \"$(realpath "$GATE")\", \"args\": [\"$SRV\", \"banner\"]"* ]]
}

@test "check: through a launcher (sh -c): named as one, the gate follows the server, status 1" {
    check --linger 0 -- sh -c "echo launcher says hi; exec $SRV banner"
    expect status 1 "$status"
    expect launcher "a shell" "$(q .program.launcher)"
    expect first_bytes 'launcher says hi\ncheck_srv: starting\n' "$(q .runs[0].stdout.stretches[0].first_bytes)"
    expect gated_clean true "$(q .runs[1].clean)"
    expect config "[\"$(type -P sh)\",\"-c\",\"echo launcher says hi; exec $SRV banner\"]" "$(q -c .verdict.config.args)"
    check_text --linger 0 -- sh -c "echo launcher says hi; exec $SRV banner"
    [[ "$output" == *"a launcher (a shell): the server runs under it"* ]]
    [[ "$output" == *"run 1, unwrapped: sh -c 'echo launcher says hi; exec $SRV banner'"* ]]
}

@test "check: the printed entry names stdiogate by its real path and COMMAND as a client must (absolute) (#25)" {
    mkdir bin sub
    cp "$SRV" bin/srv
    ln -s "$GATE" sub/gate
    printf 'x\n' >data.txt
    # COMMAND found through PATH, a relative file argument, a package name, a -m module, an option
    cd sub
    PATH=$BATS_TEST_TMPDIR/bin:$PATH GATE=./gate check --linger 0 -- srv banner -- ../data.txt @scope/pkg -m data.txt --flag
    expect status 1 "$status"
    expect command "$(realpath "$GATE")" "$(q .verdict.config.command)"
    [[ "$(q .verdict.config.command)" == /* ]]
    expect args "[\"$BATS_TEST_TMPDIR/bin/srv\",\"banner\",\"--\",\"$BATS_TEST_TMPDIR/sub/../data.txt\",\"@scope/pkg\",\"-m\",\"data.txt\",\"--flag\"]" \
        "$(q -c .verdict.config.args)"
    # a clean server: no stdiogate, but COMMAND absolute too; ./ dropped
    cd ..
    check --linger 0 -- ./bin/srv
    expect status 0 "$status"
    expect command "$BATS_TEST_TMPDIR/bin/srv" "$(q .verdict.config.command)"
    check_text --linger 0 -- ./bin/srv banner
    [[ "$output" == *$'\n'"  \"command\": \"$(realpath "$GATE")\", \"args\": [\"$BATS_TEST_TMPDIR/bin/srv\", \"banner\"]" ]]
}

@test "check: junk glued to the first answer: answered but glued (real clients lose it), said in the run and the verdict, status 1" {
    check --linger 0 -- "$SRV" glued
    expect status 1 "$status"
    expect first_bytes Starting "$(q .runs[0].stdout.stretches[0].first_bytes)"
    expect length 8 "$(q .runs[0].stdout.junk_bytes)"
    expect outcomes "result result result result" "$(q '[.runs[0].requests[].outcome] | join(" ")')"
    expect glued "true false false false" "$(q '[.runs[0].requests[].glued_to_junk | tostring] | join(" ")')"
    expect gated_glued "false" "$(q '[.runs[1:][].requests[].glued_to_junk] | any | tostring')"
    expect gated_clean true "$(q .runs[1].clean)"
    [[ "$(q .verdict.summary)" == *"the answer to initialize glued to it on one line: real clients lose that answer"* ]]
    check_text --linger 0 -- "$SRV" glued
    [[ "$output" == *"initialize 1: answered but GLUED to the junk before it (no newline between): real clients lose this answer,"* ]]
    # a junk line with its newline before the answer: not glued
    check --linger 0 -- "$SRV" banner
    expect banner_glued "false" "$(q '[.runs[].requests[].glued_to_junk] | any | tostring')"
    [[ "$(q .verdict.summary)" != *glued* ]]
}

@test "check: a log line while serving: status 1, the default mode's guard sends it to stderr" {
    check --linger 0 -- "$SRV" serving
    expect status 1 "$status"
    expect fixed_by gated "$(q .verdict.fixed_by)"
    expect phase serving "$(q .runs[0].stdout.stretches[0].phase)"
    expect first_bytes 'log: handled tools/list\n' "$(q .runs[0].stdout.stretches[0].first_bytes)"
    expect length 24 "$(q .runs[0].stdout.junk.serving)"
    expect unwrapped_stderr 0 "$(q .runs[0].stderr.bytes)"
    # the default mode: the gate opened at the first message, the guard kept the line off the wire
    expect gated_junk 0 "$(q .runs[1].stdout.junk_bytes)"
    expect gated_clean true "$(q .runs[1].clean)"
    expect gated_stderr 'log: handled tools/list\n' "$(q .runs[1].stderr.first_bytes)"
    expect gated_answers "result result result result" "$(q '[.runs[1].requests[].outcome] | join(" ")')"
    # strict: the same
    expect strict_junk 0 "$(q .runs[2].stdout.junk_bytes)"
    expect strict_stderr 'log: handled tools/list\n' "$(q .runs[2].stderr.first_bytes)"
    expect config_command "$(realpath "$GATE")" "$(q .verdict.config.command)"
    expect config_args "[\"$SRV\",\"serving\"]" "$(q -c .verdict.config.args)"

    check_text --linger 0 -- "$SRV" serving
    expect text_status 1 "$status"
    [[ "$output" == *'while serving, offset '*', 24 bytes: "log: handled tools/list\n"'* ]]
    [[ "$output" == *"verdict (exit status 1): 24 bytes of non-protocol output (24 while serving); stdiogate's default mode keeps them off the wire"* ]]
    [[ "$output" == *$'\n'"run it under stdiogate:"$'\n'* ]]
    [[ "$output" == *"\"command\": \"$(realpath "$GATE")\", \"args\": [\"$SRV\", \"serving\"]"* ]]
    [[ "$output" != *'"--strict"'* ]]
}

@test "check: a log line written by a raw system call while serving: the library cannot see it, status 2, fixed by --strict" {
    check --linger 0 -- "$SRV" serving raw
    expect status 2 "$status"
    expect fixed_by strict "$(q .verdict.fixed_by)"
    expect phase serving "$(q .runs[0].stdout.stretches[0].phase)"
    expect first_bytes 'log: handled tools/list\n' "$(q .runs[0].stdout.stretches[0].first_bytes)"
    expect length 24 "$(q .runs[0].stdout.junk.serving)"
    # the default mode: the line went past the library, onto the wire, none on stderr
    expect gated_junk 24 "$(q .runs[1].stdout.junk.serving)"
    expect gated_first_bytes 'log: handled tools/list\n' "$(q .runs[1].stdout.stretches[0].first_bytes)"
    expect gated_clean false "$(q .runs[1].clean)"
    expect gated_stderr 0 "$(q .runs[1].stderr.bytes)"
    expect gated_answers "result result result result" "$(q '[.runs[1].requests[].outcome] | join(" ")')"
    # strict: stdout clean, the line on stderr
    expect strict_junk 0 "$(q .runs[2].stdout.junk_bytes)"
    expect strict_stderr 'log: handled tools/list\n' "$(q .runs[2].stderr.first_bytes)"
    expect config_args "[\"--strict\",\"--protocol\",\"jsonl\",\"$SRV\",\"serving\",\"raw\"]" "$(q -c .verdict.config.args)"
    [[ "$(q .verdict.summary)" == *"the default mode does not see all of it (written past the library, by raw system calls); --strict keeps them off the wire" ]]

    check_text --linger 0 -- "$SRV" serving raw
    expect text_status 2 "$status"
    [[ "$output" == *'while serving, offset '*', 24 bytes: "log: handled tools/list\n"'* ]]
    [[ "$output" == *"verdict (exit status 2)"*"--strict keeps them off the wire"* ]]
    [[ "$output" == *"\"args\": [\"--strict\", \"--protocol\", \"jsonl\", \"$SRV\", \"serving\", \"raw\"]"* ]]
}

@test "check: --gate-only (the gate alone): a log line while serving reaches the wire, status 2, fixed by --strict, the summary says why" {
    status=0
    timeout "$CHECK_BOUND" "$GATE" --gate-only --check --json --linger 0 -- "$SRV" serving \
        >"$BATS_TEST_TMPDIR/check.json" 2>"$BATS_TEST_TMPDIR/check.err" || status=$?
    expect status 2 "$status"
    expect default_mode gate "$(q .program.default_mode)"
    expect unwrapped_serving 24 "$(q .runs[0].stdout.junk.serving)"
    # the gate opened at the first message and nothing guards the wire after it
    expect gated_serving 24 "$(q .runs[1].stdout.junk.serving)"
    expect gated_clean false "$(q .runs[1].clean)"
    expect gated_stderr 0 "$(q .runs[1].stderr.bytes)"
    expect strict_clean true "$(q .runs[2].clean)"
    expect fixed_by strict "$(q .verdict.fixed_by)"
    expect summary "24 bytes of non-protocol output (24 while serving); with --gate-only (STDIOGATE_GUARD=0) the default mode guards only what comes before the first message; --strict keeps them off the wire" \
        "$(q .verdict.summary)"
    # the startup junk it does guard: still status 1
    status=0
    timeout "$CHECK_BOUND" "$GATE" --gate-only --check --json --linger 0 -- "$SRV" banner \
        >"$BATS_TEST_TMPDIR/check.json" 2>"$BATS_TEST_TMPDIR/check.err" || status=$?
    expect banner_status 1 "$status"
    expect banner_gated_clean true "$(q .runs[1].clean)"
}

@test "check: a static program's startup junk, --gate-only: the gate cannot enter it, status 2, fixed by --strict; facts say static" {
    STDIOGATE_AUTO_STRICT=0 check --linger 0 -- "$ROOT/tests/bin/tree_server_static"
    expect status 2 "$status"
    expect static true "$(q .program.static)"
    expect default_mode gate "$(q .program.default_mode)"
    expect elf_interpreter null "$(q .program.elf_interpreter)"
    [[ "$(q '.program.warnings[0]')" == *"is statically linked"* ]]
    expect before_unwrapped true "$(q '.runs[0].stdout.junk.before_first_message > 0')"
    expect before_gated true "$(q '.runs[1].stdout.junk.before_first_message > 0')"
    expect fixed_by strict "$(q .verdict.fixed_by)"
    [[ "$(q .verdict.summary)" == *"the library cannot guard this program's own stdout"* ]]
    STDIOGATE_AUTO_STRICT=0 check_text --linger 0 -- "$ROOT/tests/bin/tree_server_static"
    [[ "$output" == *"program: $ROOT/tests/bin/tree_server_static: statically linked"* ]]
    [[ "$output" == *"  stdiogate: warning: $ROOT/tests/bin/tree_server_static is statically linked"* ]]
    [[ "$output" == *"run 2, default mode: "* ]]
}

@test "check: a static program's startup junk: the default mode runs it under the filter by itself, status 1, the runs say which mode" {
    check --linger 0 -- "$ROOT/tests/bin/tree_server_static"
    expect status 1 "$status"
    expect default_mode strict "$(q .program.default_mode)"
    expect before_unwrapped true "$(q '.runs[0].stdout.junk.before_first_message > 0')"
    expect gated_junk 0 "$(q '.runs[1].stdout.junk.before_first_message + .runs[1].stdout.junk.at_exit')"
    expect fixed_by gated "$(q .verdict.fixed_by)"
    check_text --linger 0 -- "$ROOT/tests/bin/tree_server_static"
    [[ "$output" == *"  default mode: strict, chosen by itself (a static program); with --gate-only the wrapper would warn:"* ]]
    [[ "$output" == *"run 2, default mode (strict, chosen by itself): "* ]]
    [[ "$output" == *'"command": '* ]]
}

@test "check: a musl program, --gate-only: facts say musl, the library stays out, status 2 fixed by --strict" {
    command -v musl-gcc >/dev/null || { echo "musl-gcc missing (tests/setups.mk installs musl-tools)"; return 1; }
    musl-gcc -O2 -D_GNU_SOURCE -o srv_musl "$ROOT/tests/fixtures/check_srv.c"
    check --linger 0 -- ./srv_musl banner
    expect status 1 "$status"
    expect default_mode strict "$(q .program.default_mode)"
    STDIOGATE_AUTO_STRICT=0 check --linger 0 -- ./srv_musl banner
    expect status 2 "$status"
    expect musl "true true" "$(q '"\(.program.musl) \(.program.foreign_loader)"')"
    [[ "$(q .program.elf_interpreter)" == *ld-musl* ]]
    expect gated_before 20 "$(q .runs[1].stdout.junk.before_first_message)"
    expect fixed_by strict "$(q .verdict.fixed_by)"
}

@test "check: output at exit (after stdin closed): phase at_exit, status 1; by a raw system call, status 2" {
    check --linger 0 -- "$SRV" atexit
    expect status 1 "$status"
    expect phase at_exit "$(q .runs[0].stdout.stretches[0].phase)"
    expect first_bytes 'bye\n' "$(q .runs[0].stdout.stretches[0].first_bytes)"
    expect fixed_by gated "$(q .verdict.fixed_by)"
    # the default mode's guard: on stderr, not on the wire
    expect gated_junk 0 "$(q .runs[1].stdout.junk_bytes)"
    expect gated_stderr 'bye\n' "$(q .runs[1].stderr.first_bytes)"
    expect strict_clean true "$(q .runs[2].clean)"
    check --linger 0 -- "$SRV" atexit raw
    expect raw_status 2 "$status"
    expect raw_phase at_exit "$(q .runs[0].stdout.stretches[0].phase)"
    expect raw_gated_at_exit 4 "$(q .runs[1].stdout.junk.at_exit)"
    expect raw_gated_first_bytes 'bye\n' "$(q .runs[1].stdout.stretches[0].first_bytes)"
    expect raw_strict_clean true "$(q .runs[2].clean)"
    expect raw_strict_stderr 'bye\n' "$(q .runs[2].stderr.first_bytes)"
    expect raw_fixed_by strict "$(q .verdict.fixed_by)"
}

@test "check: output on a timer after the session: caught while lingering" {
    check --linger 3 -- "$SRV" timer
    expect status 1 "$status"
    expect phase serving "$(q .runs[0].stdout.stretches[0].phase)"
    expect first_bytes 'tick\n' "$(q .runs[0].stdout.stretches[0].first_bytes)"
    expect linger 3 "$(q .linger)"
    # caught in the default mode's run too: by its guard, on stderr
    expect gated_junk 0 "$(q .runs[1].stdout.junk_bytes)"
    expect gated_stderr 'tick\n' "$(q .runs[1].stderr.first_bytes)"
    expect fixed_by gated "$(q .verdict.fixed_by)"
}

@test "check: without stdiogate-filter beside it: two runs, the third says why; the guard needs no filter (status 1), raw junk is status 2 not fixed" {
    mkdir inst
    cp "$ROOT/stdiogate" "$ROOT/libstdiogate.so" "$ROOT/stdiogate-check" inst/
    check --linger 0 -- "$SRV" serving raw
    expect with_filter strict "$(q .verdict.fixed_by)"
    status=0
    timeout "$CHECK_BOUND" inst/stdiogate --check --json --linger 0 -- "$SRV" serving raw \
        >"$BATS_TEST_TMPDIR/check.json" || status=$?
    expect status 2 "$status"
    expect strict_available false "$(q .strict_available)"
    expect ran "true true false" "$(q '[.runs[].ran | tostring] | join(" ")')"
    [[ "$(q .runs[2].note)" == "strict mode is not installed"* ]]
    expect gated_junk 24 "$(q .runs[1].stdout.junk.serving)"
    expect fixed_by null "$(q .verdict.fixed_by)"
    expect config null "$(q .verdict.config)"
    [[ "$(q .verdict.advice)" == *"not installed"* ]]
    # the library's own guard: a line written through libc is kept off without the filter
    status=0
    timeout "$CHECK_BOUND" inst/stdiogate --check --json --linger 0 -- "$SRV" serving \
        >"$BATS_TEST_TMPDIR/check.json" || status=$?
    expect guard_status 1 "$status"
    expect guard_ran "true true false" "$(q '[.runs[].ran | tostring] | join(" ")')"
    expect guard_gated_junk 0 "$(q .runs[1].stdout.junk_bytes)"
    expect guard_fixed_by gated "$(q .verdict.fixed_by)"
}

@test "check: a run broken by a stronger mode is named in a note (do no harm), the verdict stays" {
    # hatesgate: "preloaded!" on stdout when the library is preloaded; raw: past the library, onto the wire
    check --linger 0 -- "$SRV" hatesgate raw
    expect status 0 "$status"
    expect gated_junk 'preloaded!\n' "$(q .runs[1].stdout.stretches[0].first_bytes)"
    expect strict_clean true "$(q .runs[2].clean)"
    expect notes 1 "$(q '.verdict.notes | length')"
    [[ "$(q '.verdict.notes[0]')" == "the default mode run was not clean although the unwrapped one was"* ]]
    # written through libc, the guard keeps it off: no harm, no note
    check --linger 0 -- "$SRV" hatesgate
    expect guarded_status 0 "$status"
    expect guarded_clean "true true true" "$(q '[.runs[].clean | tostring] | join(" ")')"
    expect guarded_stderr 'preloaded!\n' "$(q .runs[1].stderr.first_bytes)"
    expect guarded_notes 0 "$(q '.verdict.notes | length')"
    check --linger 0 -- "$SRV"
    expect clean_notes 0 "$(q '.verdict.notes | length')"
}

@test "check: answers with the wrong id: status 3, each request named" {
    check --linger 0 -- "$SRV" wrongid
    expect status 3 "$status"
    expect outcomes "wrong_id wrong_id wrong_id wrong_id" "$(q '[.runs[0].requests[].outcome] | join(" ")')"
    expect seen_id 999 "$(q .runs[0].requests[0].seen_id)"
    expect errors 4 "$(q .runs[0].protocol_errors)"
    expect config null "$(q .verdict.config)"
    check_text --linger 0 -- "$SRV" wrongid
    [[ "$output" == *"initialize 1: WRONG ID 999"* ]]
    [[ "$output" == *"verdict (exit status 3): protocol errors in every run"* ]]
}

@test "check: answers that are not JSON-RPC: junk and malformed answers, status 3" {
    check --linger 0 --timeout 3 -- "$SRV" nojsonrpc
    expect status 3 "$status"
    expect outcome malformed "$(q .runs[0].requests[0].outcome)"
    [ "$(q .runs[0].stdout.junk_bytes)" -gt 0 ]
    # strict passes only JSON-RPC: the answer went to stderr, no answer at all
    expect strict_outcome no_answer "$(q .runs[2].requests[0].outcome)"
}

# An answer is a result or an error: one with its id and neither (or both)
# answers nothing (the JSON-RPC 2.0 specification; clients reject it): the
# request's answer is malformed, said at once (not after the timeout), and
# the session goes on to the next request.
@test "check: an answer with its id but neither result nor error, or both, is malformed: not clean" {
    cat >"$BATS_TEST_TMPDIR/bare_answer.py" <<'PY'
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if "id" in m:
        a = {"jsonrpc": "2.0", "id": m["id"]}
        if sys.argv[1] == "both":
            a["result"] = {}
            a["error"] = {"code": -32603, "message": "both"}
        sys.stdout.write(json.dumps(a, separators=(",", ":")) + "\n")
        sys.stdout.flush()
PY
    # (the server answers as said: the test can fail)
    [ "$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize"}' | python3 "$BATS_TEST_TMPDIR/bare_answer.py" bare)" = \
      '{"jsonrpc":"2.0","id":1}' ]
    check --linger 0 --timeout 10 -- python3 "$BATS_TEST_TMPDIR/bare_answer.py" bare
    expect bare_status 3 "$status"
    expect bare_outcomes "malformed malformed" "$(q '[.runs[0].requests[].outcome] | join(" ")')"
    expect bare_malformed 2 "$(q .runs[0].stdout.malformed_messages)"
    check --linger 0 --timeout 2 -- python3 "$BATS_TEST_TMPDIR/bare_answer.py" both
    expect both_status 3 "$status"
    expect both_outcomes "malformed malformed" "$(q '[.runs[0].requests[].outcome] | join(" ")')"
}

@test "check: a request from the server is answered, the session goes on" {
    check --linger 0 -- "$SRV" asks
    expect status 0 "$status"
    expect server_requests 1 "$(q .runs[0].stdout.server_requests)"
    expect outcomes "result result result result" "$(q '[.runs[0].requests[].outcome] | join(" ")')"
    check_text --linger 0 -- "$SRV" asks
    expect text_lines 3 "$(grep -c '^  1 request from the server (answered: not supported)$' <<<"$output")"
}

# (coverage round 2 of 2026-12-07: no LSP or DAP server asked the client
# anything.)  LSP servers ask (window/workDoneProgress/create,
# client/registerCapability), DAP adapters too (runInTerminal): each gets an
# answer in its protocol, in every run, and the session goes on.
@test "check: a request from an LSP server or a DAP adapter gets an answer in its protocol (null result; success false), in every run" {
    local rows=(
        'mcp||{"jsonrpc":"2.0","id":"s1","error":{"code":-32601,"message":"stdiogate --check answers no requests"}}'
        'lsp|--lsp|{"jsonrpc":"2.0","id":"s2","result":null}'
        'dap|--dap|{"type":"response","request_seq":1,"command":"runInTerminal","success":false,"message":"not supported by stdiogate --check"}'
    )
    local row proto opt want bad=()
    for row in "${rows[@]}"; do
        IFS='|' read -r proto opt want <<<"$row"
        rm -f answers
        # shellcheck disable=SC2086  # no option is no word
        CHECK_ANSWERS=$PWD/answers check --linger 0 --protocol "$proto" -- "$SRV" $opt asks
        # (a DAP answer's own seq left out)
        if [ "$status|$(q '[.runs[].stdout.server_requests] | join(" ")')" != "0|1 1 1" ] ||
            ! printf '%s\n' "$want" "$want" "$want" | cmp -s - <(sed 's/^{"seq":[0-9]*,/{/' answers); then
            echo "row $proto: status $status, answers:"; cat answers; show_check
            bad+=("$proto")
        fi
    done
    [ "${#bad[@]}" = 0 ] || { echo "failed: ${bad[*]}"; false; }
}

# (coverage round 2 of 2026-12-07: no server answered in a batch.)  A JSON-RPC
# batch on one line (MCP 2025-03-26 allowed them), blanks around its
# members: each member is taken, the answer as the answer, the notification
# as a notification; clean.
@test "check: answers in a JSON-RPC batch with a notification, blanks between the members: each taken, clean" {
    check --timeout 5 --linger 0 -- "$SRV" batch
    expect status 0 "$status"
    expect outcomes "result result result result|result result result result|result result result result" \
        "$(q '[.runs[] | [.requests[].outcome] | join(" ")] | join("|")')"
    expect notifications "4 4 4" "$(q '[.runs[].stdout.notifications] | join(" ")')"
    expect malformed "0 0 0" "$(q '[.runs[].stdout.malformed_messages] | join(" ")')"
}

# (coverage round 2 of 2026-12-07: no server answered a request twice.)  A
# second answer to a request already answered is an answer to nothing asked:
# a protocol error in every run (status 3), counted and said.
@test "check: an answer to a request already answered (ping answered twice): a stray answer, status 3, said in JSON and text" {
    check --timeout 5 --linger 0 -- "$SRV" twice
    expect status 3 "$status"
    expect stray "1 1 1" "$(q '[.runs[].stray_answers] | join(" ")')"
    expect errors "1 1 1" "$(q '[.runs[].protocol_errors] | join(" ")')"
    check_text --timeout 5 --linger 0 -- "$SRV" twice
    expect text_status 3 "$status"
    expect text_lines 3 "$(grep -c '^  1 answer to a request never made$' <<<"$output")"
}

@test "check: --call runs a tool; an error answer is an answer with its message" {
    check --linger 0 --call echo --args '{"x":1}' -- "$SRV"
    expect status 0 "$status"
    expect call "tools/call result" "$(q '.runs[0].requests[4] | "\(.method) \(.outcome)"')"
    expect call_name echo "$(q .call)"
    check --linger 0 --call fail -- "$SRV"
    expect status 0 "$status"
    expect call_error "error Unknown tool: fail" "$(q '.runs[0].requests[4] | "\(.outcome) \(.error)"')"
}

# The wrapper's options come before --check as readily as after it: a
# --protocol given first is the check's too (stdiogate --protocol lsp
# --check CMD), in either spelling; one after --check wins.
@test "check: --protocol before --check is the check's (lsp, --protocol=framed), one after --check wins" {
    status=0
    timeout "$CHECK_BOUND" "$GATE" --protocol lsp --check --json --linger 0 -- "$SRV" --lsp \
        >check.json 2>check.err || status=$?
    expect status 0 "$status"
    expect protocol "lsp option" "$(q '"\(.protocol) \(.protocol_source)"')"
    expect methods "initialize shutdown" "$(q '[.runs[0].requests[].method] | join(" ")')"
    timeout "$CHECK_BOUND" "$GATE" --protocol=framed --check --json --linger 0 -- "$SRV" --lsp \
        >check.json 2>check.err || status=$?
    expect protocol "lsp option" "$(q '"\(.protocol) \(.protocol_source)"')"
    timeout "$CHECK_BOUND" "$GATE" --protocol lsp --check --json --protocol mcp --linger 0 -- "$SRV" \
        >check.json 2>check.err || status=$?
    expect status 0 "$status"
    expect protocol "mcp option" "$(q '"\(.protocol) \(.protocol_source)"')"
}

@test "check --protocol lsp: initialize, initialized, shutdown, exit; clean, banner, serving" {
    check --protocol lsp --linger 0 -- "$SRV" --lsp
    expect status 0 "$status"
    expect methods "initialize shutdown" "$(q '[.runs[0].requests[].method] | join(" ")')"
    expect outcomes "result result" "$(q '[.runs[0].requests[].outcome] | join(" ")')"
    # it exits on "exit" (maybe just after its stdin was closed: --linger 0)
    expect exit 0 "$(q .runs[0].exit.status)"
    expect strict_argv "$GATE --strict --protocol framed -- $SRV --lsp" "$(q '.runs[2].argv | join(" ")')"
    check --protocol lsp --linger 0 -- "$SRV" --lsp banner
    expect banner_status 1 "$status"
    expect banner_bytes 'check_srv: starting\n' "$(q .runs[0].stdout.stretches[0].first_bytes)"
    expect banner_answers "result result" "$(q '[.runs[0].requests[].outcome] | join(" ")')"
    check --protocol lsp --linger 0 -- "$SRV" --lsp serving
    expect serving_status 1 "$status"
    # a line after each answer (the second's phase, serving or at exit, is timing)
    expect serving_unwrapped 46 "$(q .runs[0].stdout.junk_bytes)"
    expect serving_phase serving "$(q .runs[0].stdout.stretches[0].phase)"
    expect serving_gated 0 "$(q .runs[1].stdout.junk_bytes)"
    expect serving_fixed gated "$(q .verdict.fixed_by)"
    expect serving_args "[\"$SRV\",\"--lsp\",\"serving\"]" "$(q -c .verdict.config.args)"
    check --protocol lsp --linger 0 -- "$SRV" --lsp serving raw
    expect raw_status 2 "$status"
    expect raw_gated 46 "$(q .runs[1].stdout.junk_bytes)"
    expect raw_fixed strict "$(q .verdict.fixed_by)"
    expect raw_args "[\"--strict\",\"--protocol\",\"framed\",\"$SRV\",\"--lsp\",\"serving\",\"raw\"]" \
        "$(q -c .verdict.config.args)"
}

@test "check --protocol dap: initialize, disconnect; events are not answers; wrong request_seq" {
    check --protocol dap --linger 0 -- "$SRV" --dap
    expect status 0 "$status"
    expect methods "initialize disconnect" "$(q '[.runs[0].requests[].method] | join(" ")')"
    expect notifications 1 "$(q .runs[0].stdout.notifications)"
    check --protocol dap --linger 0 -- "$SRV" --dap wrongid
    expect wrong_status 3 "$status"
    expect wrong "wrong_id wrong_id" "$(q '[.runs[0].requests[].outcome] | join(" ")')"
    check --protocol dap --linger 0 -- "$SRV" --dap banner
    expect banner_status 1 "$status"
}

# The wrapper's --protocol before --check (`stdiogate --protocol dap --check
# ...`) reaches the checker as given, not as the wrapper's framing ("framed",
# which the checker plays as LSP): ind7-wrapper-check-gets-mapped-protocol
# sent LSP's shutdown, got no answer, status 5.
@test "check: stdiogate --protocol dap --check (the option before --check) plays DAP, as --check --protocol dap does" {
    status=0
    timeout "$CHECK_BOUND" "$GATE" --protocol dap --check --json --linger 0 -- "$SRV" --dap \
        >"$BATS_TEST_TMPDIR/check.json" 2>"$BATS_TEST_TMPDIR/check.err" || status=$?
    expect status 0 "$status"
    expect methods "initialize disconnect" "$(q '[.runs[0].requests[].method] | join(" ")')"
    expect protocol dap "$(q .protocol)"
}

# A DAP response's "success" says whether it is a result or an error: true
# is answered, false an error with its "message".  A debug adapter that
# refuses initialize and accepts disconnect.
@test "check --protocol dap: a response with success true is a result, one with success false an error with its message" {
    check --protocol dap --linger 0 -- "$SRV" --dap
    expect status 0 "$status"
    expect outcomes "result result" "$(q '[.runs[0].requests[].outcome] | join(" ")')"
    cat >"$BATS_TEST_TMPDIR/refusing_dap.py" <<'PY'
import json, sys
seq = 0
while True:
    line = sys.stdin.buffer.readline()
    if not line:
        break
    if not line.lower().startswith(b"content-length:"):
        continue
    n = int(line.split(b":")[1])
    sys.stdin.buffer.readline()
    req = json.loads(sys.stdin.buffer.read(n))
    seq += 1
    ok = req["command"] != "initialize"
    res = {"seq": seq, "type": "response", "request_seq": req["seq"], "command": req["command"], "success": ok}
    if not ok:
        res["message"] = "adapter refuses"
    body = json.dumps(res).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()
    if req["command"] == "disconnect":
        break
PY
    check --protocol dap --linger 0 -- python3 "$BATS_TEST_TMPDIR/refusing_dap.py"
    expect refused "error|adapter refuses result" \
        "$(q '[.runs[0].requests[] | "\(.outcome)\(if .error then "|" + .error else "" end)"] | join(" ")')"
}

# DAP numbers every message an actor sends, one more than the one before
# (the spec's "seq"): the checker's answer to an adapter's request during
# initialize comes between its initialize and its disconnect, and is
# numbered so (it was numbered after disconnect, planned before it was sent).
@test "check --protocol dap: the checker's messages are numbered in the order it sends them (an answer to the adapter's request between initialize and disconnect)" {
    cat >"$BATS_TEST_TMPDIR/asking_dap.py" <<'PY'
import json, sys
inp, out, seq = sys.stdin.buffer, sys.stdout.buffer, 0
log = open(sys.argv[1], "w")
def send(o):
    global seq
    seq += 1
    o["seq"] = seq
    b = json.dumps(o).encode()
    out.write(b"Content-Length: %d\r\n\r\n" % len(b) + b)
    out.flush()
while True:
    n = None
    while True:
        line = inp.readline()
        if not line:
            sys.exit(0)
        if line in (b"\r\n", b"\n"):
            break
        if line.lower().startswith(b"content-length:"):
            n = int(line.split(b":")[1])
    m = json.loads(inp.read(n))
    log.write("%s %s %s\n" % (m["seq"], m["type"], m.get("command")))
    log.flush()
    if m["type"] != "request":
        continue
    if m["command"] == "initialize":
        send({"type": "request", "command": "runInTerminal", "arguments": {"args": ["sh"]}})
    send({"type": "response", "request_seq": m["seq"], "command": m["command"], "success": True})
    if m["command"] == "disconnect":
        sys.exit(0)
PY
    check --protocol dap --linger 0 -- python3 "$BATS_TEST_TMPDIR/asking_dap.py" "$BATS_TEST_TMPDIR/seen"
    expect status 0 "$status"
    expect outcomes "result result" "$(q '[.runs[0].requests[].outcome] | join(" ")')"
    expect seen "1 request initialize|2 response runInTerminal|3 request disconnect" "$(paste -sd'|' "$BATS_TEST_TMPDIR/seen")"
}

# (coverage round of 2026-12-07: the checker's JSON reader and writer on
# what no other server gives it.)  Answers with every string escape and
# number form are answers (clean, status 0, nothing malformed); the error
# message of the tools/call answer, made of escapes, is decoded to UTF-8 (a
# lone surrogate U+FFFD); a command-line argument with invalid UTF-8 and a
# character cut at its end is written as valid JSON (U+FFFD for each bad
# byte, control bytes as \u0001, \u001f); stderr's bytes are shown escaped, ASCII.
@test "check: escapes and exponents in answers are answers; an error message of escapes decoded; bad UTF-8 in an argument and stderr shown safely" {
    local arg=$'caf\xc3\xa9 \xf0\x9f\x98\x80 \xff\x01\x1f \xc3'
    check --linger 0 --call echo -- python3 "$ROOT/tests/fixtures/check_escapes.py" "$arg"
    expect status 0 "$status"
    expect outcomes "result result error" "$(q '[.runs[] | [.requests[].outcome] | join(" ")] | unique | join(",")')"
    expect malformed "0 0 0" "$(q '[.runs[].stdout.malformed_messages] | join(" ")')"
    expect runs 3 "$(q '.runs | length')"
    printf 'bad \xc3\xa9\xe4\xb8\xad\xef\xbf\xbd \b\f\n\r\t"q" \\ / \xc3\x89' >want-error
    jq -j '.runs[0].requests[] | select(.method == "tools/call") | .error' check.json | cmp - want-error
    printf 'caf\xc3\xa9 \xf0\x9f\x98\x80 \xef\xbf\xbd\x01\x1f \xef\xbf\xbd' >want-arg
    jq -j '.runs[0].argv[-1]' check.json | cmp - want-arg
    grep -qF '\ufffd\u0001\u001f \ufffd"' check.json
    expect stderr 'err \xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80 \x01\x7f tab\t \xff \xe9x \"q\" back\\ end\n' \
        "$(q '.runs[0].stderr.first_bytes')"
}

@test "check: bad options and no COMMAND keep the wrapper's 125, nothing on stdout" {
    for args in "" "--timeout" "--timeout x $SRV" "--timeout 0 $SRV" "--linger -1 $SRV" \
                "--protocol xyz $SRV" "--bogus $SRV" "--args {} $SRV" "--call t --args [1] $SRV" \
                "--protocol lsp --call t $SRV"; do
        # shellcheck disable=SC2086  # the words of each case
        run --separate-stderr "$GATE" --check $args
        [ "$status" -eq 125 ] || { echo "args: $args -> $status"; return 1; }
        [ -z "$output" ] || { echo "args: $args: stdout: $output"; return 1; }
        [[ "$stderr" == "stdiogate --check: "* ]]
        [[ "$stderr" == *"Usage: stdiogate --check"* ]]
    done
    run "$GATE" --check --help
    [ "$status" -eq 0 ]
    [[ "$output" == "Usage: stdiogate --check"* ]]
}

@test "check: installed (make install): the wrapper in bin finds the check, the filter and itself" {
    make -C "$ROOT" -s install DESTDIR="$BATS_TEST_TMPDIR/root" PREFIX=/usr >/dev/null
    local bin=$BATS_TEST_TMPDIR/root/usr/bin/stdiogate
    # (found through ../lib/stdiogate beside bin: DESTDIR is not in the configured LIBDIR)
    status=0
    # (raw: junk only the filter keeps off, so that the strict run must be the fix)
    timeout "$CHECK_BOUND" "$bin" --check --json --linger 0 -- "$SRV" serving raw >"$BATS_TEST_TMPDIR/check.json" ||
        status=$?
    expect status 2 "$status"
    expect gated_argv0 "$bin" "$(q '.runs[1].argv[0]')"
    expect strict fixed "$(q 'if .verdict.fixed_by == "strict" then "fixed" else .verdict.fixed_by end')"
}

@test "check: stdiogate-check missing beside the library: the wrapper says so, status 125" {
    mkdir alone
    cp "$ROOT/stdiogate" "$ROOT/libstdiogate.so" alone/
    run --separate-stderr alone/stdiogate --check -- "$SRV"
    expect status 125 "$status"
    [ -z "$output" ]
    [[ "$stderr" == "stdiogate: cannot find stdiogate-check beside "* ]]
}

# Issue 22: every option of --check in both spellings (`--opt VALUE` and
# `--opt=VALUE`), each row's effect asserted (the document's protocol,
# timeout, linger, call; the requests made; the status) and both spellings
# giving the same; the failing rows named.
@test "check: each option's --opt=VALUE form does what --opt VALUE does" {
    local rows=(
        "0|mcp 7 0 null|initialize tools/list resources/list ping|--protocol mcp --timeout 7 --linger 0|--protocol=mcp --timeout=7 --linger=0|$SRV"
        "1|lsp 9 0 null|initialize shutdown|--protocol lsp --timeout 9 --linger 0|--protocol=lsp --timeout=9 --linger=0|$SRV --lsp banner"
        "1|dap 8 0 null|initialize disconnect|--protocol dap --timeout 8 --linger 0|--protocol=dap --timeout=8 --linger=0|$SRV --dap banner"
        "0|mcp 10 0 echo|initialize tools/list resources/list ping tools/call|--linger 0 --call echo --args {\"x\":1}|--linger=0 --call=echo --args={\"x\":1}|$SRV"
    )
    local row want_status want_doc want_methods space equals cmd form got bad=()
    for row in "${rows[@]}"; do
        IFS='|' read -r want_status want_doc want_methods space equals cmd <<<"$row"
        for form in "$space" "$equals"; do
            # shellcheck disable=SC2086  # the words of each form
            check $form -- $cmd
            got="$status|$(q '"\(.protocol) \(.timeout) \(.linger) \(.call)"')|$(q '[.runs[0].requests[].method] | join(" ")')"
            if [ "$got" != "$want_status|$want_doc|$want_methods" ]; then
                echo "row [$form -- $cmd]: expected [$want_status|$want_doc|$want_methods], got [$got]"
                bad+=("$form")
            fi
        done
    done
    for form in "--protocol=xyz" "--protocol=" "--timeout=x" "--timeout=0" "--linger=-1" "--json=1"; do
        run --separate-stderr "$GATE" --check "$form" -- "$SRV"
        if [ "$status" -ne 125 ] || [ -n "$output" ] || [[ "$stderr" != "stdiogate --check: "* ]]; then
            echo "bad option $form: status $status (want 125), stdout [$output], stderr [$stderr]"
            bad+=("$form")
        fi
    done
    [ "${#bad[@]}" = 0 ] || { echo "failed: ${bad[*]}"; false; }
}

# Issue 44: with no --protocol, the check finds out which protocol the server
# speaks, and says how; --protocol takes the wrapper's words too.
@test "check, no --protocol: a name that says LSP (language server, langserver) is checked as LSP, at once; --call means MCP" {
    mkdir bin
    ln -s "$SRV" bin/my-lsp
    ln -s "$SRV" bin/some-language-server
    ln -s "$SRV" bin/pyright-langserver     # (and vscode-json-langserver, ...)
    for name in my-lsp some-language-server pyright-langserver; do
        check --linger 0 -- "bin/$name" --lsp
        expect "$name status" 0 "$status"
        expect "$name protocol" "lsp command" "$(q '"\(.protocol) \(.protocol_source)"')"
        expect "$name methods" "initialize shutdown" "$(q '[.runs[0].requests[].method] | join(" ")')"
        expect "$name strict" "--protocol framed" "$(q '.runs[2].argv[2:4] | join(" ")')"
    done
    # a name with mcp in it is MCP, even beside lsp, or a name that says LSP
    # on its own (mcp-language-server: an MCP server in front of one)
    ln -s "$SRV" bin/mcp-lsp-bridge
    ln -s "$SRV" bin/mcp-language-server
    for name in mcp-lsp-bridge mcp-language-server; do
        check --linger 0 -- "bin/$name"
        expect "$name mcp" "0 mcp command" "$status $(q '"\(.protocol) \(.protocol_source)"')"
    done
    check --linger 0 -- "$SRV"
    expect default "mcp default" "$(q '"\(.protocol) \(.protocol_source)"')"
    check --linger 0 --call echo -- bin/my-lsp
    expect call "mcp option" "$(q '"\(.protocol) \(.protocol_source)"')"
    check_text --linger 0 -- bin/my-lsp --lsp
    [[ "$output" == *$'\nprotocol: LSP, by the command\'s name (my-lsp)\n'* ]]
}

@test "check, no --protocol: a first answer in the other framing switches at once (a frame to a JSON line, a JSON line to a frame)" {
    # --timeout 60: the switch must not wait for it
    SECONDS=0
    check --timeout 60 --linger 0 -- "$SRV" --lsp hello
    expect status 0 "$status"
    expect protocol "lsp framed_answer" "$(q '"\(.protocol) \(.protocol_source)"')"
    expect methods "initialize shutdown" "$(q '[.runs[0].requests[].method] | join(" ")')"
    expect clean "true true true" "$(q '[.runs[].clean | tostring] | join(" ")')"
    mkdir bin
    ln -s "$SRV" bin/my-lsp
    check --timeout 60 --linger 0 -- bin/my-lsp hello
    expect mcp_status 0 "$status"
    expect mcp "mcp line_answer" "$(q '"\(.protocol) \(.protocol_source)"')"
    expect strict "--protocol jsonl" "$(q '.runs[2].argv[2:4] | join(" ")')"
    [ "$SECONDS" -lt 50 ] || { echo "took $SECONDS s: the switch waited for --timeout"; false; }
    check_text --timeout 60 --linger 0 -- "$SRV" --lsp hello
    [[ "$output" == *$'\nprotocol: LSP: given a JSON line (MCP), its stdout began with a Content-Length frame\n'* ]]
    # the same server unwrapped, given a JSON line: a frame on stdout (so the test can fail)
    printf '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n' | timeout 30 "$SRV" --lsp hello >plain || true
    [[ "$(head -c 15 plain)" == "Content-Length:" ]]
}

# A debug adapter's name (DAP tried first) on an MCP server: the frame sent
# was DAP's, and the note says so, not LSP's (the other framing of MCP).
@test "check, no --protocol: a DAP name on an MCP server: MCP, and the note names DAP as the framing that got no answer" {
    ln -s "$SRV" "$BATS_TEST_TMPDIR/codelldb"
    check --timeout 3 --linger 0 -- "$BATS_TEST_TMPDIR/codelldb"
    expect status 0 "$status"
    expect protocol "mcp silent_frame" "$(q '"\(.protocol) \(.protocol_source)"')"
    expect note "MCP: a Content-Length frame (DAP) got no answer at all, a JSON line did" "$(q .protocol_note)"
}

@test "check, no --protocol: no answer to a JSON line, an answer to a frame: LSP, and said so" {
    check --timeout 1 --linger 0 -- "$SRV" --lsp
    expect status 0 "$status"
    expect protocol "lsp silent_line" "$(q '"\(.protocol) \(.protocol_source)"')"
    expect outcomes "result result" "$(q '[.runs[0].requests[].outcome] | join(" ")')"
    expect ran "true true true" "$(q '[.runs[].ran | tostring] | join(" ")')"
    [[ "$(q .protocol_note)" == "LSP: a JSON line (MCP) got no answer at all, a Content-Length frame did" ]]
    # with --protocol mcp, no other framing is tried
    check --timeout 1 --linger 0 --protocol mcp -- "$SRV" --lsp
    expect given_status 5 "$status"
    expect given "mcp option" "$(q '"\(.protocol) \(.protocol_source)"')"
}

@test "check: --protocol takes jsonl (mcp), framed (lsp) and auto, as the wrapper does" {
    check --linger 0 --protocol framed -- "$SRV" --lsp
    expect framed "0 lsp option" "$status $(q '"\(.protocol) \(.protocol_source)"')"
    check --linger 0 --protocol=jsonl -- "$SRV"
    expect jsonl "0 mcp option" "$status $(q '"\(.protocol) \(.protocol_source)"')"
    check --linger 0 --protocol auto -- "$SRV" --lsp hello
    expect auto "0 lsp framed_answer" "$status $(q '"\(.protocol) \(.protocol_source)"')"
    run --separate-stderr "$GATE" --check --protocol xml -- "$SRV"
    expect bad 125 "$status"
    [[ "$stderr" == "stdiogate --check: unknown protocol 'xml' (mcp, lsp, dap; or jsonl, framed, auto)"* ]]
}
