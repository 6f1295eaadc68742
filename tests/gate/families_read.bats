#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Issue 22: every member of the reader families the library interposes,
# not one member for all.  tests/bin/fam_read reads stdin with the member
# named (through dlsym, so that names no compiler here emits, such as the
# plain GNU scanf names and __isoc23_ on an older glibc, are called too):
# unwrapped, the junk is on stdout and the answers with it; wrapped, the
# junk on stderr, stdout exactly the answers, and the gate opened by that
# reader (its name as docs/CONTRACT.md gives it) after exactly the first
# message's bytes, not by the fail-safe.  The first message is 221 bytes
# long: not a multiple of any element size tried.

load ../helpers

FR=$BIN/fam_read
INIT_ODD='{ '${INIT#\{}
# The stream, padded with blanks to a multiple of 840 bytes (every element
# size from 1 to 8 divides it), so that a reader of SIZE-byte elements gets
# the end of each line without waiting for the end of input.
stream() {
    local s=$INIT_ODD$'\n'$PING$'\n' pad
    pad=$(( (840 - ${#s} % 840) % 840 ))
    printf '%s%*s\n' "$s" $((pad - 1)) ''
}

setup() {
    [ -x "$FR" ] || { echo "make fixtures" >&2; return 1; }
    [ ${#INIT_ODD} = 221 ] || { echo "test bug: INIT_ODD is ${#INIT_ODD} bytes" >&2; return 1; }
}

# member CALL MEMBER [SIZE] [-- CLIENT-OPTION...]: one member, asserted; the
# failure message names it.
member() {
    local call=$1; shift
    local args=() opts=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    opts=("$@")
    JUNK=(fam-read-junk)
    diverted --send "$(stream)" --frames 2 "${opts[@]}" -- "$FR" "${args[@]}"
    assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
    assert_gate_opened_by "$call" 221
}

# table ROW...: every row "CALL MEMBER [SIZE] [-- OPTS]" through member
# (helpers.bash's row_table: each with errexit in force, failed rows named).
table() { row_table member "$@"; }

# spellings NAME...: the table of every NAME under each of its spellings
# (plain GNU name, __isoc99_, __isoc23_).
spellings() {
    local rows=() f p
    for f in "$@"; do
        for p in "" __isoc99_ __isoc23_; do rows+=("$f $p$f"); done
    done
    table "${rows[@]}"
}

@test "families: fread and its forms, element sizes 1 to 8 (message length not a multiple)" {
    local rows=() s
    for s in 1 2 3 4 5 7 8; do
        rows+=("fread fread $s" "fread_unlocked fread_unlocked $s")
    done
    rows+=("__fread_chk __fread_chk 4" "__fread_unlocked_chk __fread_unlocked_chk 4"
           "__fread_chk __fread_chk 3" "__fread_unlocked_chk __fread_unlocked_chk 7")
    table "${rows[@]}"
}

@test "families: every scanf spelling (plain GNU names, __isoc99_, __isoc23_), narrow" {
    spellings scanf fscanf vscanf vfscanf
}

@test "families: every wide scanf spelling (plain, __isoc99_, __isoc23_)" {
    spellings wscanf fwscanf vwscanf vfwscanf
}

@test "families: the other byte readers: __fgets_unlocked_chk, _IO_getc, pread64, __pread64_chk, preadv64, preadv2, preadv64v2" {
    table "__fgets_unlocked_chk __fgets_unlocked_chk" "_IO_getc _IO_getc" \
        "pread64 pread64 -- --stdin-file" "__pread64_chk __pread64_chk -- --stdin-file" \
        "preadv64 preadv64 -- --stdin-file" "preadv2 preadv2" "preadv64v2 preadv64v2" \
        "preadv2 preadv2 -- --sockets" "preadv64v2 preadv64v2 -- --stdin-file"
}
