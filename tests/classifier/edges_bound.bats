#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Issue 22: the classifier's rules at their exact edges, in strict mode
# (stdiogate --strict: the filter), in the default mode's session guard
# (after the gate: the same decisions as strict mode, issue 34) and in the
# default mode's fail-safe
# (which runs the same classifier: detect.h sg_stream_answer, lib/failsafe.c "The
# hold"): the 64 KiB bound one byte under, at and over; the nesting bound
# (level 4097) and the 4 KiB bound of a frame's header block likewise;
# top-level names that
# are prefixes or extensions of jsonrpc, id, result, error, complete and
# being read at the bound.  Each case is one line; the expected side is
# asserted byte for byte, and unwrapped the line is on stdout.
#
# The filter (filter/relay.c) has no level-3/4 diagnostics saying which rule decided a
# message: the rule is pinned here by the outcome at the exact byte only.

load ../strict_helpers

BOUND=65536

# The cases: NAME STRICT FAILSAFE, each side "wire" or "junk" (the fail-safe:
# wire = taken for an answer, the gate opened at it; junk = diverted, the
# gate opened at the real answer after it).  Their lines are made by
# make_cases.
CASES=(
    # {"result":{"t":"x..."},"id":1}: no jsonrpc (junk when complete), names
    # all protocol names (wire when decided by the bound); L bytes + newline
    "len-65535 junk junk"   # one under: complete before the bound
    "len-65536 junk junk"   # at: its 65536th byte completes it
    "len-65537 wire wire"   # over: undecided at byte 65536, the bound decides
    # a 70000-byte line {"NAME":1,"result":{"t":"x..."}}, decided by the bound
    "bound-jsonrpc wire wire" "bound-id wire wire" "bound-params wire wire"
    "bound-result wire wire" "bound-error wire wire"
    "bound-method wire junk"   # the fail-safe: "method" makes it no answer
    "bound-jsonrp junk junk" "bound-jsonrpcx junk junk" "bound-i junk junk"
    "bound-idx junk junk" "bound-resul junk junk" "bound-results junk junk"
    "bound-erro junk junk" "bound-errors junk junk"
    # a name being read at byte 65536: a prefix of jsonrpc, or not
    "reading-jsonrp wire wire" "reading-jsonrpx junk junk"
    # {"result":[[...]],"id":1} nested 4095, 4096 or 4097 levels deep (the
    # object is level 1): opening level 4097 decides by the bound
    "depth-4095 junk junk" "depth-4096 junk junk" "depth-4097 wire wire"
    # a frame whose header block is 4095, 4096 (SG_HEADER_MAX) or 4097 bytes
    "header-4095 wire wire" "header-4096 wire wire" "header-4097 junk junk"
    # a first frame is protocol to strict mode if its body is a JSON-RPC
    # message; to the fail-safe, an answer if the body is one (id, then
    # result or error): one whose proof comes after the bound is taken
    # there in doubt, unless "method" came first
    "frame-late-id wire wire" "frame-bound-method wire junk" "frame-notification wire junk"
    # a first frame whose body is no object: junk, at the bound or whole
    "frame-bound-text junk junk" "frame-http junk junk"
    # pretty-printed over lines past the bound: through the close of its
    # value, not only through its next newline
    "lines-bound wire wire"
    # complete small messages: strict needs jsonrpc; an answer needs
    # jsonrpc, id and result or error, spelled exactly
    "small-exact wire wire" "small-error wire wire"
    "small-jsonrp junk junk" "small-jsonrpcx junk junk"
    "small-i wire junk" "small-idx wire junk" "small-resul wire junk"
    "small-results wire junk" "small-erro wire junk" "small-errors wire junk"
)

make_cases() {
    D=$BATS_TEST_TMPDIR/cases
    mkdir -p "$D"
    "$PYTHON" - "$D" "$BOUND" <<'PY'
import sys
d, bound = sys.argv[1], int(sys.argv[2])
def put(name, text):
    open(f"{d}/{name}", "w").write(text + "\n")
def length(total, head, tail):
    return head + "x" * (total - len(head) - len(tail)) + tail
for n in (65535, 65536, 65537):
    put(f"len-{n}", length(n, '{"result":{"t":"', '"},"id":1}'))
for name in "jsonrpc id params result error method jsonrp jsonrpcx i idx resul results erro errors".split():
    put(f"bound-{name}", length(70000, '{"%s":1,"result":{"t":"' % name, '"}}'))
# byte `bound` is the last byte of the partial name
for part, rest in (("jsonrp", 'c":"2.0","id":1}'), ("jsonrpx", '":"2.0","id":1}')):
    head = length(bound, '{"result":"', '","' + part)
    assert len(head) == bound
    put(f"reading-{part}", head + rest)
for levels in (4095, 4096, 4097):
    k = levels - 1
    put(f"depth-{levels}", '{"result":' + "[" * k + "]" * k + ',"id":1}')
body = '{"jsonrpc":"2.0","id":1,"result":{}}'
for n in (4095, 4096, 4097):
    cl = "Content-Length: %d\r\n" % len(body)
    head = length(n, cl + "Content-Type: ", "\r\n\r\n")
    assert len(head) == n
    open(f"{d}/header-{n}", "w", newline="").write(head + body)
pad = "x" * 70000
for name, body in (("frame-late-id", '{"jsonrpc":"2.0","result":{"t":"%s"},"id":1}' % pad),
                   ("frame-bound-method", '{"jsonrpc":"2.0","method":"log","params":{"t":"%s"}}' % pad),
                   ("frame-notification", '{"jsonrpc":"2.0","method":"log"}'),
                   ("frame-bound-text", pad),
                   ("frame-http", '{"ok": true}')):
    open(f"{d}/{name}", "w", newline="").write("Content-Length: %d\r\n\r\n%s" % (len(body), body))
put("lines-bound", '{\n  "result": {\n    "t": "%s"\n  },\n  "id": 1,\n  "jsonrpc": "2.0"\n}' % pad)
put("small-exact", '{"jsonrpc":"2.0","id":5,"result":{}}')
put("small-error", '{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"m"}}')
put("small-jsonrp", '{"jsonrp":"2.0","id":5,"result":{}}')
put("small-jsonrpcx", '{"jsonrpcx":"2.0","id":5,"result":{}}')
for k in ("i", "idx"):
    put(f"small-{k}", '{"jsonrpc":"2.0","%s":5,"result":{}}' % k)
for k in ("resul", "results", "erro", "errors"):
    put(f"small-{k}", '{"jsonrpc":"2.0","id":5,"%s":{}}' % k)
PY
}

