#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The interpreter variables (issue 43): PYTHONUNBUFFERED, PERL5OPT and
# RUBYOPT are the caller's, byte for byte, in the server's environment and
# in every program it starts; a tool whose stdout is a pipe to the server
# keeps its own buffering, as unwrapped.  Only a process that diverts with
# no guard after the gate (--gate-only) has its interpreter's stdout
# unbuffered, through getenv alone.  Fixture: tests/fixtures/interp_server.py.
#
# (This machine's own environment may set PYTHONUNBUFFERED=1: every case
# sets or unsets each variable itself, on both sides.)

load ../helpers

NAMES=(PYTHONUNBUFFERED PERL5OPT RUBYOPT)
SERVER=$FIX/interp_server.py

setup() {
    cd "$BATS_TEST_TMPDIR"
}

# set_case CASE: the three variables as the caller has them.
set_case() {
    unset "${NAMES[@]}"
    case $1 in
        unset) ;;
        empty) export PYTHONUNBUFFERED= PERL5OPT= RUBYOPT= ;;
        set) export PYTHONUNBUFFERED=0 PERL5OPT=-w RUBYOPT=-W0 ;;
        odd) export PYTHONUNBUFFERED=$'\x01 \'"$(x)\\ \xff=1' PERL5OPT=$' -w \t\\x=\'y\' \xfe' \
                    RUBYOPT=$'-W0  \x7f`z` =' ;;
    esac
}

# interp_run RUN MODE TOOL...: the server under RUN (gated, ungated) in MODE
# (default, gate-only), its reports in RUN-MODE/.
interp_run() {
    local run=$1 mode=$2 dir=$1-$2
    shift 2
    rm -rf "$dir" && mkdir "$dir"
    if [ "$mode" = gate-only ]; then local -x STDIOGATE_GUARD=0 STDIOGATE_AUTO_STRICT=0; fi
    $run --line "$INIT" --line "$PING" -- "$PYTHON" "$SERVER" "$PWD/$dir" "$@"
    assert_status 0
}

same() {  # same FILE: byte for byte the same in the unwrapped and the wrapped run
    cmp "ungated-$mode/$1" "gated-$mode/$1" ||
        { echo "$1 differs ($case, $mode):" >&2; cat -v "ungated-$mode/$1" "gated-$mode/$1" >&2; show_run; false; }
}

@test "interpreters: the server and the tools it runs get the caller's PYTHONUNBUFFERED, PERL5OPT, RUBYOPT byte for byte (unset, empty, set, odd bytes; default, --gate-only)" {
    local case mode
    for mode in default gate-only; do
        for case in unset empty set odd; do
            set_case "$case"
            interp_run ungated "$mode" env
            interp_run gated "$mode" env
            same server.env
            same child-start.env
            same child-served.env
        done
    done
    # (the test can fail: unset is unset, the odd value is all there)
    set_case unset
    interp_run ungated default env
    [ "$(tr '\0' '\n' <ungated-default/child-served.env)" = "$(printf '%s unset\n' "${NAMES[@]}")" ]
    set_case odd
    interp_run ungated default env
    grep -qaF "PERL5OPT=$PERL5OPT" ungated-default/server.env
}

@test "interpreters: a tool's python3, perl and ruby writing into a pipe to the server keep their own buffering, before and after the gate (default, --gate-only)" {
    local case mode
    for mode in default gate-only; do
        for case in unset empty set; do
            set_case "$case"
            interp_run ungated "$mode" python perl ruby
            interp_run gated "$mode" python perl ruby
            same tools
        done
    done
    set_case unset
    interp_run ungated default python perl ruby
    [ "$(cat ungated-default/tools)" = "start python write_through=False line_buffering=False
start perl autoflush=0
start ruby sync=false
served python write_through=False line_buffering=False
served perl autoflush=0
served ruby sync=false" ]
}

@test "interpreters: by default a Python server's stdout keeps its buffer (as unwrapped); its unflushed banner still stays off the wire" {
    local case mode=default
    JUNK=(py-interp-junk)
    for case in unset empty; do
        set_case "$case"
        interp_run ungated default
        assert_stdout_has py-interp-junk
        STDIOGATE_DEBUG=2 interp_run gated default
        assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
        assert_junk_on_stderr
        assert_stderr_has "py-self write_through=False" "guard: kept 15 bytes in 1 line off the wire"
    done
}

@test "interpreters: --gate-only: a Python server's stdout is unbuffered (its banner diverted before the gate), its environment still the caller's" {
    local case mode=gate-only
    JUNK=(py-interp-junk)
    for case in unset empty; do
        set_case "$case"
        interp_run ungated gate-only
        assert_stdout_has py-interp-junk
        STDIOGATE_DEBUG=2 interp_run gated gate-only
        assert_frames "$(answer 0 initialize)" "$(answer '"p1"' ping)"
        assert_junk_on_stderr
        assert_stderr_has "py-self write_through=True" "diverted to stderr: 15 bytes in 1 line"
        same server.env
    done
    # the caller's own PYTHONUNBUFFERED=0 is kept: buffered, as the caller asked
    set_case set
    interp_run gated gate-only
    assert_stderr_has "py-self write_through=False"
}

@test "interpreters: getenv of a name that begins a variable set before it (TERM after TERM_PROGRAM, HOME after HOMEBREW_PREFIX, USER after USERNAME) gives its own value, as unwrapped" {
    # env unsets, then appends each variable in this order, the longer name first
    local vars=(-u TERM -u TERM_PROGRAM -u HOME -u HOMEBREW_PREFIX -u USER -u USERNAME
                TERM_PROGRAM=vscode TERM=xterm-256color HOMEBREW_PREFIX=/opt/homebrew HOME=/home/u
                USERNAME=name USER=u)
    # what libc's getenv (the library's, when preloaded) gives, into a file
    local ask='import ctypes, sys
getenv = ctypes.CDLL(None).getenv
getenv.restype = ctypes.c_char_p
with open(sys.argv[1], "w") as f:
    f.write(" ".join(n + "=" + getenv(n.encode()).decode() for n in sys.argv[2:]))'
    local want="TERM=xterm-256color HOME=/home/u USER=u"
    env "${vars[@]}" "$PYTHON" -c "$ask" "$PWD/unwrapped" TERM HOME USER </dev/null
    [ "$(cat unwrapped)" = "$want" ] || { cat unwrapped >&2; false; }
    "$ROOT/stdiogate" env "${vars[@]}" "$PYTHON" -c "$ask" "$PWD/wrapped" TERM HOME USER </dev/null
    [ "$(cat wrapped)" = "$want" ] || { cat wrapped >&2; false; }
}
