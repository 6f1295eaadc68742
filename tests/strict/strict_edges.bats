#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Strict mode: what passes and what is junk, byte for byte (docs/STRICT.md;
# docs/CONTRACT.md).  A fixture writes an exact byte sequence in one
# write; the test asserts stdout is exactly the protocol part and stderr
# exactly the junk part, and that unwrapped all of it was on stdout.

load ../strict_helpers

setup() {
    strict_wrapper
    IN=$BATS_TEST_TMPDIR/emit
}

# emit WIRE JUNK...: the fixture writes the pieces in the order given
# (printf %b escapes), every odd argument protocol, every even one junk;
# asserts both sides exactly.
check() {
    local want_out=$BATS_TEST_TMPDIR/want-out want_err=$BATS_TEST_TMPDIR/want-err kind=wire p
    : >"$IN"; : >"$want_out"; : >"$want_err"
    for p in "$@"; do
        printf '%b' "$p" >>"$IN"
        if [ $kind = wire ]; then printf '%b' "$p" >>"$want_out"; kind=junk
        else printf '%b' "$p" >>"$want_err"; kind=wire; fi
    done
    ungated --frames 0 -- "$PYTHON" "$FIX/strict_emit.py" "$IN"
    assert_status 0
    cmp -s "$IN" "$OUT" || { echo "unwrapped stdout is not the input" >&2; show_run; return 1; }
    gated --frames 0 -- "$PYTHON" "$FIX/strict_emit.py" "$IN"
    assert_status 0
    cmp -s "$want_out" "$OUT" || { echo "--- stdout should be:" >&2; od -c "$want_out" | head -20 >&2; show_run; return 1; }
    cmp -s "$want_err" "$ERR" || { echo "--- stderr should be:" >&2; od -c "$want_err" | head -20 >&2; show_run; return 1; }
}

M1='{"jsonrpc":"2.0","id":1,"result":{}}'
M2='{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"a } ] \\" { ["}]}}'

@test "strict edge: messages pass whatever the key order; objects without jsonrpc are junk" {
    check "$M1\n" '{"level":30,"msg":"x"}\n' '{"id":3,"result":null,"jsonrpc":"2.0"}\n' \
        '{"params":{"jsonrpc":"2.0"}}\n' "$M2\n"
}

@test "strict edge: a member name spelled with an escape (json, backslash-u0072, pc) counts" {
    check '{"json\\u0072pc":"2.0","id":1,"result":{}}\n' '{"json\\u0072pd":"2.0","id":1}\n'
}

@test "strict edge: a batch (array of JSON-RPC objects) passes; empty or mixed arrays are junk" {
    check "[$M1,$M2]\n" '[]\n[1,2]\n[{"id":1}]\n' "[ $M1 ]\n" "[$M1,{\"a\":1}]\n"
}

# Issue 45: a batch holds objects, never an array: an array inside the
# batch, first or after a message, is junk; arrays of arrays inside a
# message's values are its own business.
@test "strict edge: an array inside a batch is junk (first, after a message, nested twice); arrays of arrays inside a message pass" {
    check '' "[[$M1]]\n" '' "[$M1,[$M1]]\n" '' "[[[$M1]]]\n" \
        '{"jsonrpc":"2.0","id":3,"result":[[1],[[2]],[]]}\n' '' "[$M1,{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":[[[]]]}]\n"
}

@test "strict edge: a UTF-8 BOM before a message is split off to stderr" {
    check '' '\xef\xbb\xbf' "$M1\n"
}

@test "strict edge: a trailing CR (and spaces) before the newline pass with the message" {
    check "$M1\r\n" '' "$M2 \t\r\n"
}

@test "strict edge: junk glued in front, and an object glued in front, are split off" {
    check '' 'progress 50%' "$M1\n" '' '' '{"a":1}' "$M2\n" 'tail [x] {y} ' "$M1\n"
}

