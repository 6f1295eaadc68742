#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Core gate: the first-message detector seen from outside.  The gate must
# open exactly when the server has read the end of the client's first
# message: not before (startup "chatter" written after each partial read
# must still reach stderr) and not after (an answer written at the end of the
# message must reach the wire), whatever the framing and however the bytes
# arrive.

load ../helpers

SRV=$BIN/core_srv

@test "framing: the message sent one byte at a time, read one byte per read(2), chatter after each" {
    JUNK=(printf-junk chatter)
    init_diverted --bytewise -- "$SRV" read1 printf chatter
    assert_gate_opened_by read "$INIT_BYTES"
    # one chatter line per byte read before the end of the message
    [ "$(grep -c '^chatter$' "$ERR")" -ge 200 ]
}

@test "framing: the message sent one byte at a time, read with read(2) chunks" {
    JUNK=(write-junk chatter)
    init_diverted --bytewise -- "$SRV" read write chatter
    assert_gate_opened_by read "$INIT_BYTES"
}

@test "framing: the message sent one byte at a time, read with fgets" {
    JUNK=(printf-junk)
    init_diverted --bytewise -- "$SRV" fgets printf
    assert_gate_opened_by fgets "$INIT_BYTES"
}

@test "framing: the message sent one byte at a time, read with getc, chatter after each" {
    JUNK=(printf-junk chatter)
    init_diverted --bytewise -- "$SRV" getc printf chatter
    assert_gate_opened_by getc "$INIT_BYTES"
}

@test "framing: the message sent one byte at a time, read with inline getc_unlocked (__uflow)" {
    JUNK=(printf-junk chatter)
    init_diverted --bytewise -- "$SRV" uflow printf chatter
    assert_gate_opened_by __uflow "$INIT_BYTES"
}

