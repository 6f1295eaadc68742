#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# stdiogate --check, family by family (issue 45; the table is in
# docs/TESTING.md, "The checker"): the members of each family that no other
# test covered, one row each, every row asserting what the check reports
# (status, the JSON field, the text line) and the failing rows named.
# Options at their bounds, without their value, given twice, and the
# wrapper's before --check; the protocol each kind of name says, and a name
# that says LSP or DAP for a server that speaks MCP; answers with an id of
# another type, in two writes, behind extra headers, an error without a
# message, a DAP response without success, notifications and events between,
# a late answer with another id; Go, Bun, a #! script and a directory as
# COMMAND; every status's text line against its JSON, the runs in order.
# The servers: tests/bin/check_srv, and answerer.py below (what it writes,
# by mode, is checked unwrapped too, so that a row can fail).

bats_require_minimum_version 1.5.0

load ../helpers
load ../check_helpers

setup_file() {
    # answerer.py MODE [mcp|lsp|dap]: answers every request, as MODE says:
    #   plain  as it should       strid   a number id sent back as a string
    #   nullid every id null      split   each answer in two writes, 50 ms apart
    #   headers (LSP) a Content-Type header first, then content-length (lower case)
    #   nomsg  MCP: an error without a message; DAP: initialize with success false, no message
    #   nosuccess (DAP) initialize's response without success
    #   event  (DAP) an output event before each response
    #   note   a notification before each answer
    cat >"$BATS_FILE_TMPDIR/answerer.py" <<'PY'
import json, sys, time
mode, proto = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "mcp")
inp, out = sys.stdin.buffer, sys.stdout.buffer
seq = 0
def read():
    if proto == "mcp":
        line = inp.readline()
        return json.loads(line) if line else None
    n = None
    while True:
        line = inp.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        if line.lower().startswith(b"content-length:"):
            n = int(line.split(b":")[1])
    return json.loads(inp.read(n))
def frame(b):
    if proto == "mcp":
        return b + b"\n"
    if mode == "headers":
        return b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: %d\r\n\r\n" % len(b) + b
    return b"Content-Length: %d\r\n\r\n" % len(b) + b
def send(o):
    b = frame(json.dumps(o, separators=(",", ":")).encode())
    if mode == "split" and "method" not in o and o.get("type") != "event":
        k = len(b) // 2
        out.write(b[:k]); out.flush(); time.sleep(0.05)
        b = b[k:]
    out.write(b); out.flush()
while True:
    m = read()
    if m is None:
        break
    if proto == "dap":
        if m.get("type") != "request":
            continue
        if mode == "event":
            seq += 1
            send({"seq": seq, "type": "event", "event": "output", "body": {"output": "x"}})
        seq += 1
        a = {"seq": seq, "type": "response", "request_seq": m["seq"], "command": m["command"], "success": True}
        if mode == "nomsg" and m["command"] == "initialize":
            a["success"] = False
        if mode == "nosuccess" and m["command"] == "initialize":
            del a["success"]
        send(a)
        if m["command"] == "disconnect":
            break
        continue
    if "id" not in m:
        if m.get("method") == "exit":
            break
        continue
    i = m["id"]
    a = {"jsonrpc": "2.0", "id": i, "result": {"capabilities": {}} if m["method"] == "initialize" else {}}
    if mode == "strid" and isinstance(i, int):
        a["id"] = str(i)
    if mode == "nullid":
        a["id"] = None
    if mode == "nomsg":
        del a["result"]
        a["error"] = {"code": -32603}
    if mode == "note":
        send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}})
    send(a)
PY
}

setup() {
    [ -x "$SRV" ] && [ -x "$ROOT/stdiogate-check" ] && [ -x "$ROOT/stdiogate-filter" ] || {
        echo "run 'make all fixtures' first" >&2
        return 1
    }
    cd "$BATS_TEST_TMPDIR" || return 1
    ANSWERER=$BATS_FILE_TMPDIR/answerer.py
}

# (row_table splits a row into words; the rows below are fields between
# '|', put together again with "$*")