@test "strict edge: invalid JSON, a message without its newline, a multi-line object without jsonrpc are junk; one with it passes" {
    check '' '{"jsonrpc" is not json}\n{\n  "level": "info"\n}\n' '{"jsonrpc":"2.0",\n"id":1}\n' \
        '{"jsonrpc":"2.0","a":01}\n' "$M1\n" "$M1 junk\n$M1"
}

@test "strict edge: over lines, a line that begins with '{' or '[' starts anew (a junk line ending in '[' or ':' swallows no answer); a newline in a string fails" {
    check '' '[\n' "$M1\n" '{"a":\n' "$M2\n" '{\n  "jsonrpc": "2.0",\n  "x": "a\n' \
        '{\n  "jsonrpc": "2.0",\n  "id": 3,\n  "result": [\n    {},\n    []\n  ]\n}\n'
}

@test "strict edge: NULs and invalid UTF-8 around messages are junk; inside a string they pass" {
    check '' '\x00\xff\xfe{\x00}\n' '{"jsonrpc":"2.0","id":1,"result":"\xff\xc3"}\n' '\xc3\x28\n'
}

@test "strict edge: --protocol framed: frames pass, a header without Content-Length is junk" {
    STRICT_OPTS="--protocol framed" strict_wrapper
    check "Content-Length: ${#M1}\r\n\r\n$M1" 'junk between\n' \
        "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length:${#M1}\r\n\r\n$M1" \
        "Content-Type: x\r\n\r\n$M1\nContent-Length: 12x\r\n\r\n$M1\n" \
        "Content-Length: 0\r\n\r\n"
}

@test "strict edge: --protocol framed: a header of any name, before or after Content-Length, passes with its frame; junk glued before Content-Length is split off; lines that are no header block are junk" {
    STRICT_OPTS="--protocol framed" strict_wrapper
    check "X-Request-Id: 1\r\nContent-Length: ${#M1}\r\n\r\n$M1" 'progress 50%' \
        "Content-Length: ${#M1}\r\nX_Request_Id: 2\r\n\r\n$M1" 'INFO: ready\nHTTP/1.1 200 OK\r\n' \
        "content-length: ${#M1}\r\n\r\n$M1"
}

@test "strict edge: auto decides with the first message: after a frame, JSON lines are junk" {
    check '' 'Content-Length: 5\n' "Content-Length: ${#M1}\r\n\r\n$M1" "$M1\n"
}

@test "strict edge: auto decides with the first message: after a JSON line, frames are junk" {
    check "$M1\n" "Content-Length: ${#M1}\r\n\r\n$M1"
}

@test "strict edge: --protocol jsonl: frames are junk from the start" {
    STRICT_OPTS="--protocol jsonl" strict_wrapper
    check '' "Content-Length: ${#M1}\r\n\r\n" "$M1\n"
}

@test "strict edge: the bound: a line past 65536 bytes is decided at byte 65536 by its top-level names" {
    # protocol-like (result first, jsonrpc after the bound: the TypeScript SDK's order)
    big=$(head -c 70000 /dev/zero | tr '\0' x)
    check "{\"result\":{\"text\":\"$big\"},\"jsonrpc\":\"2.0\",\"id\":1}\n" \
        "{\"level\":\"info\",\"msg\":\"$big\"}\n" "$M1\n"
}

@test "strict edge: NaN, Infinity and -Infinity are numbers (as Python's json writes and reads them); nan, -Inf and Infinit are junk" {
    check '{"jsonrpc":"2.0","id":1,"result":[NaN,Infinity,-Infinity,{"a":-Infinity}]}\n' \
        '{"jsonrpc":"2.0","x":nan}\n{"jsonrpc":"2.0","x":-Inf}\n{"jsonrpc":"2.0","x":Infinit}\n' \
        '{"jsonrpc": "2.0", "id": 2, "result": NaN}\r\n'
}
