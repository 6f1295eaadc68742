#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# What passes as protocol is as wide as what real clients accept (issue 42):
# a server whose answers are protocol to real clients but lay outside what
# the classifier took for protocol (tests/fixtures/wide_server.py), run
# unwrapped, in the default mode and with --strict.  The client sends six
# requests, closes stdin and waits for the server's exit (no sleeps); the
# wire must be byte for byte what the server wrote unwrapped (less the junk,
# which must reach stderr whole).

load ../helpers

W="$FIX/wide_server.py"

setup() {
    printf '#!/bin/sh\nexec "%s" "$@"\n' "$ROOT/stdiogate" >"$BATS_TEST_TMPDIR/default"
    printf '#!/bin/sh\nexec "%s" --strict "$@"\n' "$ROOT/stdiogate" >"$BATS_TEST_TMPDIR/strict"
    chmod +x "$BATS_TEST_TMPDIR/default" "$BATS_TEST_TMPDIR/strict"
    REQS=()
    local i
    for i in 1 2 3 4 5 6; do
        REQS+=("--${FRAMING:-line}" "{\"jsonrpc\":\"2.0\",\"id\":$i,\"method\":\"m$i\"}")
    done
}

# wide CASE: unwrapped, the answers on stdout; saved as $EXPECTED
unwrapped() {
    ungated --frames 0 "${REQS[@]}" -- "$PYTHON" "$W" "$1"
    assert_status 0
    cp "$OUT" "$EXPECTED"
}

# in_mode MODE CASE: stdout byte for byte $EXPECTED
in_mode() {
    STDIOGATE_WRAPPER=$BATS_TEST_TMPDIR/$1 gated --frames 0 "${REQS[@]}" -- "$PYTHON" "$W" "$2"
    assert_status 0
    cmp -s "$EXPECTED" "$OUT" || { echo "--- $1: stdout should be:" >&2; cat "$EXPECTED" >&2; show_run; return 1; }
}

@test "wide: answers with NaN, Infinity and -Infinity (Python's json.dumps by default) reach the client, default and --strict" {
    unwrapped nan
    grep -q '"x": NaN, "y": \[Infinity, -Infinity\]' "$EXPECTED"
    [ "$(wc -l <"$EXPECTED")" -eq 6 ]
    in_mode default nan
    in_mode strict nan
}

@test "wide: LSP frames with a header of any name, after Content-Length (X_Request_Id) or before it (X-Request-Id), reach the client whole, default and --strict" {
    FRAMING=lsp setup
    unwrapped headers
    grep -q 'X_Request_Id: 1' "$EXPECTED"
    grep -q 'X-Request-Id: 6' "$EXPECTED"
    in_mode default headers
    in_mode strict headers
}

@test "wide: the session's framing follows the client's first message: a JSON-lines server printing an HTTP response (a Content-Length block) after the gate, default and --strict" {
    unwrapped http-late
    grep -q '^Content-Length: 12' "$EXPECTED"
    # the client skips the response's lines: its answers are the six JSON lines
    grep '^{"jsonrpc"' "$EXPECTED" >"$BATS_TEST_TMPDIR/answers"
    [ "$(wc -l <"$BATS_TEST_TMPDIR/answers")" -eq 6 ]
    cp "$BATS_TEST_TMPDIR/answers" "$EXPECTED"
    printf 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{"ok": true}\n' >"$BATS_TEST_TMPDIR/junk"
    local mode
    for mode in default strict; do
        in_mode $mode http-late
        # the response whole on stderr, and nothing else
        cmp "$BATS_TEST_TMPDIR/junk" "$ERR" || { show_run; return 1; }
    done
}

