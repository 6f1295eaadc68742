#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Process trees, issue 3: launcher scripts (a bash script that runs the server
# without exec, pyenv-like shims, the machine's own pyenv python3) and a
# program the preload cannot enter (a static ELF) exec'd by a wrapped shell.

load ../helpers

setup() { tree_setup; }

@test "tree: bash script: banner, x=\$(helper) used, server as last command without exec" {
    expect_frames script-captured
    tree_run_plain tests/fixtures/tree_script.bash tests/bin/tree_server
    assert_status 0
    assert_stdout_has JUNK-script-banner JUNK-script-2 JUNK-server-write JUNK-server-printf
    assert_frames_among_stdout
    tree_run tests/fixtures/tree_script.bash tests/bin/tree_server
    assert_status 0
    assert_stdout_frames
    assert_stderr_has JUNK-script-banner JUNK-script-2 JUNK-helper-stderr \
        "script: helper said [script-captured]" JUNK-server-write JUNK-server-printf
}

@test "tree: bash script without exec, Python server" {
    expect_frames script-captured
    tree_run_plain tests/fixtures/tree_script.bash tests/fixtures/tree_server.py
    assert_status 0
    assert_stdout_has JUNK-script-banner JUNK-pyserver-print
    tree_run tests/fixtures/tree_script.bash tests/fixtures/tree_server.py
    assert_status 0
    assert_stdout_frames
    assert_stderr_has JUNK-script-banner JUNK-script-2 "script: helper said [script-captured]" JUNK-pyserver-print
}

@test "tree: pyenv-like shim (several \$(...) then exec the interpreter) running a Python server" {
    tree_check tree JUNK-shim-1 JUNK-shim-exec-1 JUNK-pyserver-print -- \
        tests/fixtures/tree_shim.bash tests/fixtures/tree_server.py
    assert_stderr_has "shim: python 3." "shim-exec: 3."
}

is_pyenv_shim() {
    local p
    p=$(command -v python3) || return 1
    head -c 200 "$p" | grep -q '^#!.*bash' && grep -q 'pyenv' "$p"
}

@test "tree: the machine's python3 (a real pyenv shim) running a Python server" {
    is_pyenv_shim || skip_unless_ci "python3 on PATH ($(command -v python3)) is not a pyenv shim: install pyenv to run it"
    tree_check tree JUNK-pyserver-print -- python3 tests/fixtures/tree_server.py
}

@test "tree: a Python server started by its #!/usr/bin/env python3 line (env, pyenv shim, pyenv exec, python)" {
    is_pyenv_shim || skip_unless_ci "python3 on PATH ($(command -v python3)) is not a pyenv shim: install pyenv to run it"
    TREE_JUNK=shebang tree_check tree JUNK-shebang-print -- tests/fixtures/tree_server.py
}

@test "tree: the pyenv-like shim with a C server behind bash and dash launchers" {
    # The shim execs the real python, which here runs a one-line launcher
    # that execs the C server through dash: every hop must pass the wire on.
    tree_check tree JUNK-shim-1 JUNK-shim-exec-1 JUNK-pylaunch JUNK-dash JUNK-server-write JUNK-server-printf -- \
        bash -c 'echo JUNK-bash >&2; exec "$@"' bash tests/fixtures/tree_shim.bash -c \
        'import os, sys; print("JUNK-pylaunch", flush=True); os.execvp("dash", ["dash", "-c", "echo JUNK-dash; exec \"$0\"", sys.argv[1]])' \
        tests/bin/tree_server
}

@test "tree: a static C server exec'd by a wrapped shell answers on the wire (unguarded)" {
    expect_frames tree
    TREE_JUNK=none tree_run_plain sh -c 'echo JUNK-sh; x=$(/bin/echo hi); exec "$0"' tests/bin/tree_server_static
    assert_status 0
    assert_stdout_has JUNK-sh
    TREE_JUNK=none tree_run sh -c 'echo JUNK-sh; x=$(/bin/echo hi); echo "sh: x=[$x]" >&2; exec "$0"' tests/bin/tree_server_static
    assert_status 0
    assert_stdout_frames
    assert_stderr_has JUNK-sh "sh: x=[hi]" "tree_server: started as tree"
}

@test "tree: a static C server forked by a wrapped bash that waits for it answers on the wire" {
    expect_frames tree
    TREE_JUNK=none tree_run bash -c 'echo JUNK-bash; "$0"; status=$?; echo JUNK-bash-after; exit $status' tests/bin/tree_server_static
    assert_status 0
    assert_stdout_frames
    assert_stderr_has JUNK-bash JUNK-bash-after "tree_server: started as tree"
}

@test "tree: a setgid C server exec'd by a wrapped shell answers on the wire (the preload is ignored for it: unguarded)" {
    local sgid="$BATS_TEST_TMPDIR/tree_server_setgid"
    cp tests/bin/tree_server "$sgid"
    chgrp nogroup "$sgid" && chmod g+s "$sgid"
    [ -g "$sgid" ] || { echo "could not make a setgid copy"; false; }
    expect_frames tree
    TREE_JUNK=none tree_run sh -c 'echo JUNK-sh; x=$(/bin/echo hi); exec "$0"' "$sgid"
    assert_status 0
    assert_stdout_frames
    assert_stderr_has JUNK-sh "tree_server: started as tree"
    TREE_JUNK=none tree_run bash -c 'echo JUNK-bash; "$0"; exit $?' "$sgid"
    assert_status 0
    assert_stdout_frames
    assert_stderr_has JUNK-bash
}
