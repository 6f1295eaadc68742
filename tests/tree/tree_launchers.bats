#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Process trees, issue 3: launchers and shells between the wrapper and the server.
# Every test: unwrapped, the tree's junk is on stdout (the test can fail);
# wrapped, stdout carries exactly the answers and every junk line is on stderr.

load ../helpers

setup() { tree_setup; }

SRV="tests/bin/tree_server"

@test "tree: sh -c 'exec SERVER'" {
    tree_check tree JUNK-server-printf JUNK-server-write -- \
        sh -c 'exec "$0"' "$SRV"
}

@test "tree: sh -c 'echo junk; exec SERVER'" {
    tree_check tree JUNK-sh JUNK-server-printf JUNK-server-write -- \
        sh -c 'echo JUNK-sh; exec "$0"' "$SRV"
}

@test "tree: bash -c 'exec SERVER'" {
    tree_check tree JUNK-bash JUNK-server-printf JUNK-server-write -- \
        bash -c 'echo JUNK-bash; exec "$0"' "$SRV"
}

@test "tree: bash -c 'SERVER' (bash execs a lone command itself)" {
    tree_check tree JUNK-server-printf JUNK-server-write -- \
        bash -c "$SRV"
}

@test "tree: dash -c 'exec SERVER'" {
    tree_check tree JUNK-dash JUNK-server-printf JUNK-server-write -- \
        dash -c 'echo JUNK-dash; exec "$0"' "$SRV"
}

@test "tree: dash -c 'SERVER; exit' (dash vforks the server and waits)" {
    tree_check tree JUNK-dash JUNK-server-printf JUNK-server-write -- \
        dash -c 'echo JUNK-dash; "$0"; echo JUNK-dash-after; exit $?' "$SRV"
    assert_stderr_has JUNK-dash-after
}

@test "tree: env VAR=1 SERVER" {
    TREE_JUNK=envserver tree_check tree JUNK-envserver-printf JUNK-envserver-write -- \
        env VAR=1 "$SRV"
}

@test "tree: env VAR=1 sets the variable and no marker leaks into the server's environment" {
    tree_check tree JUNK-envcheck JUNK-server-printf -- \
        env VAR=1 sh -c 'echo "JUNK-envcheck VAR=$VAR marker=${STDIOGATE_WIRE-unset}"; exec "$0"' "$SRV"
    assert_stderr_has "JUNK-envcheck VAR=1 marker=unset"
}

@test "tree: nice SERVER" {
    tree_check tree JUNK-server-printf JUNK-server-write -- \
        nice -n 1 "$SRV"
}

@test "tree: timeout 30 SERVER (timeout forks the server and waits)" {
    tree_check tree JUNK-server-printf JUNK-server-write -- \
        timeout 30 "$SRV"
}

@test "tree: a chain of launchers: env, nice, timeout, sh -c, bash -c" {
    tree_check tree JUNK-sh JUNK-bash JUNK-server-printf JUNK-server-write -- \
        env VAR=1 nice timeout 30 sh -c 'echo JUNK-sh; exec bash -c '\''echo JUNK-bash; exec "$0"'\'' "$0"' "$SRV"
}

# A shell that, before it execs the server, writes on stderr through a
# redirected builtin (the shell saves and restores fd 1 around it), captures
# helpers' output (a builtin and an external command) and opens a file on
# descriptor 3.  The server is named after the captures: the frames prove
# that command substitution still captured.
busy_shell_script='
echo JUNK-shell-1
echo banner >&2
x=$(/bin/echo captured)
y=$(echo builtin)
echo "JUNK-shell-2 x=[$x] y=[$y]"
echo "shell: x=[$x] y=[$y]" >&2
exec 3< "$1"
read -r first <&3
echo "shell: fd3 read [$first]" >&2
/bin/echo JUNK-shell-external
exec "$0" "$x-$y"'

busy_shell() {
    local shell="$1"
    printf 'line one\n' >"$BATS_TEST_TMPDIR/file"
    expect_frames captured-builtin
    TREE_JUNK=shserver tree_run_plain "$shell" -c "$busy_shell_script" "$SRV" "$BATS_TEST_TMPDIR/file"
    assert_status 0
    assert_stdout_has JUNK-shell-1 JUNK-shell-2 JUNK-shell-external JUNK-shserver-write
    assert_frames_among_stdout
    TREE_JUNK=shserver tree_run "$shell" -c "$busy_shell_script" "$SRV" "$BATS_TEST_TMPDIR/file"
    assert_status 0
    assert_stdout_frames
    assert_stderr_has banner JUNK-shell-1 JUNK-shell-2 JUNK-shell-external \
        JUNK-shserver-printf JUNK-shserver-write \
        "shell: x=[captured] y=[builtin]" "shell: fd3 read [line one]"
}

@test "tree: dash runs echo >&2, x=\$(cmd), exec 3< file, then execs the server" {
    busy_shell dash
}

@test "tree: bash runs echo >&2, x=\$(cmd), exec 3< file, then execs the server" {
    busy_shell bash
}

@test "tree: sh (the system's /bin/sh) runs echo >&2, x=\$(cmd), exec 3< file, then execs the server" {
    busy_shell sh
}