# ok_row WANT|ARGS: `stdiogate --check --json ARGS -- check_srv`; WANT is
# "STATUS timeout linger protocol source call"
ok_row() {
    local want args
    IFS='|' read -r want args <<<"$*"
    # shellcheck disable=SC2086  # the row's words
    check $args -- "$SRV"
    expect "$args" "$want" "$status $(q '"\(.timeout) \(.linger) \(.protocol) \(.protocol_source) \(.call)"')"
}

# bad_row MESSAGE|ARGS: status 125, nothing on stdout, stderr's first line
bad_row() {
    local want args
    IFS='|' read -r want args <<<"$*"
    # shellcheck disable=SC2086  # the row's words
    run --separate-stderr timeout "$CHECK_BOUND" "$GATE" --check $args
    expect "$args status" 125 "$status"
    expect "$args stdout" "" "$output"
    expect "$args stderr" "stdiogate --check: $want" "${stderr%%$'\n'*}"
}

@test "check families: options at their bounds, without a value, given twice (the last wins); --args on several lines" {
    row_table ok_row \
        "0 86400 0 mcp option null|--timeout 86400 --linger 0 --protocol mcp" \
        "0 86400 0 mcp default null|--timeout=86400 --linger=0" \
        "0 7 0 mcp default null|--timeout 1 --timeout 7 --linger 3 --linger 0" \
        "0 7 0 mcp default null|--timeout=1 --timeout 7 --linger=0" \
        "0 10 0 mcp option null|--protocol lsp --protocol mcp --linger 0" \
        "0 10 0 mcp option echo|--linger 0 --call nosuch --call echo" \
        "0 10 0 mcp default null|--protocol lsp --protocol auto --linger 0" \
        "0 10 0 mcp option echo|--protocol lsp --protocol auto --call echo --linger 0"
    row_table bad_row \
        "invalid number of seconds '86401'|--timeout 86401 $SRV" \
        "invalid number of seconds '86401'|--linger=86401 $SRV" \
        "invalid number of seconds 'nan'|--timeout nan $SRV" \
        "invalid number of seconds 'inf'|--linger inf $SRV" \
        "invalid number of seconds ''|--timeout= $SRV" \
        "option '--protocol' needs a value|--protocol" \
        "option '--timeout' needs a value|--timeout" \
        "option '--linger' needs a value|--linger" \
        "option '--call' needs a value|--call" \
        "option '--args' needs a value|--call echo --args" \
        "unknown option '--strict' (try 'stdiogate --check --help')|--strict $SRV" \
        "unknown option '--gate-only' (try 'stdiogate --check --help')|--linger 0 --gate-only $SRV"
    # the check's own options before --check are the wrapper's to refuse
    local opt
    for opt in --timeout --json; do
        run --separate-stderr timeout "$CHECK_BOUND" "$GATE" "$opt" 3 --check -- "$SRV"
        expect "$opt before --check" "125||stdiogate: unknown option '$opt' (try 'stdiogate --help')" "$status|$output|$stderr"
    done
    # the tool the last --call names is the one called
    check --linger 0 --call nosuch --call echo -- "$SRV"
    expect call "tools/call result" "$(q '.runs[0].requests[-1] | "\(.method) \(.outcome)"')"
    # --args on several lines (pretty-printed) goes out on the request's one
    # line (the answerer reads a message a line, as the SDKs do)
    check --linger 0 --call echo --args $'{\n  "x": [1,\t2],\r\n  "s": "a b\\" c"\n}' -- "$PYTHON" "$ANSWERER" plain mcp
    expect pretty_args "0 tools/call result" "$status $(q '.runs[0].requests[-1] | "\(.method) \(.outcome)"')"
    run --separate-stderr "$GATE" --check -h
    expect help 0 "$status"
    [[ "$output" == "Usage: stdiogate --check "* ]]
}

