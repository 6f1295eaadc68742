#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The wrapper's strict-mode options and the launcher (stdiogate-filter): bad
# values, a missing filter, the pid, stdin, the environment and the signal
# dispositions COMMAND gets, the filter's descriptors and parent, and its
# diagnostics by level.

bats_require_minimum_version 1.5.0
load ../strict_helpers

@test "strict wrapper: --protocol with a bad value: status 125, one line, nothing on stdout" {
    run --separate-stderr "$ROOT/stdiogate" --strict --protocol xml true
    [ "$status" -eq 125 ]
    [ -z "$output" ]
    [ "$stderr" = "stdiogate: --protocol takes auto, jsonl or framed, or the protocol: mcp, lsp or dap" ]
    run --separate-stderr "$ROOT/stdiogate" --protocol
    [ "$status" -eq 125 ]
}

@test "strict wrapper: --protocol=VALUE and --protocol VALUE alone choose the protocol of the default mode's guard (no filter)" {
    for opt in --protocol=jsonl "--protocol jsonl"; do
        # shellcheck disable=SC2086  # two words on purpose
        run --separate-stderr env STDIOGATE_DEBUG=2 "$ROOT/stdiogate" $opt -- sh -c 'read x; echo x' </dev/null
        [ "$status" -eq 0 ]
        [ -z "$output" ]    # "x" is junk
        [[ "$stderr" != *"strict: filtering"* ]]
        grep -qx x <<<"$stderr"    # kept off by the shell's own guard (it exits with _exit: no summary)
    done
}

@test "strict wrapper: the filter missing beside the library: status 125, one line" {
    cd "$BATS_TEST_TMPDIR"
    mkdir lonely
    cp "$ROOT/stdiogate" "$ROOT/libstdiogate.so" lonely/
    run --separate-stderr lonely/stdiogate --strict true
    [ "$status" -eq 125 ]
    [[ "$stderr" == "stdiogate: cannot find stdiogate-filter beside "*"/lonely/libstdiogate.so" ]]
}

@test "strict launcher: COMMAND not found 127, not executable 126, bad usage 125" {
    run -127 "$ROOT/stdiogate-filter" -- /nonexistent/cmd
    run "$ROOT/stdiogate-filter" -- "$ROOT/README.md"
    [ "$status" -eq 126 ]
    run "$ROOT/stdiogate-filter" --bogus -- true
    [ "$status" -eq 125 ]
    run "$ROOT/stdiogate-filter"
    [ "$status" -eq 125 ]
}

@test "strict launcher: COMMAND keeps the wrapper's pid, parent and stdin; its stdout is the pipe, and STDIOGATE_WIRE names no wire, only the filter to reap" {
    cd "$BATS_TEST_TMPDIR"
    echo in >stdin-file
    cat >report <<'SH'
echo pid $$ >&2
echo ppid $(sed -n "s/^PPid:[[:space:]]*//p" /proc/$$/status) >&2
echo stdin $(stat -L -c %d:%i /proc/$$/fd/0) >&2
echo stdout $(stat -L -c "%d:%i %F" /proc/$$/fd/1) >&2
echo wire ${STDIOGATE_WIRE-unset} >&2
SH
    # (the launcher alone, without LD_PRELOAD: the library would divert fd 1 and consume the marker)
    run --separate-stderr sh -c '
        "$1" -- sh report <stdin-file &
        echo launched $! >&2
        echo shell $$ >&2
        echo stdin-file $(stat -L -c %d:%i stdin-file) >&2
        wait $!' sh "$ROOT/stdiogate-filter"
    echo "$stderr"
    [ "$status" -eq 0 ]
    [ -z "$output" ]
    get() { printf '%s\n' "$stderr" | sed -n "s/^$1 //p"; }
    [ "$(get pid)" = "$(get launched)" ]        # the pid the client started
    [ "$(get ppid)" = "$(get shell)" ]          # still the client's child
    [ "$(get stdin)" = "$(get stdin-file)" ]    # stdin untouched
    [ "$(get stdout | cut -d' ' -f2-)" = fifo ]
    # the library, if loaded, diverts nothing: the marker names no wire, only
    # the filter's process to reap at exit (this one's pid, then the middle's)
    [[ "$(get wire)" == "filter:$(get pid):"[1-9]* ]]
}

