#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Core gate: the gate opens whichever way the server reads the client's first
# message.  Each test runs tests/bin/core_srv (or core_read_chk, the same
# server built with _FORTIFY_SOURCE=2) with one read path; junk before the
# read must reach stderr, the answer the wire, and the level-2 diagnostic
# names the interposed call that saw the message end.

load ../helpers

SRV=$BIN/core_srv
CHK=$BIN/core_read_chk

# read_path PROGRAM READPATH CALL [CLIENT-OPTION...]
read_path() {
    local prog=$1 path=$2 call=$3; shift 3
    JUNK=(printf-junk puts-junk write-junk)
    STDIOGATE_DEBUG=2 init_diverted "$@" -- "$prog" "$path" printf puts write
    assert_stderr_has "diverting stdout to stderr"
    # the read path opened the gate, at the end of INIT (init_diverted has
    # asserted that the fail-safe did not)
    assert_gate_opened_by "$call" "$INIT_BYTES"
}

# imported_path PROGRAM CALL READPATH [CLIENT-OPTION...]: PROGRAM imports
# CALL (the name a compiler emitted for READPATH), and read_path opens the
# gate by it.
imported_path() {
    local prog=$1 call=$2 path=$3; shift 3
    nm -D "$prog" | grep -q " U $call"
    read_path "$prog" "$path" "$call" "$@"
}

@test "read path: read (pipe)" { read_path "$SRV" read read; }
@test "read path: read (socket stdin)" { read_path "$SRV" read read --sockets; }
@test "read path: read (regular-file stdin)" { read_path "$SRV" read read --stdin-file; }
@test "read path: read one byte per call" { read_path "$SRV" read1 read; }
@test "read path: readv (two iovecs)" { read_path "$SRV" readv readv; }
@test "read path: pread (regular-file stdin)" { read_path "$SRV" pread pread --stdin-file; }
@test "read path: preadv (regular-file stdin)" { read_path "$SRV" preadv preadv --stdin-file; }
@test "read path: recv (socket stdin)" { read_path "$SRV" recv recv --sockets; }
@test "read path: recvfrom (socket stdin)" { read_path "$SRV" recvfrom recvfrom --sockets; }
@test "read path: recvmsg (socket stdin, two iovecs)" { read_path "$SRV" recvmsg recvmsg --sockets; }
@test "read path: fgets" { read_path "$SRV" fgets fgets; }
@test "read path: fgets (socket stdin)" { read_path "$SRV" fgets fgets --sockets; }
@test "read path: getline at -O2 is __getdelim" {
    imported_path "$SRV" __getdelim getline
}
@test "read path: getline (the real function)" { read_path "$SRV" getline_fn getline; }
@test "read path: getdelim" { read_path "$SRV" getdelim getdelim; }
@test "read path: fread (one byte per call)" { read_path "$SRV" fread fread; }
@test "read path: getc" { read_path "$SRV" getc getc; }
@test "read path: fgetc" { read_path "$SRV" fgetc fgetc; }
@test "read path: getchar" { read_path "$SRV" getchar getchar; }
@test "read path: getc_unlocked" { read_path "$SRV" getc_unlocked getc_unlocked; }
@test "read path: fgetc_unlocked" { read_path "$SRV" fgetc_unlocked fgetc_unlocked; }
@test "read path: getchar_unlocked" { read_path "$SRV" getchar_unlocked getchar_unlocked; }
@test "read path: fgets_unlocked" { read_path "$SRV" fgets_unlocked fgets_unlocked; }
@test "read path: fread_unlocked (the real function, one byte per call)" { read_path "$SRV" fread_unlocked fread_unlocked; }
@test "read path: getc on an unbuffered stdin (setvbuf _IONBF)" {
    JUNK=(write-junk)
    init_diverted --bytewise -- "$SRV" getc stdin-unbuffered write chatter
    assert_stderr_has chatter
}
@test "read path: getc_unlocked inlined at -O2 is __uflow" {
    imported_path "$SRV" __uflow uflow
}
@test "read path: fscanf (imported as __isoc99_fscanf)" { read_path "$SRV" fscanf fscanf; }
@test "read path: scanf (imported as __isoc99_scanf)" { read_path "$SRV" scanf scanf; }
@test "read path: vfscanf (imported as __isoc99_vfscanf)" { read_path "$SRV" vfscanf vfscanf; }

# Issue 45: every reader on each kind of stdin, not only the pipe of the
# tests above: a socket, a regular file (the whole input there before the
# server starts: stdio reads ahead past the first message), and a socket
# after a peek at the first message (recv with MSG_PEEK, then
# "after-peek-junk" written while the gate must still be shut; each peeking
# member alone: families_peek.bats).  Two messages each time; the gate
# opens by that reader after exactly the first message's bytes (the
# level-2 line), whatever stdio took ahead.
READERS=(read:read read1:read readv:readv fgets:fgets fgets_unlocked:fgets_unlocked
    getline:__getdelim getline_fn:getline getdelim:getdelim fread:fread fread_unlocked:fread_unlocked
    getc:getc fgetc:fgetc getchar:getchar getc_unlocked:getc_unlocked fgetc_unlocked:fgetc_unlocked
    getchar_unlocked:getchar_unlocked uflow:__uflow fscanf:fscanf scanf:scanf vfscanf:vfscanf)