@test "tree: bash reads a process substitution on fd 3 (exec 3< <(cmd)) before it execs the server" {
    local script='
echo JUNK-bash-1
exec 3< <(/bin/echo from-procsub; echo JUNK-never-read >&2)
read -r v <&3
echo "bash: read [$v]" >&2
echo JUNK-bash-2 >&2
exec "$0" "$v"'
    expect_frames from-procsub
    tree_run_plain bash -c "$script" "$SRV"
    assert_status 0
    assert_stdout_has JUNK-bash-1 JUNK-server-write
    assert_frames_among_stdout
    tree_run bash -c "$script" "$SRV"
    assert_status 0
    assert_stdout_frames
    assert_stderr_has JUNK-bash-1 "bash: read [from-procsub]" JUNK-server-printf JUNK-server-write
}

@test "tree: stdbuf -oL SERVER (stdbuf puts its own library into LD_PRELOAD)" {
    tree_check tree JUNK-server-printf JUNK-server-write -- \
        stdbuf -oL "$SRV"
}

@test "tree: setsid -w SERVER (setsid forks when it leads its process group, and waits)" {
    tree_check tree JUNK-sh JUNK-server-printf JUNK-server-write -- \
        sh -c 'echo JUNK-sh; setsid -w "$0"' "$SRV"
}

# Scripts that point stdout elsewhere for a while and put it back (saving it
# on a low descriptor) before they exec the server.
@test "tree: bash: exec 4>&1 >&2; ...; exec >&4 4>&- then exec the server" {
    tree_check tree JUNK-bash-1 JUNK-bash-3 JUNK-server-write -- \
        bash -c 'echo JUNK-bash-1; exec 4>&1 >&2; echo bash-2-on-stderr; exec >&4 4>&-; echo JUNK-bash-3; exec "$0"' "$SRV"
    assert_stderr_has bash-2-on-stderr
}

@test "tree: dash: exec 3>&1 1>&2; ...; exec 1>&3 3>&- then exec the server" {
    tree_check tree JUNK-dash-1 JUNK-dash-3 JUNK-server-write -- \
        dash -c 'echo JUNK-dash-1; exec 3>&1 1>&2; echo dash-2-on-stderr; exec 1>&3 3>&-; echo JUNK-dash-3; exec "$0"' "$SRV"
    assert_stderr_has dash-2-on-stderr
}

@test "tree: a launcher that starts the server with stdout duplicated on fd 3 (exec SERVER 3>&1)" {
    tree_check tree JUNK-sh JUNK-server-write -- \
        sh -c 'echo JUNK-sh; exec "$0" 3>&1' "$SRV"
}

@test "tree: a launcher that relays stdin through a pipe: sh -c 'cat | SERVER' (the server's stdin is not the client's)" {
    tree_check tree JUNK-sh JUNK-server-write JUNK-server-printf -- \
        sh -c 'echo JUNK-sh; cat | "$0"' "$SRV"
}

@test "tree: bash -c 'cat | SERVER' with a Python server" {
    tree_check tree JUNK-bash JUNK-pyserver-print -- \
        bash -c 'echo JUNK-bash; cat | "$0"' tests/fixtures/tree_server.py
}

@test "tree: a launcher shell that opens every descriptor from 990 to 1023 before it execs the server" {
    tree_check tree JUNK-bash JUNK-server-write -- \
        bash -c 'echo JUNK-bash; for fd in $(seq 990 1023); do eval "exec $fd>/dev/null"; done; echo "bash: opened" >&2; exec "$0"' "$SRV"
    assert_stderr_has "bash: opened"
}

@test "tree: a launcher shell that lowers the descriptor limit (ulimit -n 20) before it execs the server" {
    tree_check tree JUNK-sh JUNK-server-write JUNK-server-printf -- \
        sh -c 'echo JUNK-sh; ulimit -n 20; exec "$0"' "$SRV"
}

@test "tree: ulimit -n 20 in a bash script that captures and runs a Python server without exec" {
    expect_frames script-captured
    tree_run bash -c 'ulimit -n 20; exec "$@"' bash tests/fixtures/tree_script.bash tests/fixtures/tree_server.py
    assert_status 0
    assert_stdout_frames
    assert_stderr_has JUNK-script-banner "script: helper said [script-captured]" JUNK-pyserver-print
}

@test "tree: dash vforks 100 programs and fails to find 100 more (PATH search in vfork children) before it execs the server" {
    local script='
i=0
while [ $i -lt 100 ]; do
    /bin/true
    tree-no-such-command 2>/dev/null
    i=$((i + 1))
done
echo JUNK-dash-after-loop
x=$(/bin/echo still-captures)
echo "dash: x=[$x]" >&2
exec "$0"'
    tree_check tree JUNK-dash-after-loop JUNK-server-write JUNK-server-printf -- \
        dash -c "$script" "$SRV"
    assert_stderr_has "dash: x=[still-captures]"
}

@test "tree: --discard: the junk of every process of a bash/dash/python tree vanishes, the frames arrive" {
    expect_frames tree
    tree_run --discard bash -c 'echo JUNK-bash; x=$(/bin/echo c); exec dash -c "echo JUNK-dash; exec \"\$0\"" "$0"' tests/fixtures/tree_server.py
    assert_status 0
    assert_stdout_frames
    assert_nowhere JUNK-bash JUNK-dash JUNK-pyserver-print
}