setup() {
    [ -x "$BIN/fam_emit" ] || { echo "make fixtures" >&2; return 1; }
    make_cases
}

# strict_case NAME WANT: strict_emit.py writes the line in one write under
# stdiogate --strict.
strict_case() {
    local f=$D/$1 want=$2
    ungated --frames 0 -- "$PYTHON" "$FIX/strict_emit.py" "$f"
    assert_status 0
    cmp -s "$f" "$OUT" || { echo "unwrapped stdout is not the line" >&2; return 1; }
    gated --frames 0 -- "$PYTHON" "$FIX/strict_emit.py" "$f"
    assert_status 0
    if [ "$want" = wire ]; then
        cmp -s "$f" "$OUT" && [ ! -s "$ERR" ] || { echo "$1: strict: expected on the wire, whole" >&2; show_run; return 1; }
    else
        [ ! -s "$OUT" ] && cmp -s "$f" "$ERR" || { echo "$1: strict: expected junk, whole on stderr" >&2; show_run; return 1; }
    fi
}

# failsafe_case NAME WANT: fam_emit writes the line at start, then answers
# INIT (its reads unseen): only the fail-safe opens the gate.  --frames 0:
# the client closes stdin after INIT and the run ends at the server's exit
# (a frame glued to the answer is no frame the client could wait for).
failsafe_case() {
    local f=$D/$1 want=$2 a
    a=$BATS_TEST_TMPDIR/answer
    printf '%s\n' "$(answer 0 initialize)" >"$a"
    # the fail-safe alone: what follows the gate is not classified (the
    # guard's decisions are the strict ones: "guard" below)
    local -x STDIOGATE_WRAPPER=$ROOT/stdiogate STDIOGATE_DEBUG=2 STDIOGATE_GUARD=0
    ungated --timeout 60 --frames 0 --line "$INIT" -- "$BIN/fam_emit" "$f"
    assert_status 0
    cat "$f" "$a" | cmp -s - "$OUT" || { echo "unwrapped stdout is not the line and the answer" >&2; show_run; return 1; }
    # The fail-safe's level-2 line, on a stderr that is a file: a file always
    # has room for it.  (On a pipe a diagnostic that finds no room, while the
    # drain still passes a large junk line on, is dropped rather than wait.)
    gated --stderr-file --timeout 60 --frames 0 --line "$INIT" -- "$BIN/fam_emit" "$f"
    assert_status 0
    assert_failsafe write
    # The bytes, over pipes as a client gives them.
    gated --timeout 60 --frames 0 --line "$INIT" -- "$BIN/fam_emit" "$f"
    assert_status 0
    # the diagnostics out: each is written whole, in one call, but it can
    # land inside a junk line the drain is still passing on (or follow a
    # junk frame that ends without a newline)
    perl -0pe 's/stdiogate\[\d+\]: [^\n]*\n//g' "$ERR" >"$ERR.junk"
    if [ "$want" = wire ]; then
        cat "$f" "$a" | cmp -s - "$OUT" && [ ! -s "$ERR.junk" ] ||
            { echo "$1: fail-safe: expected the line taken for an answer, on the wire" >&2; show_run; return 1; }
    else
        cmp -s "$a" "$OUT" && cmp -s "$f" "$ERR.junk" ||
            { echo "$1: fail-safe: expected the line diverted whole, the answer alone on the wire" >&2; show_run; return 1; }
    fi
}

# table KIND: every case through strict_case (KIND strict) or failsafe_case,
# each in a background subshell with errexit in force; failed cases named.
table() {
    local kind=$1 row name s f bad=()
    for row in "${CASES[@]}"; do
        read -r name s f <<<"$row"
        if [ "$kind" = strict ] || [ "$kind" = guard ]; then
            [ "$kind" = guard ] && local -x STRICT_VIA=guard
            ( set -e; strict_wrapper; strict_case "$name" "$s" ) 2>"$BATS_TEST_TMPDIR/row.err" &
        else
            ( set -e; failsafe_case "$name" "$f" ) 2>"$BATS_TEST_TMPDIR/row.err" &
        fi
        if ! wait $!; then
            bad+=("$name")
            { echo "=== case failed: $row"; cut -c1-300 "$BATS_TEST_TMPDIR/row.err"; } >&2
        fi
    done
    [ "${#bad[@]}" = 0 ] || { echo "failed cases ($kind): ${bad[*]}" >&2; false; }
}

@test "edges: strict mode at the 64 KiB bound (under, at, over) and with near-miss member names" {
    table strict
}

@test "edges: the default mode's fail-safe at the 64 KiB bound and with near-miss member names" {
    table failsafe
}

@test "edges: the default mode's session guard decides as strict mode does (the 64 KiB bound, near-miss names)" {
    table guard
}