@test "strict launcher: the filter is not COMMAND's child, holds only the wire, stderr and the pipe" {
    cd "$BATS_TEST_TMPDIR"
    cat >report <<'SH'
exec 4</dev/null
wait
# the filter says it is filtering once it is set up, maybe after this starts
for _ in $(seq 2000); do grep -q "strict: filtering" err-log && break; sleep 0.01; done
pid=$(sed -n "s/^stdiogate\[\([0-9]*\)\]: strict: filtering.*/\1/p" err-log)
echo "server $$ filter $pid ppid $(sed -n "s/^PPid:[[:space:]]*//p" /proc/$pid/status)" >&2
echo "filter fds $(ls /proc/$pid/fd | sort -n | tr "\n" " ")" >&2
echo "filter stdin $(readlink /proc/$pid/fd/0 || echo closed)" >&2
SH
    # `wait` in the server returns at once: it has no child (the filter exits
    # only when the server's stdout closes: as a child it would hang the wait)
    timeout 20 env STDIOGATE_DEBUG=2 "$ROOT/stdiogate" --strict -- sh report 2>err-log </dev/null
    cat err-log
    fds=$(sed -n 's/^filter fds //p' err-log)
    # 1 the wire, 2 stderr, 3 the pipe, maybe 4 its own non-blocking stderr; never 0
    [[ "$fds" =~ ^1\ 2\ 3\ (4\ )?$ ]]
    grep -q "filter stdin closed" err-log
    read -r _ server _ filter _ ppid < <(grep "^server " err-log)
    [ -n "$filter" ] && [ "$ppid" != "$server" ]
}

# pipes FILE: strict_pipes.py writes FILE, unwrapped and under --strict;
# sizes "START END WIRE" of each run in $plain and $strict
pipes() {
    local run
    for run in plain:ungated strict:gated; do
        "${run#*:}" --frames 0 --wire-size "$BATS_TEST_TMPDIR/wire" -- "$PYTHON" "$FIX/strict_pipes.py" "$1"
        assert_status 0
        assert_file_stdout "$1"
        printf -v "${run%%:*}" '%s %s' "$(sed -n 's/^pipe //p' "$ERR" | paste -sd' ')" "$(cat "$BATS_TEST_TMPDIR/wire")"
    done
    echo "unwrapped: $plain; strict: $strict" >&2
}

@test "strict launcher: COMMAND's stdout starts as large as unwrapped, and small messages leave both pipes alone" {
    strict_wrapper
    printf '{"jsonrpc":"2.0","id":%d,"result":{}}\n' 1 2 3 >"$BATS_TEST_TMPDIR/small"
    pipes "$BATS_TEST_TMPDIR/small"
    [ "$plain" = "65536 65536 65536" ]
    [ "$strict" = "$plain" ]
}

@test "strict launcher: a message too large to hold grows COMMAND's pipe and the wire to 1 MiB (fewer wake-ups)" {
    strict_wrapper
    big=$BATS_TEST_TMPDIR/big
    { printf '{"jsonrpc":"2.0","id":1,"result":{"text":"'; head -c 524288 /dev/zero | tr '\0' x; printf '"}}\n'; } >"$big"
    pipes "$big"
    [ "$plain" = "65536 65536 65536" ]
    [ "$strict" = "65536 1048576 1048576" ]
}