# --strict and -v before --check (or the doctor's --config, --list) do
# nothing there (the check runs every mode itself; --discard, --log,
# --gate-only and --protocol reach its runs under stdiogate): said on
# stderr, the check as without them.
@test "check families: --strict and -v before --check or --list: said to be ignored, the check as without them" {
    check --linger 0 -- "$SRV"
    local want opt
    want=$(q '[.verdict.status, [.runs[] | .ran | tostring]] | flatten | join(" ")')
    for opt in --strict -vv; do
        run --separate-stderr timeout "$CHECK_BOUND" "$GATE" "$opt" --check --json --linger 0 -- "$SRV"
        expect "$opt status" 0 "$status"
        expect "$opt said" "stdiogate: $opt before --check: ignored (the check runs every mode itself)" "${stderr%%$'\n'*}"
        printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/check.json"
        expect "$opt check" "$want" "$(q '[.verdict.status, [.runs[] | .ran | tostring]] | flatten | join(" ")')"
    done
    run --separate-stderr timeout "$CHECK_BOUND" "$GATE" --strict -v --list
    expect list_said "stdiogate: --strict -v before --list: ignored (the check runs every mode itself)" "${stderr%%$'\n'*}"
    run --separate-stderr timeout "$CHECK_BOUND" "$GATE" --discard --check --json --linger 0 -- "$SRV"
    expect none_said "" "$(grep '^stdiogate: .*ignored' <<<"$stderr" || true)"
    # --discard reaches the runs under stdiogate: the junk they keep off
    # the wire goes nowhere (on their stderr without it)
    local how
    # shellcheck disable=SC2086  # $how: an option or none
    for how in --discard ""; do
        status=0
        timeout "$CHECK_BOUND" "$GATE" $how --check --json --linger 0 -- "$SRV" banner serving \
            >"$BATS_TEST_TMPDIR/check.json" 2>"$BATS_TEST_TMPDIR/check.err" || status=$?
        expect "discard [$how]" "1 $([ -n "$how" ] && echo "44/0 0/0 0/0" || echo "44/0 0/44 0/44")" \
            "$status $(q '[.runs[] | "\(.stdout.junk_bytes)/\(.stderr.bytes)"] | join(" ")')"
    done
}

# pre_row WANT|OPTIONS: stdiogate OPTIONS --check --json --linger 0 --
# check_srv --lsp; WANT is "STATUS protocol source"
pre_row() {
    local want args
    IFS='|' read -r want args <<<"$*"
    status=0
    # shellcheck disable=SC2086  # the row's words
    timeout "$CHECK_BOUND" "$GATE" $args --check --json --linger 0 -- "$SRV" --lsp \
        >"$BATS_TEST_TMPDIR/check.json" 2>"$BATS_TEST_TMPDIR/check.err" || status=$?
    expect "$args" "$want" "$status $(q '"\(.protocol) \(.protocol_source)"')"
}

@test "check families: the wrapper's --protocol before --check, given twice: the last one is the check's" {
    row_table pre_row \
        "0 lsp option|--protocol mcp --protocol=lsp" \
        "0 lsp option|--protocol=dap --protocol lsp" \
        "0 lsp option|--protocol=framed"
    # a --log=FILE whose name holds '=': the runs under stdiogate log there
    status=0
    timeout "$CHECK_BOUND" "$GATE" --log="$BATS_TEST_TMPDIR/run=1.log" --check --json --linger 0 -- "$SRV" banner \
        >"$BATS_TEST_TMPDIR/check.json" 2>"$BATS_TEST_TMPDIR/check.err" || status=$?
    expect log_status 1 "$status"
    expect log_lines 2 "$(grep -c ': check_srv: starting$' "$BATS_TEST_TMPDIR/run=1.log")"
}

# name_row WANT|NAME|ARGS: check_srv as bin/NAME (a directory may come
# with it); WANT is "protocol source"
name_row() {
    local want name args
    IFS='|' read -r want name args <<<"$*"
    mkdir -p "bin/$(dirname "$name")"
    ln -sf "$SRV" "bin/$name"
    # shellcheck disable=SC2086  # the row's words
    check --timeout 3 --linger 0 -- "bin/$name" $args
    expect "$name $args" "0 $want" "$status $(q '"\(.protocol) \(.protocol_source)"')"
    expect "$name methods" "$(case $want in dap*) echo initialize disconnect ;; lsp*) echo initialize shutdown ;; *) echo initialize tools/list resources/list ping ;; esac)" \
        "$(q '[.runs[0].requests[].method] | join(" ")')"
}

