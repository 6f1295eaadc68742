#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Issue 45: the fail-safe's hold (lib/failsafe.c) at every point where what
# it holds is decided, not only at exit, _exit and the gate: at each exec
# that hands the wire on (execv, execve, fexecve: the process image, and the
# hold with it, is gone after the call), and at a spawn (the parent keeps
# its hold; the gate decides it).  A Python server writes the start of a
# candidate answer ('{"partial', no newline: undecided, held) on stdout
# before it has read anything, then ends one way.  Unwrapped those bytes are
# on stdout (the test can fail); wrapped they are junk and reach stderr,
# whole, and stdout carries exactly the answer.  tests/gate/mutants_failsafe.bats
# has the read, exit and _exit cases one by one.

load ../helpers

ANS='{"jsonrpc":"2.0","id":0,"result":{"echo":"initialize"}}'
# the program an exec or spawn starts: it reads the first line and answers
# (dash: its read builtin reads stdin a byte at a time, its printf writes
# fd 1 once)
SH_ANSWER='read -r l; printf "%s\n" "$FAM_ANS"'

setup() { export FAM_ANS=$ANS; }

# held END: the server's code after the partial write, by END
held_code() {
    local pre='import os, sys
os.write(1, b"{\"partial")
'
    case $1 in
        execv)   echo "${pre}os.execv('/bin/sh', ['sh', '-c', '$SH_ANSWER'])" ;;
        execve)  echo "${pre}os.execve('/bin/sh', ['sh', '-c', '$SH_ANSWER'], os.environ)" ;;
        fexecve) echo "${pre}fd = os.open('/bin/sh', os.O_RDONLY)
os.execve(fd, ['sh', '-c', '$SH_ANSWER'], os.environ)" ;;
        spawn)   echo "${pre}pid = os.posix_spawn('/bin/sh', ['sh', '-c', '$SH_ANSWER'], os.environ)
sys.exit(os.waitpid(pid, 0)[1] >> 8)" ;;
        read)    echo "${pre}sys.stdin.readline()
os.write(1, os.environ['FAM_ANS'].encode() + b'\n')" ;;
        *) echo "test bug: $1" >&2; return 1 ;;
    esac
}

# held END: unwrapped the partial bytes and the answer on stdout; wrapped,
# the partial bytes on stderr, exactly once, stdout exactly the answer.
held() {
    local code
    code=$(held_code "$1")
    ungated --frames 0 --line "$INIT" -- "$PYTHON" -c "$code"
    assert_status 0
    assert_stdout_bytes "{\"partial$ANS"$'\n'
    STDIOGATE_DEBUG=2 gated --frames 1 --line "$INIT" -- "$PYTHON" -c "$code"
    assert_status 0
    assert_frames "$ANS"
    [ "$(grep -o '{"partial' "$ERR" | wc -l)" = 1 ] ||
        { echo "$1: the held bytes are not on stderr exactly once" >&2; show_run; false; }
}

@test "families: what the hold holds is junk, on stderr, when the gate opens by a read and at each exec or spawn that hands the wire (execv, execve, fexecve, posix_spawn)" {
    row_table held read execv execve fexecve spawn
}

# no_answer TEXT: written before anything was read, TEXT is no answer: it
# does not open the gate (stderr gets it whole, the answer after the read
# is stdout's only line, the gate opened by read).
no_answer() {
    local code="import os, sys
os.write(1, sys.argv[1].encode() + b'\n')
sys.stdin.readline()
os.write(1, os.environ['FAM_ANS'].encode() + b'\n')"
    ungated --frames 0 --line "$INIT" -- "$PYTHON" -c "$code" "$1"
    assert_status 0
    assert_stdout_bytes "$1"$'\n'"$ANS"$'\n'
    STDIOGATE_DEBUG=2 gated --frames 1 --line "$INIT" -- "$PYTHON" -c "$code" "$1"
    assert_status 0
    assert_frames "$ANS"
    assert_stderr_has "$1"
    assert_gate_opened_by read
}

@test "families: an answer inside an array inside a batch is no answer to the fail-safe (first, after an answer, nested twice)" {
    local a='{"jsonrpc":"2.0","id":0,"result":{}}'
    no_answer "[[$a]]"
    no_answer "[$a,[$a]]"
    no_answer "[[[$a]]]"
}
