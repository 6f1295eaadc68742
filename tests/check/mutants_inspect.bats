#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# What inspect.c tells about a program, at the edges that the mutation check
# (tests/mutate.sh) found unpinned: a .bun section alone, a .go.buildinfo
# section without the Go build ID note, setuid to oneself, a setgid bit
# without group execute, and #!/usr/bin/env lines with an assignment or an
# option that takes a value before the program's name.
# Each case asks stdiogate-check --inspect (status 0: nothing found, 1: a
# warning) and checks the warning's text, with a case beside it that warns,
# so that the test can fail.

bats_require_minimum_version 1.5.0

setup_file() {
    export REPO="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
    export BIN="$BATS_FILE_TMPDIR/bin"
    mkdir -p "$BIN"
    printf 'int main(void) { return 0; }\n' >"$BIN/main.c"
    cc -o "$BIN/dynamic" "$BIN/main.c"
    cc -static -o "$BIN/static" "$BIN/main.c"
    # one of the two sections a Bun executable has, and both
    printf '%s\n' '__attribute__((used, section(".bun"))) static char b[8] = "fakebun";' \
        'int main(void) { return 0; }' >"$BIN/bun1.c"
    cc -o "$BIN/bun_one" "$BIN/bun1.c"
    printf '%s\n' '__attribute__((used, section(".bun"))) static char b[8] = "fakebun";' \
        '__attribute__((used, section(".bun_builtins"))) static const char c[8] = "builtin";' \
        'int main(void) { return 0; }' >"$BIN/bun2.c"
    cc -o "$BIN/bun_both" "$BIN/bun2.c"
    # names that only begin like Bun's (a whole name must match)
    printf '%s\n' '__attribute__((used, section(".bunny"))) static char b[8] = "notbun";' \
        '__attribute__((used, section(".bun_builtins_x"))) static const char c[8] = "builtin";' \
        'int main(void) { return 0; }' >"$BIN/bun3.c"
    cc -o "$BIN/bun_prefix" "$BIN/bun3.c"
    # a Go program without its build ID note (-ldflags=-buildid=, Bazel's
    # rules_go): only the .go.buildinfo section tells it
    printf '%s\n' '__attribute__((used, section(".go.buildinfo"))) static char g[16] = "\xff Go buildinf:";' \
        'int main(void) { return 0; }' >"$BIN/gobuildinfo.c"
    cc -o "$BIN/go_buildinfo" "$BIN/gobuildinfo.c"
}

setup() {
    cd "$BATS_TEST_TMPDIR"
}

inspect() {
    run --separate-stderr "$REPO/stdiogate-check" --inspect "$1"
    echo "status $status, stderr: $stderr" >&2
}

@test "inspect: a .bun section without .bun_builtins is no Bun program; both are" {
    inspect "$BIN/bun_one"
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    inspect "$BIN/bun_both"
    [ "$status" -eq 1 ]
    [[ "$stderr" == *"is a Bun program"* ]]
}

@test "inspect: sections whose names only begin like .bun and .bun_builtins are no Bun program" {
    readelf -SW "$BIN/bun_prefix" | grep -q ' \.bunny '
    inspect "$BIN/bun_prefix"
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
}

@test "inspect: a .go.buildinfo section without the build ID note is a Go program" {
    readelf -SW "$BIN/go_buildinfo" | grep -q ' \.go\.buildinfo '
    ! readelf -nW "$BIN/go_buildinfo" | grep -q 'Go' || false
    inspect "$BIN/dynamic"
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    inspect "$BIN/go_buildinfo"
    [ "$status" -eq 1 ]
    [[ "$stderr" == *"$BIN/go_buildinfo is a Go program (raw system calls)"* ]]
}

@test "inspect: setuid to the caller itself is no secure execution; to someone else it is" {
    cp "$BIN/dynamic" mine
    chmod 4755 mine
    inspect "$PWD/mine"
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    # owned by someone else (needs root to give it away)
    [ "$(id -u)" = 0 ] || skip "not root: cannot make a file owned by someone else"
    cp "$BIN/dynamic" theirs
    chown 65534 theirs
    chmod 4755 theirs
    inspect "$PWD/theirs"
    [ "$status" -eq 1 ]
    [[ "$stderr" == *"is setuid"* ]]
}

@test "inspect: a setgid bit without group execute (mandatory locking) is no setgid program" {
    [ "$(id -u)" = 0 ] || skip "not root: cannot give a file another group"
    cp "$BIN/dynamic" lock
    chgrp 65534 lock
    chmod 2745 lock     # S_ISGID, group r--: not set-group-ID on execution
    inspect "$PWD/lock"
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    cp "$BIN/dynamic" sgid
    chgrp 65534 sgid
    chmod 2755 sgid
    inspect "$PWD/sgid"
    [ "$status" -eq 1 ]
    [[ "$stderr" == *"is setgid"* ]]
}

# env_static LINE: a script whose #! line is LINE is judged by the program
# named static (tests/bin/static, found on PATH): statically linked.
env_static() {
    printf '%s\n' "$1" >script
    chmod 755 script
    PATH="$BIN:$PATH" inspect "$PWD/script"
    [ "$status" -eq 1 ]
    [[ "$stderr" == *"script runs $BIN/static, which is statically linked"* ]]
}

@test "inspect: #!/usr/bin/env VAR=value NAME is judged by NAME" {
    env_static '#!/usr/bin/env GREETING=hi static'
}

@test "inspect: #!/usr/bin/env -S -u VAR NAME skips -u's value and is judged by NAME" {
    env_static '#!/usr/bin/env -S -u HOME static'
}