@test "check families: the protocol a command's name says: every kind of debug adapter and language server name" {
    row_table name_row \
        "dap command|lldb-dap|--dap" \
        "dap command|dap|--dap" \
        "dap command|vscode-mock-debug-adapter|--dap" \
        "dap command|python3|--dap -- -m debugpy.adapter" \
        "lsp command|yaml-ls|--lsp" \
        "lsp command|fortran_lsp|--lsp" \
        "lsp command|lsp-server|--lsp" \
        "lsp command|clangd|--lsp" \
        "lsp command|FooLanguageServer|--lsp" \
        "lsp command|mcp-servers/foo-lsp|--lsp" \
        "mcp command|foo-ls|-- mcp-config.json"
    check_text --linger 0 -- bin/lldb-dap --dap
    [[ "$output" == *$'\nprotocol: DAP, by the command\'s name (lldb-dap)\n'* ]]
}

# silent_row NAME [NOTE]: an MCP server named as a language server or a
# debug adapter: its frame gets no answer at all, a JSON line does; NOTE the
# protocol note, if given (for a DAP name it says "(LSP)" where DAP was
# sent: reported, not asserted)
silent_row() {
    mkdir -p bin
    ln -sf "$SRV" "bin/$1"
    check --timeout 1 --linger 0 -- "bin/$1"
    expect "$1" "0 mcp silent_frame" "$status $(q '"\(.protocol) \(.protocol_source)"')"
    [ -z "${2:-}" ] || expect "$1 note" "MCP: a Content-Length frame ($2) got no answer at all, a JSON line did" "$(q .protocol_note)"
    expect "$1 runs" "true true true" "$(q '[.runs[].clean | tostring] | join(" ")')"
}

