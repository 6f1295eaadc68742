#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Issue 45: how a program is found and judged, in every form, at both
# places that judge it: the wrapper's inspector (COMMAND itself) and the
# library at exec (a launcher's exec of it).  The program is
# tests/bin/tree_server_static, which the preload cannot enter: found, it is
# started under the strict filter and its startup junk (JUNK-server-printf,
# -write) reaches stderr; missed, it runs unguarded and the junk reaches the
# wire.  Unwrapped, the junk is on stdout (the test can fail).
#  - a #! script whose interpreter it is: "#!PATH" without the blank after
#    "#!", with a blank, with a tab, with an argument, and through
#    "#!/usr/bin/env [-S] [VAR=x] NAME" (with and without the blank);
#  - found through an empty PATH element (the current directory) at the
#    start, in the middle and at the end of PATH: by the wrapper (COMMAND),
#    by execvp (env(1) execs its argument with execvp), execvpe and execlp
#    (tests/bin/tree_exec) and by posix_spawnp (tests/bin/tree_spawn).

load ../helpers

setup() {
    tree_setup
    [ -x "$BIN/tree_server_static" ] || { echo "make fixtures" >&2; return 1; }
    SCRIPTS=$BATS_TEST_TMPDIR/scripts
    mkdir -p "$SCRIPTS"
}

# script NAME LINE: an executable script whose first line is LINE
script() {
    printf '%s\n' "$2" >"$SCRIPTS/$1"
    chmod 755 "$SCRIPTS/$1"
}

# judged SERVER-NAME CMD...: tree_check with the static server's junk
judged() {
    local name=$1; shift
    tree_check "$name" JUNK-server-printf JUNK-server-write -- "$@"
    assert_stderr_has "a static program"
}

# shebang_row NAME: the script NAME as COMMAND, then exec'd by sh, its
# serverInfo.name being what the kernel passes as the interpreter's argv[1]
shebang_row() {
    local s=$SCRIPTS/$1 name=${2:-$SCRIPTS/$1}
    local -x PATH="$BIN:$PATH" STDIOGATE_DEBUG=2
    judged "$name" "$s"
    judged "$name" sh -c 'exec "$0"' "$s"
}

@test "families: a #! script run by a static program, every spelling of the line: started under the filter by the wrapper and at exec" {
    local t=$'\t'
    script bare "#!$BIN/tree_server_static"
    script blank "#! $BIN/tree_server_static"
    script tab "#!$t$BIN/tree_server_static"
    script arg "#!$BIN/tree_server_static shebang-arg"
    script env "#!/usr/bin/env tree_server_static"
    script env-blank "#! /usr/bin/env tree_server_static"
    script env-S "#!/usr/bin/env -S tree_server_static"
    script env-var "#!/usr/bin/env -S TREE_X=1 tree_server_static"
    row_table shebang_row bare blank tab "arg shebang-arg" env env-blank env-S env-var
}

# path_row WHERE: COMMAND found through an empty element of PATH at WHERE
# (start, middle, end), by the wrapper and by env's execvp, run from the
# directory that holds it
path_row() {
    local p
    case $1 in
        start)  p=":$PATH" ;;
        middle) p="/nonexistent::$PATH" ;;
        end)    p="$PATH:" ;;
    esac
    cd "$BIN"
    local -x PATH=$p STDIOGATE_DEBUG=2
    judged tree tree_server_static
    judged tree env tree_server_static
    judged tree "$BIN/tree_spawn" plain tree_server_static
    judged tree "$BIN/tree_exec" execvpe tree_server_static
    judged tree "$BIN/tree_exec" execlp tree_server_static
}

@test "families: a static COMMAND found through an empty PATH element (start, middle, end): by the wrapper, execvp, execvpe, execlp and posix_spawnp, started under the filter" {
    row_table path_row start middle end
}
