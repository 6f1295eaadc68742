#!/usr/bin/env bats
# Read paths beyond the plain byte readers (issue 11 §2): readers that push
# bytes back with ungetc and read them again without a call, wide stdio
# (fgetws, fgetwc, getwc, the w-scanf family, C++ std::wcin), and the
# __isoc23_ scanf names of glibc 2.38 and later.  Junk written before the
# first read must reach stderr, every answer the wire.  A miscount makes the
# gate miss the end of the first message: the answer then goes to stderr and
# the client times out (client.py exits 124), which is what these tests catch.

load helpers

PEEK=$BIN/core_peek
WIDE=$BIN/core_wide
WIDE_CHK=$BIN/core_wide_chk
WCIN=$BIN/core_wcin

# A one-line first message of about 6 KB: more than one 4 KB stdio fill.
big_init() {
    local pad
    pad=$(printf '%06000d' 0 | tr 0 x)
    printf '{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"pad":"%s"}}' "$pad"
}

# wrapped MODE-FIXTURE MODE CLIENT-OPTION...: junk on stdout unwrapped, on
# stderr wrapped, and the answers on the wire.
served() {
    local prog=$1 mode=$2; shift 2
    JUNK=("$mode-junk")
    both "$@" -- "$prog" "$mode"
    STDIOGATE_DEBUG=2 gated "$@" -- "$prog" "$mode"
    assert_status 0
    assert_junk_on_stderr
    assert_stderr_has "gate opened by"
}

@test "peek: getc_unlocked + ungetc lexer, first message split across two buffer fills" {
    local first=$((${#INIT} * 2 / 3))
    served "$PEEK" peek --split "$first" --line "$INIT" --line "$PING"
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
}

@test "peek: getc_unlocked + ungetc lexer, one 6 KB first message" {
    served "$PEEK" peek --line "$(big_init)" --line "$PING"
    assert_frames "$(answer 6 initialize)" "$(answer '"p1"' ping)"
}

@test "peek: getc_unlocked + ungetc lexer, the first message one byte per read" {
    served "$PEEK" peek --bytewise --line "$INIT"
    assert_frames "$(answer 0 initialize)"
}

@test "peek: scanf after getc + ungetc" {
    served "$PEEK" scanf --line "$INIT" --line "$PING"
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
}

@test "peek: scanf after getc + ungetc, one 6 KB first message" {
    served "$PEEK" scanf --line "$(big_init)" --line "$PING"
    assert_frames "$(answer 6 initialize)" "$(answer '"p1"' ping)"
}
