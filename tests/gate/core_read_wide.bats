#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Read paths beyond the plain byte readers (issue 11 §2): readers that push
# bytes back with ungetc and read them again without a call, wide stdio
# (fgetws, fgetwc, getwc, the w-scanf family, C++ std::wcin), and the
# __isoc23_ scanf names of glibc 2.38 and later.  Junk written before the
# first read must reach stderr, every answer the wire.  A miscount makes the
# gate miss the end of the first message: the answer then goes to stderr and
# the client times out (client.py exits 124), which is what these tests catch.

load ../helpers

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

# served FIXTURE MODE CLIENT-OPTION...: junk on stdout unwrapped, on
# stderr wrapped, and the answers on the wire; the gate opened by GATE_CALL
# after GATE_BYTES bytes (both required: set them before the call), and not
# by the fail-safe.
served() {
    local prog=$1 mode=$2; shift 2
    JUNK=("$mode-junk")
    both "$@" -- "$prog" "$mode"
    STDIOGATE_DEBUG=2 gated "$@" -- "$prog" "$mode"
    assert_status 0
    assert_junk_on_stderr
    # how the gate opened: by the read path (CALL after BYTES), not by the
    # fail-safe at the answer (which would hide a reader that miscounts)
    assert_gate_opened_by "$GATE_CALL" "$GATE_BYTES"
    assert_no_failsafe
}

bytes_of() { printf %s "$1" | wc -c; }

# pinged MESSAGE CALL FIXTURE MODE [CLIENT-OPTION...]: FIXTURE MODE gets
# MESSAGE (an initialize) and a ping, through served: the gate opened by
# CALL after the bytes of MESSAGE; both answers on the wire.
pinged() {
    local msg=$1 call=$2 prog=$3 mode=$4 id
    shift 4
    id=${msg#*\"id\":}
    id=${id%%[,\}]*}
    GATE_CALL=$call GATE_BYTES=$(bytes_of "$msg") served "$prog" "$mode" "$@" --line "$msg" --line "$PING"
    assert_frames "$(answer "$id" initialize)" "$(answer '"p1"' ping)"
}

