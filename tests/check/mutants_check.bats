#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# stdiogate-check (check/*.c) at the edges that the mutation check
# (tests/mutate.sh) found unpinned.  --wrapper, the environment COMMAND
# gets: -v at exactly the cap, a STDIOGATE_DEBUG with a second character,
# the variables a shell drops, a name no shell can carry; each runs the
# wrapper with env as COMMAND (a stub library: nothing is preloaded for
# real) and reads the environment env printed.  --check: the summary names
# every phase the junk came in.

bats_require_minimum_version 1.5.0

load ../check_helpers
load ../stub_helpers

setup_file() {
    stub_tree
}

setup() {
    cd "$BATS_TEST_TMPDIR"
    unset STDIOGATE_DEBUG
}

# debug_of [VAR=VALUE]... -- OPTION...: STDIOGATE_DEBUG as COMMAND gets it
debug_of() {
    local assign=()
    while [ "$1" != -- ]; do assign+=("$1"); shift; done
    shift
    run --separate-stderr env ${assign[@]+"${assign[@]}"} "$STUB/stdiogate" "$@" env
    [ "$status" -eq 0 ]
    level=$(printf '%s\n' "$output" | sed -n 's/^STDIOGATE_DEBUG=//p')
}

@test "check: -vvvv is level 4, the cap itself (one -v more than -vvv, which is 4 already)" {
    debug_of -- -vvvv
    [ "$level" = 4 ]
    debug_of -- -vvvvvvvv
    [ "$level" = 4 ]
}

@test "check: STDIOGATE_DEBUG=01 and +1 are not levels: a warning, and level 1" {
    for given in 01 +1; do
        debug_of STDIOGATE_DEBUG=$given --
        echo "$given: level $level, stderr $stderr" >&2
        [ "$level" = 1 ]
        [ "$stderr" = "stdiogate: warning: STDIOGATE_DEBUG=$given is not a level from 0 to 4: using 1" ]
    done
    debug_of STDIOGATE_DEBUG=0 --
    [ "$level" = 0 ]
    [ -z "$stderr" ]
}

@test "check: run by bash (a /bin/sh that is bash), variables bash does not pass on (PS1, PS2, OLDPWD) still reach COMMAND" {
    command -v bash >/dev/null || skip "no bash"
    # bash itself drops them: what the wrapper has to put back
    run env -i PATH="$PATH" PS1=one PS2=two OLDPWD=/three bash -c env
    [[ "$output" != *"PS1=one"* ]]
    run --separate-stderr env -i PATH="$PATH" PS1=one PS2=two OLDPWD=/three bash "$STUB/stdiogate" env
    [ "$status" -eq 0 ]
    printf '%s\n' "$output" | grep -qx 'PS1=one'
    printf '%s\n' "$output" | grep -qx 'PS2=two'
    printf '%s\n' "$output" | grep -qx 'OLDPWD=/three'
}

@test "check: a caller's variable whose name no shell can carry (1X) does not break the wrapper" {
    run --separate-stderr env 1X=y "$STUB/stdiogate" env
    echo "stderr: $stderr" >&2
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    printf '%s\n' "$output" | grep -q '^PATH='
}

@test "check: output at exit is named in the summary (N at exit)" {
    check --linger 0 -- "$SRV" atexit
    [ "$status" -eq 1 ]
    summary=$(q .verdict.summary)
    echo "summary: $summary" >&2
    [[ "$summary" == *" at exit)"* ]]
}

# The text report prints each run's command line quoted for a shell, to be
# pasted: an argument with a single quote, a space or a '$' must come back
# whole when a shell reads the line.
@test "check: the text report's command lines, read by a shell, give back every argument (a quote, a space, a \$)" {
    local args=("it's" 'a b' '$HOME' "x'y'z" '')
    check_text --linger 0 -- "$SRV" banner -- "${args[@]}"
    [ "$status" -eq 1 ] || { show_check; false; }
    local want=("$SRV" banner -- "${args[@]}") lines line got n=0
    mapfile -t lines < <(grep -E '^(run [0-9], unwrapped|stdiogate --check \()' check.txt | sed 's/^[^:]*: //')
    [ "${#lines[@]}" -eq 2 ] || { show_check; false; }
    for line in "${lines[@]}"; do
        eval "got=($line)"
        [ "${#got[@]}" -eq "${#want[@]}" ] || { echo "read back ${#got[@]} words from: $line"; false; }
        for n in "${!want[@]}"; do
            [ "${got[$n]}" = "${want[$n]}" ] || { echo "word $n: [${got[$n]}], not [${want[$n]}]: $line"; false; }
        done
    done
}