stdin_kind_row() {
    local path=${1%%:*} call=${1#*:} kind=$2 steps=(printf puts write) opts=(--sockets)
    JUNK=(printf-junk puts-junk write-junk)
    case $kind in
        file) opts=(--stdin-file) ;;
        peek) steps+=(peek); JUNK+=(after-peek-junk) ;;
    esac
    STDIOGATE_DEBUG=2 init_ping_diverted "${opts[@]}" -- "$SRV" "$path" "${steps[@]}"
    assert_gate_opened_by "$call" "$INIT_BYTES"
}

@test "read path: every reader on a socket stdin, a regular-file stdin, and a socket after a peek (recv MSG_PEEK): the gate by that reader after the first message" {
    local rows=() r k
    for r in "${READERS[@]}"; do
        for k in socket file peek; do rows+=("$r $k"); done
    done
    row_table stdin_kind_row "${rows[@]}"
}

# _FORTIFY_SOURCE=2 -O2 builds (Ubuntu's default) import the _chk forms.
@test "read path: __read_chk (_FORTIFY_SOURCE=2)" {
    imported_path "$CHK" __read_chk read
}
@test "read path: __pread_chk (_FORTIFY_SOURCE=2, regular-file stdin)" {
    imported_path "$CHK" __pread_chk pread --stdin-file
}
@test "read path: __fgets_chk (_FORTIFY_SOURCE=2)" {
    imported_path "$CHK" __fgets_chk fgets
}
@test "read path: __recv_chk (_FORTIFY_SOURCE=2, socket stdin)" {
    imported_path "$CHK" __recv_chk recv --sockets
}
@test "read path: __recvfrom_chk (_FORTIFY_SOURCE=2, socket stdin)" {
    imported_path "$CHK" __recvfrom_chk recvfrom --sockets
}

@test "read path: a private copy of stdin (fcntl F_DUPFD_CLOEXEC), fd 0 pointed at /dev/null" {
    JUNK=(printf-junk)
    STDIOGATE_DEBUG=2 init_diverted -- "$SRV" read printf sdk2
    assert_stderr_has sdk2-junk
    assert_gate_opened_by read "$INIT_BYTES"
}

@test "read path: a private copy of stdin read with stdio (fdopen + fgets)" {
    JUNK=(printf-junk)
    init_diverted -- "$SRV" fgets printf sdk2
}

@test "read path: a new open of /proc/self/fd/0 (same pipe, another open file description)" {
    JUNK=(printf-junk write-junk)
    init_diverted -- "$SRV" read printf write reopen0
}

@test "read path: EAGAIN from a non-blocking stdin that is still empty is not the end of input" {
    JUNK=(after-eagain-junk)
    init_diverted --wait-err core-srv-probed -- "$SRV" read nonblock
    assert_gate_opened_by read "$INIT_BYTES"
}

@test "read path: a read of 0 bytes (count 0) is not the end of input" {
    # (after the gate the guard would keep the junk off too: the level-2
    # line says where the gate opened)
    JUNK=(after-zeroread-junk)
    init_diverted -- "$SRV" read zeroread
    assert_gate_opened_by read "$INIT_BYTES"
}

@test "read path: recv(MSG_PEEK) consumes nothing (socket stdin)" {
    JUNK=(after-peek-junk)
    init_diverted --sockets -- "$SRV" read peek
}

@test "read path: recvmsg(MSG_PEEK) of the whole message consumes nothing (socket stdin)" {
    # the peek sees the whole first message; the gate opens at the read
    # that takes it, not before the junk written in between
    JUNK=(after-peekmsg-junk)
    init_diverted --sockets -- "$SRV" read peekmsg
    assert_gate_opened_by read "$INIT_BYTES"
}

@test "read path: getc + ungetc (skip white space, push back), then fgets" {
    JUNK=(after-ungetc-junk)
    diverted --send $'\n  '"$INIT"$'\n' -- "$SRV" fgets ungetc
    assert_frames "$(answer 0 initialize)"
}

@test "read path: getc + ungetc, then a getc reader that stops at the closing brace" {
    # a pushed-back byte read again is not a second byte of the message
    JUNK=(after-ungetc-junk)
    diverted --line "$INIT_TRICKY" -- "$SRV" getc brace ungetc
    assert_frames "$(answer 7 initialize)"
}

@test "read path: reading a JSON-looking file (read, pread, fgets, getc, getline) is not reading stdin" {
    JUNK=(after-config-junk)
    init_diverted -- "$SRV" read readfile
}

@test "read path: reading a helper's output through popen is not reading stdin" {
    JUNK=(after-popen-junk)
    init_diverted -- "$SRV" fgets popen
}

@test "read path: stdin read and answered from a second thread (read and fgets)" {
    JUNK=(printf-junk write-junk)
    for path in read fgets; do
        init_ping_diverted -- "$SRV" "$path" printf write inthread
    done
}