@test "strict launcher: COMMAND gets the caller's signal dispositions and mask (ignored SIGPIPE and SIGINT kept, a blocked signal kept)" {
    # the caller: ignores SIGPIPE and SIGINT, blocks SIGUSR1, then execs
    caller() {
        "$PYTHON" -c '
import os, signal, sys
signal.signal(signal.SIGPIPE, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
    }
    sig() { grep -E "^Sig(Blk|Ign)" | tr '\n' ' '; }
    # ignores SIGNALS-MASK: the SigIgn of a sig() line has every bit of MASK
    # (the caller's own environment may ignore more: real-time signals, say)
    ignores() { local ign=${1#*SigIgn:}; ign=${ign//[[:space:]]/}; (( (16#$ign & 16#$2) == 16#$2 )); }
    unwrapped=$(caller cat /proc/self/status | sig)
    launched=$(caller "$ROOT/stdiogate-filter" -- cat /proc/self/status 2>&1 >/dev/null | sig)
    echo "unwrapped: $unwrapped"
    echo "launcher: $launched"
    [[ "$unwrapped" == *"SigBlk:	0000000000000200"* ]]    # SIGUSR1 (10)
    ignores "$unwrapped" 1001002    # SIGINT (2), SIGPIPE (13), Python's SIGXFSZ
    [ "$launched" = "$unwrapped" ]
    # through the wrapper (a dash script, which clears the mask itself, as without --strict)
    wrapped=$(caller "$ROOT/stdiogate" --strict -- cat /proc/self/status 2>&1 >/dev/null | sig)
    echo "wrapped: $wrapped"
    ignores "$wrapped" 1001002
}

# run_synced CMD...: like `run --separate-stderr`, stdin /dev/null, but
# stderr is read to its end: the filter writes its last junk and its exit
# line after the server has exited, and closes stderr only when it is done.
run_synced() {
    local o=$BATS_TEST_TMPDIR/synced-out
    stderr=$( { "$@" </dev/null 2>&1 >"$o"; echo $? >"$o.status"; } )
    output=$(cat "$o")
    status=$(cat "$o.status")
}

@test "strict diagnostics: level 1 says nothing in the normal case; level 2 counts the junk when the filter exits" {
    cd "$BATS_TEST_TMPDIR"
    srv='read x; echo junk1; echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"; printf junk2'
    run_synced "$ROOT/stdiogate" --strict -- sh -c "$srv"
    [ "$status" -eq 0 ]
    [ "$output" = '{"jsonrpc":"2.0","id":1,"result":{}}' ]
    [ "$stderr" = "$(printf 'junk1\njunk2')" ]
    run_synced env STDIOGATE_DEBUG=2 "$ROOT/stdiogate" --strict -- sh -c "$srv"
    [[ "$stderr" == *"strict: end of the server's output; 11 bytes of junk in 2 lines diverted to stderr, 0 of them dropped"* ]]
    run_synced env STDIOGATE_DEBUG=2 "$ROOT/stdiogate" --strict --discard -- sh -c 'read x; echo junk1'
    # (discarded as asked is not dropped)
    [[ "$stderr" == *"6 bytes of junk in 1 line diverted to /dev/null, 0 of them dropped"* ]]
    [[ "$stderr" != *"junk1"* ]]
}

@test "strict --log FILE: the junk appended, each line prefixed NAME[PID]:, as well as stderr; --discard: the log only (#25)" {
    cd "$BATS_TEST_TMPDIR"
    printf 'an earlier line\n' >log
    srv='echo $$ >pid; read x; echo junk1; echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"; printf junk2'
    run_synced "$ROOT/stdiogate" --strict --log log -- sh -c "$srv"
    [ "$status" -eq 0 ]
    [ "$output" = '{"jsonrpc":"2.0","id":1,"result":{}}' ]
    [ "$stderr" = "$(printf 'junk1\njunk2')" ]
    # the last line, without its newline on stderr, ends its line in the log
    printf 'an earlier line\nsh[%s]: junk1\nsh[%s]: junk2\n' "$(cat pid)" "$(cat pid)" >want
    cmp want log || { cat -A log; false; }
    # --discard and STDIOGATE_LOG, relative: named from the wrapper's directory
    mkdir sub
    rm log
    cd sub
    STDIOGATE_LOG=../log run_synced "$ROOT/stdiogate" --strict --discard -- sh -c "cd /; ${srv/>pid/>$BATS_TEST_TMPDIR/pid}"
    cd ..
    [ "$status" -eq 0 ]
    [ "$output" = '{"jsonrpc":"2.0","id":1,"result":{}}' ]
    [ -z "$stderr" ]
    printf 'sh[%s]: junk1\nsh[%s]: junk2\n' "$(cat pid)" "$(cat pid)" >want
    cmp want log || { cat -A log; false; }
}

# The log names the server by COMMAND's base name, as the default mode's
# helper does (/proc/PID/comm): a COMMAND given by a path (./srv.sh)
# prefixes its lines srv.sh[PID]:, not with the slash before the name
# (ind7-launcher-log-name-slash: '/srv.sh[PID]: ').
@test "strict --log FILE, COMMAND given by a path (./srv.sh): each line prefixed with its base name, NAME[PID]:" {
    cd "$BATS_TEST_TMPDIR"
    printf '#!/bin/sh\necho $$ >pid; read x; echo junk1; echo "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"result\\":{}}"\n' >srv.sh
    chmod +x srv.sh
    run_synced "$ROOT/stdiogate" --strict --log log -- ./srv.sh
    [ "$status" -eq 0 ]
    [ "$output" = '{"jsonrpc":"2.0","id":1,"result":{}}' ]
    [ "$stderr" = junk1 ]
    printf 'srv.sh[%s]: junk1\n' "$(cat pid)" >want
    cmp want log || { cat -A log; false; }
}

# (coverage round of 2026-12-07: the log's write error, stdout closed)
# A log that takes nothing (/dev/full): one warning, at the first write
# that fails, and no more; the junk still reaches stderr whole, the
# protocol the wire.  30000 junk lines: many writes of the log, in more
# than one batch and more than one read.
@test "strict --log FILE that fails every write (/dev/full): one warning, the junk on stderr whole, the protocol on stdout" {
    cd "$BATS_TEST_TMPDIR"
    srv='seq 1 30000 | sed "s/^/junk /"; echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"'
    seq 1 30000 | sed 's/^/junk /' >want-err
    run_synced sh -c "$srv"
    [ "$status" -eq 0 ]
    [ "$(printf '%s\n' "$output" | grep -c '^junk ')" = 30000 ]    # unwrapped: on stdout
    run_synced "$ROOT/stdiogate" --strict --log /dev/full -- sh -c "$srv"
    [ "$status" -eq 0 ]
    [ "$output" = '{"jsonrpc":"2.0","id":1,"result":{}}' ]
    printf '%s\n' "$stderr" | grep -v '^stdiogate\[' | cmp - want-err
    printf '%s\n' "$stderr" | grep '^stdiogate\[' >said || true
    [ "$(wc -l <said)" = 1 ] || { cat said; false; }
    grep -q '^stdiogate\[[0-9]*\]: cannot write the log: No space left on device: not logging any more$' said
}

# stdout closed (>&-): no filter (it would make COMMAND's writes succeed
# into a pipe), a warning; COMMAND's write fails as unwrapped (EBADF).
@test "strict launcher: stdout closed: a warning, COMMAND runs without the filter and its write fails as unwrapped" {
    cd "$BATS_TEST_TMPDIR"
    srv='echo x; echo "echo: $?" >&2'
    sh -c "$srv" >&- 2>unwrapped
    grep -qx 'echo: 1' unwrapped || { cat unwrapped; false; }  # the write failed
    status=0
    timeout 30 "$ROOT/stdiogate" --strict -- sh -c "$srv" >&- 2>wrapped </dev/null || status=$?
    [ "$status" -eq 0 ]
    grep '^stdiogate\[' wrapped >said || true
    grep -qx 'stdiogate\[[0-9]*\]: strict: stdout is closed: running without the filter' said || { cat wrapped; false; }
    [ "$(wc -l <said)" = 1 ]
    grep -v '^stdiogate\[' wrapped | cmp - unwrapped || { cat wrapped; false; }
}

@test "strict install: the filter goes beside the library, the installed wrapper finds it, uninstall removes it" {
    cd "$BATS_TEST_TMPDIR"
    make -C "$ROOT" -s install PREFIX="$PWD/prefix" >&2
    [ -x prefix/lib/stdiogate/stdiogate-filter ]
    run --separate-stderr prefix/bin/stdiogate --strict -- sh -c 'read x; echo junk; echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"' </dev/null
    [ "$status" -eq 0 ]
    [ "$output" = '{"jsonrpc":"2.0","id":1,"result":{}}' ]
    [ "$stderr" = junk ]
    make -C "$ROOT" -s uninstall PREFIX="$PWD/prefix" >&2
    [ ! -e prefix/lib/stdiogate ]
}

# Issue 22: --strict and every --protocol value in both spellings, each
# asserted by what it does: the filter's level-2 line names the protocol,
# and a stream of a frame then a JSON line splits as that protocol splits
# it (auto and framed: the frame passes, the line is junk; jsonl: the
# reverse).  Unwrapped, both are on stdout.  Bad spellings: 125.
@test "strict wrapper: --strict and each --protocol value, as --protocol P and --protocol=P" {
    local m1='{"jsonrpc":"2.0","id":1,"result":{}}' f in row opts proto wire junk bad=() filtered
    f=$(printf 'Content-Length: %d\r\n\r\n%s' "${#m1}" "$m1")
    in=$BATS_TEST_TMPDIR/stream
    printf '%s%s\n' "$f" "$m1" >"$in"
    printf '%s' "$f" >"$BATS_TEST_TMPDIR/frame"
    printf '%s\n' "$m1" >"$BATS_TEST_TMPDIR/line"
    ungated --frames 0 -- "$PYTHON" "$FIX/strict_emit.py" "$in"
    cmp -s "$in" "$OUT" || { echo "unwrapped stdout is not the stream" >&2; show_run; false; }
    for row in "--strict|auto|frame|line" "--strict --protocol auto|auto|frame|line" \
               "--protocol=auto|auto|frame|line" "--protocol jsonl|jsonl|line|frame" \
               "--protocol=jsonl|jsonl|line|frame" "--strict --protocol=jsonl|jsonl|line|frame" \
               "--protocol framed|framed|frame|line" "--protocol=framed|framed|frame|line" \
               "--protocol=framed --strict|framed|frame|line"; do
        IFS='|' read -r opts proto wire junk <<<"$row"
        printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$ROOT/stdiogate" "$opts" >"$BATS_TEST_TMPDIR/w"
        chmod +x "$BATS_TEST_TMPDIR/w"
        STDIOGATE_WRAPPER=$BATS_TEST_TMPDIR/w STDIOGATE_DEBUG=2 gated --frames 0 -- "$PYTHON" "$FIX/strict_emit.py" "$in"
        # the diagnostics out (the exit line may follow junk with no newline)
        perl -0pe 's/stdiogate\[\d+\]: [^\n]*\n//g' "$ERR" >"$ERR.junk"
        # (without --strict the default mode's guard decides, with the same protocol)
        case " $opts" in *" --strict"*) filtered=1 ;; *) filtered= ;; esac
        if [ -n "$filtered" ] && ! grep -q "^stdiogate\[[0-9]*\]: strict: filtering, protocol $proto\$" "$ERR"; then
            echo "=== row failed: $opts: no filter for protocol $proto" >&2; show_run; bad+=("$opts"); continue
        fi
        if [ -z "$filtered" ] && grep -q "strict: filtering" "$ERR"; then
            echo "=== row failed: $opts: a filter without --strict" >&2; show_run; bad+=("$opts"); continue
        fi
        if [ "$status" != 0 ] || ! cmp -s "$BATS_TEST_TMPDIR/$wire" "$OUT" || ! cmp -s "$BATS_TEST_TMPDIR/$junk" "$ERR.junk"; then
            echo "=== row failed: $opts (expected protocol $proto: the $wire on the wire, the $junk on stderr)" >&2
            show_run; bad+=("$opts")
        fi
    done
    for opts in "--protocol=xml" "--protocol=" "--protocol xml" "--protocol" "--protocol=JSONL" "--strictx" "--protocols=auto"; do
        # shellcheck disable=SC2086  # the words of each case
        run --separate-stderr "$ROOT/stdiogate" $opts true
        if [ "$status" -ne 125 ] || [ -n "$output" ] || [[ "$stderr" != "stdiogate: "* ]]; then
            echo "=== bad option $opts: status $status, stdout [$output], stderr [$stderr]" >&2
            bad+=("$opts")
        fi
    done
    [ "${#bad[@]}" = 0 ] || { echo "failed: ${bad[*]}" >&2; false; }
}
