#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Core gate: startup chatter of a one-process C server, in every way C
# programs write it, goes to stderr; stdout carries exactly the frames.

load ../helpers

SRV=$BIN/core_srv

# one_kind READER KIND: the server writes KIND-junk the KIND way, then reads
# its first message with READER: the junk reaches stderr, the answer the wire.
one_kind() {
    JUNK=("$2-junk")
    init_diverted -- "$SRV" "$1" "$2"
}

@test "junk: buffered printf (left in the stdio buffer) goes to stderr" { one_kind read printf; }

@test "junk: puts goes to stderr" { one_kind read puts; }

@test "junk: write(1) goes to stderr" { one_kind read write; }

@test "junk: system(\"echo ...\") goes to stderr" { one_kind read system; }

@test "junk: a fork+exec'd echo goes to stderr" { one_kind read forkexec; }

@test "junk: a posix_spawnp'd echo goes to stderr" { one_kind read spawn; }

@test "junk: a fork()ed child's printf goes to stderr" { one_kind read forkchild; }

@test "junk: all kinds at once, then three requests answered in order" {
    JUNK=(printf-junk puts-junk write-junk system-junk forkexec-junk)
    diverted --line "$INIT" --line "$INITIALIZED" --line '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
        --frames 2 -- "$SRV" read printf puts write system forkexec
    assert_frames "$(answer 0 initialize)" "$(answer 2 tools/list)"
}

@test "junk: printf left buffered is flushed to stderr, not onto the answer (stdio readers)" { one_kind fgets printf; }

@test "junk: a server that never reads stdin keeps its output on stderr" {
    JUNK=(printf-junk puts-junk write-junk system-junk)
    diverted --frames 0 -- "$SRV" none printf puts write system
    assert_frames
}

@test "junk: output after the first message goes to stderr too (the session guard)" {
    both --line "$INIT" -- "$SRV" read write postjunk
    assert_status 0
    assert_stderr_has write-junk post-junk
    assert_stdout_bytes "$(answer 0 initialize)"$'\n'
}

@test "junk: with --gate-only, output after the first message is the server's (reaches the wire)" {
    STDIOGATE_GUARD=0 both --line "$INIT" -- "$SRV" read write postjunk
    assert_status 0
    assert_stderr_has write-junk
    assert_stdout_bytes "$(answer 0 initialize)"$'\n'post-junk$'\n'
}

@test "junk: STDIOGATE_DISCARD=1 sends it to /dev/null instead, after the first message too (the guard's)" {
    JUNK=(printf-junk write-junk system-junk post-junk)
    STDIOGATE_DISCARD=1 both --line "$INIT" -- "$SRV" read printf write system postjunk
    assert_status 0
    assert_stderr_lacks "${JUNK[@]}"
    assert_stdout_lacks "${JUNK[@]}"
    assert_frames "$(answer 0 initialize)"
}

@test "junk: a Go program (ELF note .note.go.buildid in a PT_NOTE segment) is left alone (--gate-only)" {
    # (by default the wrapper runs it under the filter: tests/strict/strict_auto.bats)
    local -x STDIOGATE_AUTO_STRICT=0
    # .note.go.buildid is mapped by a NOTE program header
    readelf -lW "$BIN/core_go_fake" | awk '
        /^Program Headers/ { p = 1; next }
        /Section to Segment/ { p = 0; m = 1; next }
        p && $1 ~ /^[A-Z_]+$/ && $1 != "Type" { t[n++] = $1 }
        m && $1 ~ /^[0-9]+$/ && t[$1 + 0] == "NOTE" && /\.note\.go\.buildid/ { f = 1 }
        END { exit !f }'
    run readelf -nW "$BIN/core_go_fake"
    [[ "$output" =~ "GO BUILDID" ]]

    JUNK=(printf-junk write-junk)
    both --line "$INIT" -- "$BIN/core_go_fake" read printf write
    cp "$OUT" "$BATS_TEST_TMPDIR/unwrapped"
    STDIOGATE_DEBUG=2 gated --line "$INIT" -- "$BIN/core_go_fake" read printf write
    assert_status 0
    assert_stderr_has "Go program: not diverting"
    assert_stderr_lacks "diverting stdout to stderr"
    cmp "$BATS_TEST_TMPDIR/unwrapped" "$OUT" || { echo "Go program: stdout differs from the unwrapped run" >&2; show_run; false; }
    assert_stdout_has printf-junk write-junk
}

@test "junk: a thread holding stdout's lock while the gate opens does not deadlock the server" {
    # printf-junk and locked-junk sit in the stdio buffer, and the lock is
    # held until the server's first read has returned: the library cannot
    # flush them while diverted; it must not wait for the lock either.
    # Only the absence of a deadlock and the answer are asserted.
    gated --line "$INIT" -- "$SRV" read printf lockhold
    assert_status 0
    [ "$(tail -n 1 "$OUT")" = "$(answer 0 initialize)" ] || { show_run; false; }
}

@test "junk: the program's own constructor runs after the preload's: diverted" {
    export CORE_CTOR_JUNK=1
    JUNK=(ctor-junk write-junk)
    init_diverted -- "$SRV" read write
}

@test "junk: STDIOGATE_OPEN=0 is not the handshake" {
    JUNK=(after-open0-junk)
    init_diverted -- "$SRV" read handshake0
}
