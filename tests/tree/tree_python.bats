#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Process trees, issue 3: a Python parent (it first captures a helper's
# stdout with stdout=PIPE and silences another with DEVNULL) that starts the server with
# subprocess and waits, by both of CPython's paths: _posixsubprocess
# (vfork; the child closes every descriptor above 2 with close_range before
# it execs) and os.posix_spawn (glibc's clone(CLONE_VM|CLONE_VFORK) and its
# internal __execve: nothing can be hooked in that child).
#
# The fixture checks in-process which path subprocess took; the strace tests
# check the system calls of the wrapped tree.

load ../helpers

setup() { tree_setup; }

PYPARENT_TAGS=(JUNK-pyparent-print JUNK-pyparent-write JUNK-pyparent-after JUNK-server-write JUNK-server-printf)

@test "tree: Python parent, subprocess vfork path (close_fds=True, close_range before exec), C server" {
    tree_check py-captured "${PYPARENT_TAGS[@]}" -- python3 tests/fixtures/tree_pyparent.py fork tests/bin/tree_server
    assert_stderr_has "tree_pyparent: started with fork_exec" "tree_pyparent: captured [py-captured]"
    assert_nowhere JUNK-py-devnull
}

@test "tree: Python parent, subprocess posix_spawn path (close_fds=False), C server" {
    tree_check py-captured "${PYPARENT_TAGS[@]}" -- python3 tests/fixtures/tree_pyparent.py spawn tests/bin/tree_server
    assert_stderr_has "tree_pyparent: started with posix_spawn" "tree_pyparent: captured [py-captured]"
    assert_nowhere JUNK-py-devnull
}

@test "tree: Python parent, subprocess vfork path, Python server (pyenv shebang)" {
    tree_check py-captured JUNK-pyparent-print JUNK-pyparent-after JUNK-pyserver-print -- \
        python3 tests/fixtures/tree_pyparent.py fork tests/fixtures/tree_server.py
}

@test "tree: Python parent, subprocess posix_spawn path, Node server" {
    tree_check py-captured JUNK-pyparent-print JUNK-pyparent-after JUNK-nodeserver-log -- \
        python3 tests/fixtures/tree_pyparent.py spawn tests/fixtures/tree_server.js
}

# strace_path MODE: run the wrapped tree under strace -f and check how the
# server's process was made.
strace_path() {
    local mode="$1" py trace="$BATS_TEST_TMPDIR/strace"
    command -v strace >/dev/null || { echo "strace is needed"; false; }
    py=$(python3 -c 'import sys; print(sys.executable)')
    expect_frames py-captured
    tree_run_plain strace -f -qq -o "$trace" -e trace=vfork,fork,clone,clone3,close_range,execve \
        "$STDIOGATE" "$py" tests/fixtures/tree_pyparent.py "$mode" tests/bin/tree_server
    assert_status 0
    assert_stdout_frames
    "$PYTHON" - "$trace" "$mode" <<'PY'
import re, sys
trace, mode = sys.argv[1], sys.argv[2]
lines = open(trace).read().splitlines()
server = {l.split()[0] for l in lines
          if re.search(r'execve\("[^"]*/tests/bin/tree_server", .*(= 0|<unfinished)', l)}
assert len(server) == 1, f"server execs: {server}"
pid = server.pop()
made = [l for l in lines if re.search(r'(vfork|fork|clone3?)\b.*= %s$' % pid, l)]
assert made, f"no call created pid {pid}"
creator = made[0].split()[0]
calls = " ".join(l for l in lines if l.split()[0] == creator and re.search(r'\b(vfork|clone3?|fork)\(', l))
closes = [l for l in lines if l.split()[0] == pid and "close_range(3" in l]
print(f"server pid {pid}, created by {creator}: {made[0]}")
print(f"close_range in the child: {closes}")
if mode == "fork":
    assert re.search(r'vfork resumed>\)\s+= %s$|vfork\(\)\s+= %s$' % (pid, pid), made[0]), "not made by vfork"
    assert closes, "the vfork child did not call close_range(3, ...) before exec"
else:
    assert "vfork" not in made[0], "made by vfork, not posix_spawn"
    assert re.search(r'clone3?\(\{?flags=CLONE_VM\|CLONE_VFORK', calls), "no clone(CLONE_VM|CLONE_VFORK) in the parent"
    assert not closes, "close_range in a posix_spawn child"
PY
}

@test "tree: strace shows the vfork path: vfork, close_range(3, ...) in the child, execve of the server" {
    strace_path fork
}

@test "tree: strace shows the posix_spawn path: clone(CLONE_VM|CLONE_VFORK), no close_range, execve of the server" {
    strace_path spawn
}
