#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Core gate: Python servers (the real interpreter, not the pyenv shim:
# process trees are tests/tree_*).  Fixture: tests/fixtures/core_py_server.py.

load ../helpers

PYSRV=$FIX/core_py_server.py

@test "python: print at import, buffered as unwrapped: kept off the wire by the guard; PYTHONUNBUFFERED stays unset" {
    unset PYTHONUNBUFFERED
    JUNK=(py-import-junk py-module-junk)
    init_ping_diverted -- "$PYTHON" "$PYSRV" readline
    assert_stderr_has "py-env PYTHONUNBUFFERED=<unset>"
}

@test "python: a caller's empty PYTHONUNBUFFERED= (unset to Python) stays empty: print at import still kept off (#25)" {
    export PYTHONUNBUFFERED=
    JUNK=(py-import-junk py-module-junk)
    init_ping_diverted -- "$PYTHON" "$PYSRV" readline
    assert_stderr_has "py-env PYTHONUNBUFFERED="$'\n'
}

@test "python: --gate-only: print at import diverted before the gate (getenv gives Python PYTHONUNBUFFERED=1), its os.environ the caller's" {
    unset PYTHONUNBUFFERED
    local -x STDIOGATE_GUARD=0 STDIOGATE_AUTO_STRICT=0
    JUNK=(py-import-junk py-module-junk)
    init_ping_diverted -- "$PYTHON" "$PYSRV" readline
    assert_stderr_has "py-env PYTHONUNBUFFERED=<unset>" "diverted to stderr: 30 bytes in 2 lines"
}

@test "python: print at import over sockets (as Node-based clients start servers)" {
    unset PYTHONUNBUFFERED
    JUNK=(py-import-junk py-module-junk)
    init_diverted --sockets -- "$PYTHON" "$PYSRV" readline
}

@test "python: the user's own PYTHONUNBUFFERED=0 is kept; flushed prints still diverted" {
    export PYTHONUNBUFFERED=0
    JUNK=(py-import-junk py-module-junk)
    init_diverted -- "$PYTHON" "$PYSRV" readline flush
    assert_stderr_has "py-env PYTHONUNBUFFERED=0"
}

@test "python: with the user's PYTHONUNBUFFERED=0, unflushed prints stay buffered (the user's choice is honoured)" {
    # Bytes Python keeps in its own buffer past the first message leave with
    # the answer, in one write after the gate: the guard splits them off (the
    # gate alone let them through).  This shows the wrapper did not override 0.
    export PYTHONUNBUFFERED=0
    STDIOGATE_DEBUG=2 gated --line "$INIT" -- "$PYTHON" "$PYSRV" readline
    assert_status 0
    assert_stderr_has "py-env PYTHONUNBUFFERED=0"
    assert_stdout_bytes "$(answer 0 initialize)"$'\n'
    # still buffered: nothing diverted before the gate, both lines kept off by the guard
    assert_stderr_has "diverted to stderr: 0 bytes" "guard: kept 30 bytes in 2 lines off the wire after the gate"
    STDIOGATE_GUARD=0 gated --line "$INIT" -- "$PYTHON" "$PYSRV" readline
    assert_status 0
    assert_stdout_bytes "py-import-junk"$'\n'"py-module-junk"$'\n'"$(answer 0 initialize)"$'\n'
}

# Before the fail-safe (core_failsafe.bats) the answer landed on stderr; now
# the answer itself opens the gate.
@test "python: a raw-syscall reader is invisible to the library: the answer opens the gate" {
    unset PYTHONUNBUFFERED
    JUNK=(py-import-junk py-module-junk)
    both --line "$INIT" --frames 0 --no-close -- "$PYTHON" "$PYSRV" rawread once
    STDIOGATE_DEBUG=2 gated --line "$INIT" --frames 0 --no-close -- "$PYTHON" "$PYSRV" rawread once
    assert_status 0
    assert_junk_on_stderr
    assert_frames "$(answer 0 initialize)"
    assert_stderr_has "the server answered"
    assert_stderr_lacks '"result"'
}

@test "python: handshake os.environ[\"STDIOGATE_OPEN\"] = \"1\" in a raw-syscall reader" {
    unset PYTHONUNBUFFERED
    JUNK=(py-import-junk py-module-junk)
    STDIOGATE_DEBUG=2 init_ping_diverted -- "$PYTHON" "$PYSRV" handshake
    assert_stderr_has "gate opened by handshake"
}

@test "python: the MCP Python SDK v2 pattern answers on the wire through its private copy of fd 1" {
    unset PYTHONUNBUFFERED
    JUNK=(py-import-junk py-module-junk)
    init_ping_diverted -- "$PYTHON" "$PYSRV" sdk2
    assert_stderr_has py-sdk2-junk py-post-junk
}

@test "python: the SDK v2 pattern over sockets" {
    unset PYTHONUNBUFFERED
    JUNK=(py-import-junk py-module-junk)
    init_diverted --sockets -- "$PYTHON" "$PYSRV" sdk2
    assert_stderr_has py-post-junk
}

@test "python: a worker thread reads stdin, the main thread answers (SDK v1 style)" {
    unset PYTHONUNBUFFERED
    JUNK=(py-import-junk py-module-junk)
    init_ping_diverted -- "$PYTHON" "$PYSRV" thread
}

@test "python: asyncio reader (non-blocking stdin), a task prints while stdin is still empty" {
    unset PYTHONUNBUFFERED
    JUNK=(py-import-junk py-module-junk py-async-junk)
    init_ping_diverted --wait-err py-async-done -- "$PYTHON" "$PYSRV" asyncio
}

@test "python: asyncio reader over sockets" {
    unset PYTHONUNBUFFERED
    JUNK=(py-import-junk py-module-junk py-async-junk)
    init_diverted --sockets --wait-err py-async-done -- "$PYTHON" "$PYSRV" asyncio
}