@test "wide: the session's framing follows the client's first message: a JSON-lines server writing a JSON-RPC message in a Content-Length frame after the gate (it would glue to the next answer): the frame to stderr, default mode" {
    unwrapped frame-late
    # unwrapped, the frame's body and the first answer make one line: a
    # JSON-lines client cannot parse it, and loses that answer
    local note='{"jsonrpc":"2.0","method":"window/logMessage","params":{"type":3,"message":"ready"}}'
    grep -qF "$note"'{"jsonrpc":"2.0","id":1,' "$EXPECTED"
    [ "$(grep -c '^{"jsonrpc":"2.0","id":' "$EXPECTED")" -eq 5 ]
    # wrapped: the six answers, each its own line, and the frame whole on stderr
    local i
    for i in 1 2 3 4 5 6; do printf '{"jsonrpc":"2.0","id":%d,"result":{"n":%d}}\n' $i $i; done >"$EXPECTED"
    printf 'Content-Length: %d\r\n\r\n%s' ${#note} "$note" >"$BATS_TEST_TMPDIR/junk"
    in_mode default frame-late
    perl -0pe 's/stdiogate\[\d+\]: [^\n]*\n//g' "$ERR" | cmp "$BATS_TEST_TMPDIR/junk" - || { show_run; return 1; }
}

@test "wide: a JSON-lines server printing an HTTP response (a Content-Length block) before it reads anything: the response to stderr, the six answers on the wire, default and --strict" {
    unwrapped http
    grep -q '^Content-Length: 12' "$EXPECTED"
    # the client skips the response's lines: its answers are the six JSON lines
    grep '^{"jsonrpc"' "$EXPECTED" >"$BATS_TEST_TMPDIR/answers"
    [ "$(wc -l <"$BATS_TEST_TMPDIR/answers")" -eq 6 ]
    cp "$BATS_TEST_TMPDIR/answers" "$EXPECTED"
    printf 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{"ok": true}\n' >"$BATS_TEST_TMPDIR/junk"
    local mode
    for mode in default strict; do
        in_mode $mode http
        cmp "$BATS_TEST_TMPDIR/junk" "$ERR" || { show_run; return 1; }
    done
}

@test "wide: a server whose reads stdiogate cannot see prints an HTTP response at start: the fail-safe takes no answer from it, the answers after it open the gate" {
    [ -x "$BIN/fam_emit" ] || { echo "make fixtures" >&2; return 1; }
    local http=$BATS_TEST_TMPDIR/http
    printf 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{"ok": true}\n' >"$http"
    ungated --frames 0 --line "$INIT" --line "$PING" -- "$BIN/fam_emit" "$http"
    assert_status 0
    { cat "$http"; answer 0 initialize; echo; answer '"p1"' ping; echo; } | cmp - "$OUT" || { show_run; return 1; }
    gated --frames 0 --line "$INIT" --line "$PING" -- "$BIN/fam_emit" "$http"
    assert_status 0
    { answer 0 initialize; echo; answer '"p1"' ping; echo; } | cmp - "$OUT" || { show_run; return 1; }
    perl -0pe 's/stdiogate\[\d+\]: [^\n]*\n//g' "$ERR" | cmp "$http" - || { show_run; return 1; }
}

@test "wide: answers pretty-printed over several lines (json.dumps indent=2, read by Go's json.Decoder) reach the client whole, default and --strict" {
    unwrapped pretty
    [ "$(grep -c '^{$' "$EXPECTED")" -eq 6 ]
    grep -q '^  "jsonrpc": "2.0",$' "$EXPECTED"
    in_mode default pretty
    [ ! -s "$ERR" ] || { show_run; return 1; }
    in_mode strict pretty
    [ ! -s "$ERR" ] || { show_run; return 1; }
}

# Past the 64 KiB bound a message over lines streams to the wire through its
# value's close (detect.h's SW_VALUE): the nesting counted there is of
# arrays as well as objects.
@test "wide: pretty-printed answers over 64 KiB with arrays opened and closed past the bound reach the client whole, default and --strict" {
    unwrapped pretty-big
    [ "$(grep -c '^}$' "$EXPECTED")" -eq 6 ] && [ "$(wc -c <"$EXPECTED")" -gt $((6 * 65536)) ]
    in_mode default pretty-big
    [ ! -s "$ERR" ] || { show_run; return 1; }
    in_mode strict pretty-big
    [ ! -s "$ERR" ] || { show_run; return 1; }
}

# Past the bound, SW_VALUE follows strings to count the nesting: an escaped
# quote inside one does not end it (ind7-value-escape-forgotten: read as the
# end, the quotes after it were taken inverted, the answer's close was never
# seen and the log line after it went to the wire).
@test "wide: pretty-printed answers over 64 KiB with an escaped quote in a string past the bound, each followed by a log line: the answers whole on the wire, the log lines on stderr, default and --strict" {
    unwrapped pretty-quote
    grep -qF '"screen": "27\" monitor"' "$EXPECTED"
    [ "$(grep -c '^log: answered [1-6]$' "$EXPECTED")" -eq 6 ]
    grep '^log: ' "$EXPECTED" >"$BATS_TEST_TMPDIR/junk"
    grep -v '^log: ' "$EXPECTED" >"$BATS_TEST_TMPDIR/answers"
    [ "$(grep -c '^}$' "$BATS_TEST_TMPDIR/answers")" -eq 6 ]
    cp "$BATS_TEST_TMPDIR/answers" "$EXPECTED"
    local mode
    for mode in default strict; do
        in_mode $mode pretty-quote
        perl -0pe 's/stdiogate\[\d+\]: [^\n]*\n//g' "$ERR" | cmp "$BATS_TEST_TMPDIR/junk" - || { show_run; return 1; }
    done
}