# split_everywhere READPATH MESSAGE FRAMING EXPECTED-STDOUT CALL
# One session per split offset (client.py --split-every): the first part is
# consumed before the rest is written; the server writes "chatter" after each
# partial read.  At level 2, each session's gate must have been opened by
# CALL after all of MESSAGE's bytes (its closing brace for a JSON line), not
# by the fail-safe.  Tagged every-offset: `make check-ubsan` leaves these
# out (its comment says why).
split_everywhere() {
    local path=$1 msg=$2 framing=$3 want=$4 call=$5 k bad=() d=$BATS_TEST_TMPDIR n
    local -x STDIOGATE_DEBUG=2
    n=$(printf %s "$msg" | wc -c)
    [ "$framing" = lsp ] || n=$((n - 1))
    JUNK=(write-junk chatter)
    both --split 1 --send "$msg" --framing "$framing" -- "$SRV" "$path" write chatter
    printf '%s' "$want" >"$d/want"
    status=0
    "$PYTHON" "$CLIENT" --gate --split-every --send "$msg" --framing "$framing" \
        --out "$d/out.%d" --err "$d/err.%d" -- "$SRV" "$path" write chatter || status=$?
    for ((k = 1; k < ${#msg}; k++)); do
        if ! cmp -s "$d/want" "$d/out.$k" || ! grep -qF write-junk "$d/err.$k" ||
           grep -qF -e write-junk -e chatter "$d/out.$k" ||
           ! grep -qE "^stdiogate\[[0-9]+\]: gate opened by $call after $n bytes\$" "$d/err.$k" ||
           grep -qF -e ': the server answered' -e "$FAILSAFE_WARNING" "$d/err.$k"; then
            bad+=("$k")
            if [ "${#bad[@]}" = 1 ]; then
                echo "first failure, split at $k:" >&2
                OUT=$d/out.$k ERR=$d/err.$k show_run
            fi
        fi
    done
    if [ "${#bad[@]}" != 0 ] || [ "$status" != 0 ]; then
        echo "client status $status; wrong output at ${#bad[@]} of $((${#msg} - 1)) offsets: ${bad[*]}" >&2
        return 1
    fi
}

# bats test_tags=every-offset
@test "framing: a real initialize split at every offset (read)" {
    split_everywhere read "$INIT"$'\n' line "$(answer 0 initialize)"$'\n' read
}

# bats test_tags=every-offset
@test "framing: a real initialize split at every offset (getc)" {
    split_everywhere getc "$INIT"$'\n' line "$(answer 0 initialize)"$'\n' getc
}

# bats test_tags=every-offset
@test "framing: an LSP initialize split at every offset (read)" {
    split_everywhere read "$(lsp_frame "$LSP_INIT")" lsp "$(lsp_frame "$(answer 1 initialize)")" read
}

@test "framing: ping before initialize, in one write: both answered, in order" {
    JUNK=(printf-junk write-junk)
    diverted --send "$PING"$'\n'"$INIT"$'\n' --frames 2 -- "$SRV" read printf write
    assert_gate_opened_by read "${#PING}"  # the first message is the ping
    assert_frames "$(answer '"p1"' ping)" "$(answer 0 initialize)"
}

@test "framing: ping answered before initialize is sent" {
    JUNK=(printf-junk write-junk)
    diverted --each --line "$PING" --line "$INIT" -- "$SRV" fgets printf write
    assert_gate_opened_by fgets "${#PING}"
    assert_frames "$(answer '"p1"' ping)" "$(answer 0 initialize)"
}

@test "framing: server/discover first (MCP 2026), then initialize" {
    JUNK=(printf-junk write-junk)
    diverted --each --line "$DISCOVER" --line "$INIT" -- "$SRV" read printf write
    assert_gate_opened_by read "${#DISCOVER}"
    assert_frames "$(answer 1 server/discover)" "$(answer 0 initialize)"
}

@test "framing: leading blank lines and CRLF line ends" {
    JUNK=(printf-junk write-junk)
    diverted --send $'\r\n\n  \r\n'"$INIT"$'\r\n' -- "$SRV" read1 printf write chatter
    assert_gate_opened_by read $((7 + INIT_BYTES))  # the leading blank lines count
    assert_stderr_has chatter
    assert_frames "$(answer 0 initialize)"
}

@test "framing: a reader that stops at the closing brace answers before reading the newline" {
    JUNK=(printf-junk chatter)
    diverted --bytewise --line "$INIT_TRICKY" -- "$SRV" read1 brace printf chatter
    assert_gate_opened_by read "${#INIT_TRICKY}"
    assert_frames "$(answer 7 initialize)"
}

@test "framing: a getc reader that stops at the closing brace" {
    JUNK=(printf-junk chatter)
    diverted --line "$INIT_TRICKY" -- "$SRV" getc brace printf chatter
    assert_gate_opened_by getc "${#INIT_TRICKY}"
    assert_frames "$(answer 7 initialize)"
}

@test "framing: braces, brackets, quotes and backslashes inside strings do not end the message" {
    # the server answers at its own brace balance; chatter after each byte
    # until then must all be diverted
    JUNK=(chatter)
    diverted --bytewise --line "$INIT_TRICKY" -- "$SRV" read1 brace chatter
    assert_gate_opened_by read "${#INIT_TRICKY}"
    n=$(grep -c '^chatter$' "$ERR")
    [ "$n" -eq $((${#INIT_TRICKY} - 1)) ] || { echo "chatter lines on stderr: $n, expected $((${#INIT_TRICKY} - 1))" >&2; false; }
    assert_frames "$(answer 7 initialize)"
}

@test "framing: LSP Content-Length initialize (read)" {
    JUNK=(printf-junk write-junk)
    diverted --lsp "$LSP_INIT" --framing lsp -- "$SRV" read printf write
    assert_gate_opened_by read "$(lsp_frame "$LSP_INIT" | wc -c)"
    assert_stdout_bytes "$(lsp_frame "$(answer 1 initialize)")"
}

@test "framing: LSP initialize sent one byte at a time, read one byte per call, chatter after each" {
    JUNK=(printf-junk chatter)
    diverted --bytewise --lsp "$LSP_INIT" --framing lsp -- "$SRV" read1 printf chatter
    assert_gate_opened_by read "$(lsp_frame "$LSP_INIT" | wc -c)"
    assert_stdout_bytes "$(lsp_frame "$(answer 1 initialize)")"
}

@test "framing: LSP initialize with two headers, read with fgets + fread (body read exactly)" {
    JUNK=(printf-junk write-junk)
    msg=$'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n'"$(lsp_frame "$LSP_INIT")"
    diverted --bytewise --send "$msg" --framing lsp -- "$SRV" lspstdio printf write
    assert_gate_opened_by fread "$(printf %s "$msg" | wc -c)"
    assert_stdout_bytes "$(lsp_frame "$(answer 1 initialize)")"
}

@test "framing: DAP initialize (Content-Length, not JSON-RPC)" {
    JUNK=(printf-junk write-junk)
    diverted --bytewise --lsp "$DAP_INIT" --framing lsp -- "$SRV" read1 printf write chatter
    assert_gate_opened_by read "$(lsp_frame "$DAP_INIT" | wc -c)"
    assert_stderr_has chatter
    assert_stdout_bytes "$(lsp_frame '{"seq":1,"type":"response","request_seq":1,"success":true,"command":"initialize"}')"
}

@test "framing: a 1 MiB first message, chatter after every partial read" {
    python3 -c '
import sys
pad = "x" * (1 << 20)
sys.stdout.write("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"initialize\",\"params\":{\"pad\":\"%s\"}}\n" % pad)
' >"$BATS_TEST_TMPDIR/big"
    JUNK=(write-junk)
    diverted --send-file "$BATS_TEST_TMPDIR/big" -- "$SRV" read write chatter
    assert_gate_opened_by read $(($(wc -c <"$BATS_TEST_TMPDIR/big") - 1))
    assert_stdout_lacks chatter
    assert_frames "$(answer 3 initialize)"
}

@test "framing: end of input before a complete message opens the gate" {
    JUNK=(printf-junk write-junk)
    partial='{"jsonrpc":"2.0","id":9,"method":"initialize","params":{'
    STDIOGATE_DEBUG=2 diverted --send "$partial" --frames 0 -- "$SRV" read printf write
    assert_frames "$(answer 9 initialize)"
    assert_stderr_has "gate opened by read at end of input"
    assert_gate_opened_by read eof
}

@test "framing: LSP header names in any case, Content-Type after Content-Length" {
    JUNK=(printf-junk chatter)
    msg=$'content-length: '"${#LSP_INIT}"$'\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n'"$LSP_INIT"
    diverted --bytewise --send "$msg" --framing lsp -- "$SRV" read1 printf chatter
    assert_gate_opened_by read "$(printf %s "$msg" | wc -c)"
    assert_stdout_bytes "$(lsp_frame "$(answer 1 initialize)")"
}

# (coverage round of 2026-12-07: no client sent blanks after the value.)
# Blanks after the Content-Length value are allowed (HTTP's optional white
# space): the gate opens at the end of the body, by the read.
@test "framing: LSP Content-Length with a tab and a space after its value, one byte at a time" {
    JUNK=(printf-junk chatter)
    msg=$'Content-Length: '"${#LSP_INIT}"$'\t \r\n\r\n'"$LSP_INIT"
    diverted --bytewise --send "$msg" --framing lsp -- "$SRV" read1 printf chatter
    assert_gate_opened_by read "$(printf %s "$msg" | wc -c)"
    assert_stdout_bytes "$(lsp_frame "$(answer 1 initialize)")"
}
