#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The stream classifier (detect.h, strict mode) at its exact bounds, which
# the mutation check (tests/mutate.sh) found unpinned: SG_HEADER_MAX (a
# header block of 4096 bytes passes, of 4097 is junk), SG_DEPTH_MAX (a
# candidate is decided at its 4096th nested open), SG_HOLD_MAX (the decision
# at byte 65536 wants a member name, and takes one cut there by its prefix),
# the first header name's "Content-", the control characters in a
# string (0x1f is one) and a number's exponent sign ('+' as well as '-').  The server is cat of a file that python3 wrote;
# stdout and stderr are compared byte for byte with what detect.h's header
# comment says.

bats_require_minimum_version 1.5.0

setup_file() {
    export REPO="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
}

setup() {
    cd "$BATS_TEST_TMPDIR"
}

# make_input PYTHON-EXPRESSION: the bytes it evaluates to, in file "in"
make_input() {
    python3 -c 'import sys; sys.stdout.buffer.write(eval(sys.argv[1]))' "$1" >in
}

# filtered PROTOCOL: run the filter over "in"; stdout in "out", stderr in
# "err", each read through a pipe to its end of file (the filter, forked
# away, holds both until it exits: a file would be read before it is done)
filtered() {
    ( "$REPO/stdiogate-filter" --protocol "$1" -- cat in 2>&1 >&3 3>&- </dev/null | cat >err ) 3>&1 |
        cat >out
}

# A header block of N bytes in all (its last \r\n included), a body of 2.
frame_of() {
    make_input "(lambda n: b'Content-Length: 2\r\nX-Pad: ' + b'p' * (n - 30) + b'\r\n\r\n{}')($1)"
    [ "$(($(stat -c %s in) - 2))" -eq "$1" ]
}

@test "classifier: a header block of 4096 bytes passes, of 4097 is junk (SG_HEADER_MAX)" {
    frame_of 4096
    filtered framed
    cmp in out
    [ ! -s err ]
    frame_of 4097
    filtered framed
    [ ! -s out ]
    cmp in err
}

@test "classifier: a candidate is decided at its 4096th nested open (SG_DEPTH_MAX), then streams" {
    # {"jsonrpc":..,"method":..,"params": then 4096 '[': the last one would
    # be level 4097; the names so far are JSON-RPC's, so the line is protocol
    # through its newline, whatever follows (here an 'x' that would fail it)
    make_input "b'{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":' + b'[' * 4096 + b'x\n'"
    filtered jsonl
    cmp in out
    [ ! -s err ]
    # one level less: the 'x' fails the candidate, all junk
    make_input "b'{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":' + b'[' * 4095 + b'x\n'"
    filtered jsonl
    [ ! -s out ]
    cmp in err
}

@test "classifier: at byte 65536, a candidate without a member name is junk" {
    make_input "b'{' + b' ' * 70000 + b'}\n'"
    filtered jsonl
    [ ! -s out ]
    cmp in err
}

@test "classifier: at byte 65536, a member name cut short counts by its prefix (\"i\" of \"id\")" {
    # byte 65536 is the 'i'
    make_input "b'{\"jsonrpc\":\"2.0\",' + b' ' * 65517 + b'\"id\":1,\"result\":{}}\n'"
    filtered jsonl
    cmp in out
    [ ! -s err ]
    # cut as "x": no JSON-RPC name begins so; junk at 65536, and the rest too
    make_input "b'{\"jsonrpc\":\"2.0\",' + b' ' * 65517 + b'\"xd\":1,\"result\":{}}\n'"
    filtered jsonl
    [ ! -s out ]
    cmp in err
}

@test "classifier: a header block starts at any name that begins a line (ContentX first: vscode-jsonrpc reads it), after junk on its line only at a C" {
    make_input "b'ContentX: a\r\nContent-Length: 2\r\n\r\n{}junk Xcontent-length: 2\r\n\r\n{}'"
    filtered framed
    [ "$(cat out)" = "$(printf 'ContentX: a\r\nContent-Length: 2\r\n\r\n{}content-length: 2\r\n\r\n{}')" ]
    [ "$(cat err)" = "junk X" ]
}

@test "classifier: a raw 0x1f inside a string is a control character: junk" {
    make_input "b'{\"jsonrpc\":\"2.0\",\"method\":\"a\x1fb\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"a\x20b\"}\n'"
    filtered jsonl
    [ "$(cat out)" = '{"jsonrpc":"2.0","method":"a b"}' ]
    [ "$(cat err)" = "$(printf '{"jsonrpc":"2.0","method":"a\037b"}')" ]
}

@test "classifier: a top-level \"id\" or \"result\" without its colon right after it is junk (the one-line parse takes such names whole)" {
    make_input "b'{\"jsonrpc\":\"2.0\",\"id\"=1,\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\"x{}}\n{\"jsonrpc\":\"2.0\",\"id\" :2,\"result\" : {}}\n'"
    filtered jsonl
    [ "$(cat out)" = '{"jsonrpc":"2.0","id" :2,"result" : {}}' ]
    [ "$(cat err)" = "$(printf '%s\n%s' '{"jsonrpc":"2.0","id"=1,"result":{}}' '{"jsonrpc":"2.0","id":1,"result"x{}}')" ]
}

@test "classifier: a number's exponent takes a sign, + or - (1e+21: how JavaScript and Python write large floats); none without digits after it" {
    make_input "b'{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":1e+21,\"b\":2.5E-7,\"c\":-3e8,\"d\":[4E+0]}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":1e+}\n'"
    filtered jsonl
    [ "$(cat out)" = '{"jsonrpc":"2.0","id":1,"result":{"a":1e+21,"b":2.5E-7,"c":-3e8,"d":[4E+0]}}' ]
    [ "$(cat err)" = '{"jsonrpc":"2.0","id":2,"result":1e+}' ]
}