@test "check families: a name that says LSP or DAP, a server that speaks MCP: no answer to the frame, the JSON line answered" {
    # (the server answers a JSON line, and nothing to a frame: the test can fail)
    [ "$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize"}' | "$SRV" | head -c 25)" = '{"jsonrpc":"2.0","id":1,"' ]
    row_table silent_row "yaml-ls LSP" lldb-dap
}

# answer_row PROTO|MODE|STATUS|OUTCOMES|JQ|WANT: answerer.py MODE PROTO;
# OUTCOMES the unwrapped run's (every run's the same); JQ a filter on the
# document, WANT what it gives (-c)
answer_row() {
    local proto mode want_status want filter want_more
    IFS='|' read -r proto mode want_status want filter want_more <<<"$*"
    check --timeout 5 --linger 0 --protocol "$proto" -- "$PYTHON" "$ANSWERER" "$mode" "$proto"
    expect "$proto $mode" "$want_status|$want" "$status|$(q '[.runs[0].requests[].outcome] | join(" ")')"
    expect "$proto $mode same runs" 1 "$(q '[.runs[] | [.requests[].outcome] | join(" ")] | unique | length')"
    expect "$proto $mode $filter" "$want_more" "$(jq -c "$filter" "$BATS_TEST_TMPDIR/check.json")"
}

@test "check families: answers: ids of another type, two writes, extra headers, no message, no success, notifications between" {
    # (what answerer.py writes, so that the rows can fail)
    [ "$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize"}' | "$PYTHON" "$ANSWERER" strid)" = \
      '{"jsonrpc":"2.0","id":"1","result":{"capabilities":{}}}' ]
    [ "$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize"}' | "$PYTHON" "$ANSWERER" nullid)" = \
      '{"jsonrpc":"2.0","id":null,"result":{"capabilities":{}}}' ]
    row_table answer_row \
        'mcp|strid|3|wrong_id result|.runs[0].requests[0].seen_id|"\"1\""' \
        'mcp|nullid|3|wrong_id wrong_id|[.runs[0].requests[].seen_id,.runs[0].exit.answer_timeout]|["null","null",false]' \
        'mcp|split|0|result result|[.runs[].stdout.malformed_messages,.runs[].stdout.junk_bytes]|[0,0,0,0,0,0]' \
        'lsp|split|0|result result|[.runs[].stdout.malformed_messages,.runs[].stdout.junk_bytes]|[0,0,0,0,0,0]' \
        'dap|split|0|result result|[.runs[].stdout.malformed_messages,.runs[].stdout.junk_bytes]|[0,0,0,0,0,0]' \
        'lsp|headers|0|result result|[.runs[].stdout.messages]|[2,2,2]' \
        'mcp|nomsg|0|error error|.runs[0].requests[0].error|""' \
        'dap|nomsg|0|error result|.runs[0].requests[0].error|""' \
        'dap|nosuccess|3|malformed result|[.runs[].stdout.malformed_messages]|[1,1,1]' \
        'dap|event|0|result result|[.runs[].stdout.notifications]|[2,2,2]' \
        'mcp|note|0|result result|[.runs[].stdout.notifications,.runs[].stdout.server_requests]|[2,2,2,0,0,0]' \
        'lsp|note|0|result result|[.runs[].stdout.notifications,.runs[].stdout.server_requests]|[2,2,2,0,0,0]'
    # the text: a string id shown as it came, an error without a message as no more than that
    check_text --timeout 5 --linger 0 -- "$PYTHON" "$ANSWERER" strid
    expect strid_text 3 "$(grep -c '^  answers: initialize 1: WRONG ID "1", ping "stdiogate-ping": answered$' <<<"$output")"
    check_text --timeout 5 --linger 0 -- "$PYTHON" "$ANSWERER" nomsg
    expect nomsg_text 3 "$(grep -c '^  answers: initialize 1: error answer, ping "stdiogate-ping": error answer$' <<<"$output")"
}

@test "check families: a late answer with another id is no late answer: a stray one, 'no answer within'" {
    check --timeout 1 --linger 0 -- "$SRV" slow=1500 wrongid
    expect status 5 "$status"
    expect summary "no answer within 1 s" "$(q .verdict.summary)"
    expect late "null|no_answer|timeout|1" "$(q '.runs[0] | "\(.requests[0].late_ms)|\(.requests[0].outcome)|\(.requests[0].reason)|\(.stray_answers)"')"
    check_text --timeout 1 --linger 0 -- "$SRV" slow=1500 wrongid
    [[ "$output" == *$'\n  answers: initialize 1: NO ANSWER (timeout)\n  1 answer to a request never made\n'* ]]
    # the same server in time: its answer is a wrong id (so the late one was that answer)
    check --timeout 5 --linger 0 -- "$SRV" slow=100 wrongid
    expect in_time "3 999" "$status $(q .runs[0].requests[0].seen_id)"
    # after a request given up on, the session stops: LSP's shutdown is not sent
    check --timeout 1 --linger 0 --protocol lsp -- "$SRV" --lsp silent
    expect not_sent "5 no_answer not_sent" "$status $(q '[.runs[0].requests[].outcome] | join(" ")')"
    check_text --timeout 1 --linger 0 --protocol lsp -- "$SRV" --lsp silent
    [[ "$output" == *$'\n  answers: initialize 1: NO ANSWER (timeout), shutdown 2: not sent\n'* ]]
}

@test "check families: a COMMAND that begins with '-', after --: checked as a command, its entry names it" {
    mkdir bin
    ln -s "$SRV" bin/-srv
    PATH=$PWD/bin:$PATH check --linger 0 -- -srv banner
    expect status 1 "$status"
    expect ran "true true true" "$(q '[.runs[].ran | tostring] | join(" ")')"
    expect entry "$PWD/bin/-srv banner" "$(q '.verdict.config.args[-2:] | join(" ")')"
}

# A message over 64 MiB is counted, not read, and taken as the answer to the
# waiting request (docs/check-json.md, "oversized"): memory stays bounded.
@test "check families: an answer over 64 MiB: not read, taken as the answer, the session goes on, said in JSON and text" {
    cat >big.py <<'PY'
import json, sys
out = sys.stdout.buffer
for line in sys.stdin.buffer:
    m = json.loads(line)
    if "id" not in m:
        continue
    pad = b"x" * (65 << 20) if m["method"] == "initialize" else b""
    out.write(b'{"jsonrpc":"2.0","id":%s,"result":{"capabilities":{},"pad":"%s"}}\n' % (json.dumps(m["id"]).encode(), pad))
    out.flush()
PY
    # (the answer is over 64 MiB: the test can fail)
    [ "$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize"}' | "$PYTHON" big.py | wc -c)" -gt $((64 << 20)) ]
    check --timeout 30 --linger 0 -- "$PYTHON" big.py
    expect status 0 "$status"
    expect runs "1 result|1 result|1 result" "$(q '[.runs[] | "\(.stdout.oversized) \(.requests[0].outcome)"] | join("|")')"
    # the session goes on after it, as after any answer to initialize
    expect rest "initialize ping|initialize ping|initialize ping" "$(q '[.runs[] | [.requests[].method] | join(" ")] | join("|")')"
    expect ping "result result result" "$(q '[.runs[].requests[1].outcome] | join(" ")')"
    [ "$(q .self.max_rss_kib)" -lt $((100 * 1024)) ]
    check_text --timeout 30 --linger 0 -- "$PYTHON" big.py
    expect text 3 "$(grep -c '^  (1 message over 64 MiB was not read: taken as an answer)$' <<<"$output")"
}

# kind_row WANT|COMMAND: WANT is "STATUS go bun static script_interpreter default_mode"
kind_row() {
    local want cmd
    IFS='|' read -r want cmd <<<"$*"
    # shellcheck disable=SC2086  # the row's words
    check --timeout 5 --linger 0 -- $cmd
    expect "$cmd" "$want" "$status $(q '.program | "\(.go) \(.bun) \(.static) \(.script_interpreter) \(.default_mode)"')"
}

@test "check families: the program kinds: Go, Bun, a #! script, a directory" {
    printf '#!/bin/sh\nexec %s "$@"\n' "$SRV" >server.sh
    chmod +x server.sh
    mkdir adir
    row_table kind_row \
        "0 true false false null strict|$ROOT/tests/bin/core_go_fake read" \
        "0 false true false null strict|$ROOT/tests/bin/core_bun_fake read" \
        "0 false false false /bin/sh gate|./server.sh" \
        "4 false false false null gate|./adir"
    expect adir_runs "false false false" "$(q '[.runs[].ran | tostring] | join(" ")')"
    expect adir_summary "the server could not be started: is a directory" "$(q .verdict.summary)"
    check_text --timeout 5 --linger 0 -- "$ROOT/tests/bin/core_go_fake" read
    [[ "$output" == *$'\nrun 2, default mode (strict, chosen by itself): '* ]]
    [[ "$output" == *"is a Go program (raw system calls)"* ]]
}

# A program the library cannot enter as COMMAND of --check, run by nobody
# (secure execution drops LD_PRELOAD for a setuid, setgid or capability
# file): the check names the finding, its default-mode run is the filter
# (the junk on its stderr, none on its stdout), and with
# STDIOGATE_AUTO_STRICT=0 that run is really unguarded: 2, for that reason,
# the fix --strict.  A container CLI (check_srv named docker, which the
# library does enter here) is chosen strict by its name alone.  Unwrapped,
# each run has the junk (the rows can fail).
entered_row() {
    local want auto key file
    IFS='|' read -r want auto key file <<<"$*"
    status=0
    STDIOGATE_AUTO_STRICT=$auto timeout "$CHECK_BOUND" setpriv --reuid=nobody --regid=nogroup --clear-groups \
        "$dir/stdiogate" --check --json --timeout 20 --linger 0 -- "$dir/$file" banner serving \
        >"$BATS_TEST_TMPDIR/check.json" 2>"$BATS_TEST_TMPDIR/check.err" || status=$?
    expect "$key $auto" "$want" "$status $(q '"\(.program.'"$key"') \(.program.default_mode) \(.runs[0].stdout.junk_bytes) \(.runs[1].stdout.junk_bytes) \(.runs[1].stderr.last_bytes | endswith("handled tools/list\\n")) \(.verdict.fixed_by) \(.verdict.config.args[0])"')"
}

@test "check families: setuid, setgid, file capabilities and a container CLI as COMMAND: said, the filter by itself; without it unguarded (2)" {
    [ "$(id -u)" -eq 0 ] || skip "needs root to make setuid and capability files and to run as nobody"
    tree_in_tmp entered
    for f in suid sgid caps docker; do cp "$SRV" "$dir/$f"; done
    chmod u+s "$dir/suid"
    chmod g+s "$dir/sgid"
    setcap cap_net_bind_service+ep "$dir/caps"
    row_table entered_row \
        "1 true strict 44 0 true gated $dir/suid|1|setuid|suid" \
        "2 true gate 44 44 false strict --strict|0|setuid|suid" \
        "1 true strict 44 0 true gated $dir/sgid|1|setgid|sgid" \
        "2 true gate 44 44 false strict --strict|0|setgid|sgid" \
        "1 true strict 44 0 true gated $dir/caps|1|capabilities|caps" \
        "2 true gate 44 44 false strict --strict|0|capabilities|caps" \
        "1 true strict 44 0 true gated $dir/docker|1|container|docker" \
        "1 true gate 44 0 true gated $dir/docker|0|container|docker"
    entered_row "2 true gate 44 44 false strict --strict|0|setuid|suid"
    expect reason "44 bytes of non-protocol output (20 before the first message, 24 while serving); the library cannot guard this program's own stdout (see the warning above); --strict keeps them off the wire" "$(q .verdict.summary)"
    expect warning "$dir/suid is setuid, so the dynamic linker drops LD_PRELOAD: its stdout is not guarded" "$(q '.program.warnings | join("/")')"
    status=0
    timeout "$CHECK_BOUND" setpriv --reuid=nobody --regid=nogroup --clear-groups \
        "$dir/stdiogate" --check --timeout 20 --linger 0 -- "$dir/caps" banner serving >check.txt 2>check.err || status=$?
    rm -rf "$dir"
    expect text_status 1 "$status"
    grep -qxF "  default mode: strict, chosen by itself (a program with file capabilities); with --gate-only the wrapper would warn:" check.txt || { cat check.txt; false; }
    grep -qxF "    stdiogate: warning: $dir/caps has file capabilities, so the dynamic linker drops LD_PRELOAD: its stdout is not guarded" check.txt || { cat check.txt; false; }
}

# The text report's command lines are for a shell to read back (the
# header's, and each run's): every character a shell treats specially is
# quoted, in every line.
@test "check families: report quoting: every command line of the text report, read by a shell, gives back each argument" {
    local args=('a|b' '{x}' '~' 'a\b' '"q"' '*' ';x' 'a&b' '#c' '`x`' '!' $'tab\there' 'é' '(x)' '<y>' '[z]' '^' '?')
    check_text --linger 0 -- "$SRV" banner -- "${args[@]}"
    expect status 1 "$status"
    local want=("$SRV" banner -- "${args[@]}") lines line got n k
    mapfile -t lines < <(grep -E '^(run [0-9], [^:]*|stdiogate --check \([^)]*\)): ' check.txt | sed 's/^[^:]*: //')
    expect lines 4 "${#lines[@]}"
    for line in "${lines[@]}"; do
        eval "got=($line)"
        k=$((${#got[@]} - ${#want[@]}))
        [ "$k" -ge 0 ] || { echo "read back ${#got[@]} words from: $line"; false; }
        for n in "${!want[@]}"; do
            [ "${got[$((k + n))]}" = "${want[$n]}" ] || { echo "word $n: [${got[$((k + n))]}], not [${want[$n]}]: $line"; false; }
        done
    done
}

# status_row STATUS|ARGS: the same check in JSON and in text: the text's
# verdict line is the JSON's status and summary; the runs in order
status_row() {
    local want args
    IFS='|' read -r want args <<<"$*"
    # shellcheck disable=SC2086  # the row's words
    set -- $args
    check "$@"
    local summary modes
    summary=$(q .verdict.summary)
    modes=$(q '[.runs[].mode] | join(" ")')
    expect "$* status" "$want" "$status"
    expect "$* modes" "unwrapped gated strict" "$modes"
    check_text "$@"
    expect "$* text status" "$want" "$status"
    expect "$* verdict line" 1 "$(grep -cxF "verdict (exit status $want): $summary." <<<"$output")"
    expect "$* run lines" "1 2 3" "$(sed -n 's/^run \([0-9]\), \(unwrapped\|default mode\|--strict\): .*/\1/p' <<<"$output" | paste -sd' ')"
}

@test "check families: every exit status: the text's verdict line is the JSON's, the runs in order" {
    row_table status_row \
        "0|--linger 0 -- $SRV" \
        "1|--linger 0 -- $SRV banner" \
        "2|--linger 0 -- $SRV serving raw" \
        "3|--linger 0 -- $SRV wrongid" \
        "4|--linger 0 -- $SRV exit" \
        "4|--linger 0 -- ./no-such-server" \
        "5|--timeout 1 --linger 0 -- $SRV silent"
}