@test "peek: getc_unlocked + ungetc lexer, first message split across two buffer fills" {
    local first=$((${#INIT} * 2 / 3))
    pinged "$INIT" __uflow "$PEEK" peek --split "$first"
}

@test "peek: getc_unlocked + ungetc lexer, one 6 KB first message" {
    pinged "$(big_init)" __uflow "$PEEK" peek
}

@test "peek: getc_unlocked + ungetc lexer, the first message one byte per read" {
    GATE_CALL=__uflow GATE_BYTES=$INIT_BYTES served "$PEEK" peek --bytewise --line "$INIT"
    assert_frames "$(answer 0 initialize)"
}

@test "peek: scanf after getc + ungetc" {
    pinged "$INIT" scanf "$PEEK" scanf
}

@test "peek: scanf after getc + ungetc, one 6 KB first message" {
    pinged "$(big_init)" scanf "$PEEK" scanf
}

@test "peek: ungetc of a byte never read (glibc's backup area), then scanf" {
    pinged "$INIT" scanf "$PEEK" backup
    assert_stderr_has "gate opened by scanf after ${#INIT} bytes"
}

@test "peek: ungetc of a byte never read (glibc's backup area), then scanf, 6 KB first message" {
    pinged "$(big_init)" scanf "$PEEK" backup
}

# An initialize whose strings hold multi-byte UTF-8 (2, 3 and 4 bytes).
INIT_UTF8='{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"clientInfo":{"name":"café ☕ 日本語 𝄞 client"}}}'

# wide MODE CALL [PROGRAM]: a wide stdio server answers an initialize and a
# ping; the gate opened in CALL, after the bytes (not wide characters) of
# the first message (its closing brace).
wide() {
    local mode=$1 call=$2 prog=${3:-$WIDE}
    pinged "$INIT_UTF8" "$call" "$prog" "$mode"
}

@test "wide: fgetws" { wide fgetws fgetws; }
@test "wide: fgetws in calls of 64 wide characters" { wide fgetws_small fgetws; }
@test "wide: fgetws_unlocked" { wide fgetws_unlocked fgetws_unlocked; }
@test "wide: __fgetws_chk (_FORTIFY_SOURCE=2)" {
    nm -D "$WIDE_CHK" | grep -q ' U __fgetws_chk'
    wide fgetws __fgetws_chk "$WIDE_CHK"
}
@test "wide: __fgetws_unlocked_chk (_FORTIFY_SOURCE=2)" {
    nm -D "$WIDE_CHK" | grep -q ' U __fgetws_unlocked_chk'
    wide fgetws_unlocked __fgetws_unlocked_chk "$WIDE_CHK"
}
@test "wide: fgetwc loop" { wide fgetwc fgetwc; }
@test "wide: fgetwc_unlocked loop" { wide fgetwc_unlocked fgetwc_unlocked; }
@test "wide: getwc loop" { wide getwc getwc; }
@test "wide: getwc_unlocked loop" { wide getwc_unlocked getwc_unlocked; }
@test "wide: getwchar loop" { wide getwchar getwchar; }
@test "wide: getwchar_unlocked loop" { wide getwchar_unlocked getwchar_unlocked; }
@test "wide: __wuflow called directly" { wide wuflow __wuflow; }
@test "wide: getwc + ungetwc lexer" { wide ungetwc getwc; }
@test "wide: wscanf (imported as __isoc99_wscanf or __isoc23_wscanf)" { wide wscanf wscanf; }
@test "wide: fwscanf" { wide fwscanf fwscanf; }
@test "wide: vfwscanf" { wide vfwscanf vfwscanf; }

@test "wide: C++ std::getline(std::wcin) (synchronised with stdio: getwc, ungetwc)" {
    wide sync getwc "$WCIN"
}

@test "wide: C++ std::wcin after sync_with_stdio(false) (read)" {
    pinged "$INIT" read "$WCIN" nosync
    assert_stderr_has "gate opened by read after"
}

# More than one buffer fill, and fills split inside a UTF-8 sequence.
@test "wide: fgetwc loop, one 6 KB first message" {
    pinged "$(big_init)" fgetwc "$WIDE" fgetwc
}
@test "wide: fgetws, one 6 KB first message" {
    pinged "$(big_init)" fgetws "$WIDE" fgetws
}
@test "wide: wscanf, one 6 KB first message" {
    # one conversion of more than a buffer: the documented limit
    # (docs/LIMITS.md): the gate opens when the call returns, after the bytes the
    # detector was shown before it (none)
    GATE_CALL=wscanf GATE_BYTES=0 served "$WIDE" wscanf --line "$(big_init)" --line "$PING"
    assert_frames "$(answer 6 initialize)" "$(answer '"p1"' ping)"
}
@test "wide: fgetwc loop, the first message split inside a 3-byte UTF-8 character" {
    local head=${INIT_UTF8%%☕*}
    pinged "$INIT_UTF8" fgetwc "$WIDE" fgetwc --split "$(($(bytes_of "$head") + 1))"
    assert_stderr_has "gate opened by fgetwc after $(bytes_of "$INIT_UTF8") bytes"
}
@test "wide: fgetws, the first message one byte per read" {
    GATE_CALL=fgetws GATE_BYTES=$(bytes_of "$INIT_UTF8") served "$WIDE" fgetws --bytewise --line "$INIT_UTF8"
    assert_frames "$(answer 8 initialize)"
    assert_stderr_has "gate opened by fgetws after $(bytes_of "$INIT_UTF8") bytes"
}

# glibc 2.38 and later link the scanf family as __isoc23_* (C23, _GNU_SOURCE,
# g++).  The fixtures, built by this system's compiler, import the names its
# libc has: on a glibc before 2.38 these tests cover the __isoc99_ names, on
# 2.38 and later (make test-glibc-new) the __isoc23_ ones.
scanf_prefix() {
    local libc
    libc=$(ldd "$PEEK" | awk '/libc\.so/ { print $3 }')
    if nm -D --defined-only "$libc" | grep -q ' __isoc23_scanf@'; then
        echo __isoc23_
    else
        echo __isoc99_
    fi
}

@test "scanf names: the fixtures import this glibc's names (__isoc23_ from 2.38 on)" {
    local p f
    p=$(scanf_prefix)
    for f in "$PEEK:scanf" "$PEEK:vscanf" "$BIN/core_srv:fscanf" "$BIN/core_srv:vfscanf" \
             "$WIDE:wscanf" "$WIDE:fwscanf" "$WIDE:vfwscanf" "$WIDE:vwscanf"; do
        nm -D "${f%%:*}" | grep -q " U $p${f##*:}@" || { echo "${f%%:*} does not import $p${f##*:}" >&2; false; }
    done
}

@test "peek: vscanf after getc + ungetc" {
    pinged "$INIT" vscanf "$PEEK" vscanf
    assert_stderr_has "gate opened by vscanf after"
}

@test "wide: vwscanf" { wide vwscanf vwscanf; }

# Before glibc 2.38 the library still exports __isoc23_scanf, whose real
# function does not exist there: a call (here through dlsym) must work.
@test "scanf names: __isoc23_scanf called through dlsym, on any glibc" {
    pinged "$INIT" scanf "$PEEK" c23
    assert_stderr_has "core_peek: __isoc23_scanf found" "gate opened by scanf after"
}

# On a regular file glibc keeps _offset as the file position: refills are
# counted from it, not from 0.
@test "wide: fgetwc loop (regular-file stdin)" {
    pinged "$INIT_UTF8" fgetwc "$WIDE" fgetwc --stdin-file
    assert_stderr_has "gate opened by fgetwc after $(bytes_of "$INIT_UTF8") bytes"
}

@test "peek: scanf after getc + ungetc (regular-file stdin, 6 KB first message)" {
    pinged "$(big_init)" scanf "$PEEK" scanf --stdin-file
}

# scanf's refills are counted in glibc's _offset for the length of the call:
# what ftell(stdin) says afterwards must not change.
ftell_unchanged() {
    ungated "$@" --line "$(big_init)" --line "$PING" -- "$PEEK" ftell
    assert_status 0
    grep 'core_peek: ftell' "$ERR" >"$BATS_TEST_TMPDIR/unwrapped"
    gated "$@" --line "$(big_init)" --line "$PING" -- "$PEEK" ftell
    assert_status 0
    assert_frames "$(answer 6 initialize)" "$(answer '"p1"' ping)"
    grep 'core_peek: ftell' "$ERR" | diff "$BATS_TEST_TMPDIR/unwrapped" -
}

@test "peek: ftell(stdin) after scanf says what it says unwrapped (pipe: -1)" {
    ftell_unchanged
    grep -qx 'core_peek: ftell -1' "$BATS_TEST_TMPDIR/unwrapped"
}

@test "peek: ftell(stdin) after scanf says what it says unwrapped (regular file)" {
    ftell_unchanged --stdin-file
}
