#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Do no harm in every setup (issue 12): the environment COMMAND gets, an
# invalid STDIOGATE_DEBUG, nesting (exactly one gate acts), musl programs,
# file capabilities, container CLIs and Bun programs, Perl and Ruby stdout
# buffers.  Over pipes and sockets where the wire matters.

bats_require_minimum_version 1.5.0
load ../helpers
load ../stub_helpers

setup() {
    SRV=$BIN/setups_srv
    MUSL=$BIN/setups_srv_musl
    ANSWER=$(answer 0 initialize)
    cd "$BATS_TEST_TMPDIR"
}

# our_env FILE: FILE (an `env -0` listing) sorted, one entry a line (NULs
# as newlines; the test values hold no newline).
sorted_env() { tr '\0' '\n' <"$1" | LC_ALL=C sort; }

# --- the environment handed to COMMAND

# Every name the wrapper's shell has ever used, PWD and the shell's own.
WRAPPER_NAMES="version configured_libdir verbosity level library program obstacle wire resolved
resolve_denied resolve_rest resolve_dir head_size max_offset self here candidate file
interpreter first rest bytes_read num i elf_endian word phoff phentsize phnum table_size
base interp notes entries ptype ph end note notes_offset notes_size notes_len p namesz
descsz note_type name go_type wants_help checker fd answer IFS PPID CDPATH OLDPWD"

@test "environment: COMMAND gets exactly the caller's, plus LD_PRELOAD (pipes, sockets)" {
    vars=(PATH="$PATH" HOME=/nonexistent-home)
    for n in $WRAPPER_NAMES; do vars+=("$n=caller's $n 'quoted' \"x\" \$y"); done
    vars+=(OPTIND=5)   # (dash refuses to start with an OPTIND that is not a number)
    # (taken: the checker's answer through $(...), not on a descriptor)
    for how in "" taken; do
    for pwd in "" PWD=/nonexistent-pwd "PWD=$PWD"; do
        env -i "${vars[@]}" $pwd env -0 >want.env
        # the library diverts env's stdout (it never reads stdin) to stderr
        $how env -i "${vars[@]}" $pwd "$STDIOGATE_WRAPPER" env -0 </dev/null >out 2>got.env
        [ ! -s out ]
        sorted_env want.env >want
        sorted_env got.env | grep -Ev '^LD_PRELOAD=' >got
        diff want got || { echo "with '$pwd', '$how'"; false; }
        grep -qx "LD_PRELOAD=$STDIOGATE_LIB" <(sorted_env got.env)
        if [ -z "$pwd" ]; then ! grep -q '^PWD=' got; fi
    done
    done
    # The same through a client over sockets, a Python server reporting its environ.
    for sockets in "" --sockets; do
        env -i "${vars[@]}" PYTHONUNBUFFERED=0 STDIOGATE_WRAPPER="$STDIOGATE_WRAPPER" "$PYTHON" "$CLIENT" --gate $sockets --out out --err err --line "$INIT" --frames 0 \
            -- "$PYTHON" -c 'import os,sys; sys.stderr.write("".join("%s=%s\n" % kv for kv in sorted(os.environ.items())))'
        sort err | grep -Ev '^(LD_PRELOAD|STDIOGATE_[A-Z]*)=' >got
        env -i "${vars[@]}" PYTHONUNBUFFERED=0 "$PYTHON" -c 'import os,sys; sys.stdout.write("".join("%s=%s\n" % kv for kv in sorted(os.environ.items())))' | sort >want
        diff want got
    done
}

@test "environment: env version=2 stdiogate env shows version=2" {
    # stderr a pipe read to its end: the end comes when the drain, which
    # copies the diverted output a moment later, is done too
    env version=2 "$STDIOGATE_WRAPPER" env </dev/null 2>&1 >out | cat >err
    grep -qx 'version=2' err
}

@test "environment: under --strict, COMMAND gets exactly the caller's too" {
    vars=(PATH="$PATH" HOME=/nonexistent-home strict="caller's strict" protocol="caller's protocol")
    for n in $WRAPPER_NAMES; do vars+=("$n=caller's $n"); done
    vars+=(OPTIND=5)
    env -i "${vars[@]}" env -0 >want.env
    # env's output is not protocol: the filter (or the gate) puts it on stderr
    env -i "${vars[@]}" "$STDIOGATE_WRAPPER" --strict env -0 </dev/null >out 2>got.env
    [ ! -s out ]
    sorted_env want.env >want
    sorted_env got.env | grep -Ev '^(LD_PRELOAD|STDIOGATE_[A-Z]*)=' >got
    diff want got
}

@test "environment: the servers --check runs get exactly the caller's environment (unwrapped run)" {
    # (LC_CTYPE set: CPython would otherwise coerce the C locale into it)
    vars=(PATH="$PATH" HOME=/nonexistent-home LC_CTYPE=C.UTF-8 strict="caller's strict" protocol="caller's protocol")
    for n in $WRAPPER_NAMES; do vars+=("$n=caller's $n"); done
    vars+=(OPTIND=5)
    env -i "${vars[@]}" env -0 >want.env
    # The server writes its environment (one block per run), then is a clean MCP server.
    dump='import os,sys; f=open(sys.argv[1],"ab"); f.write(b"".join(k.encode()+b"="+v.encode()+b"\0" for k,v in os.environ.items())+b"\n--run--\n"); f.close(); os.execv(sys.argv[2], sys.argv[2:])'
    run env -i "${vars[@]}" "$STDIOGATE_WRAPPER" --check --json -- "$PYTHON" -c "$dump" "$PWD/runs.env" "$BIN/check_srv" </dev/null
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    awk 'BEGIN{RS="\n--run--\n"} NR==1{printf "%s", $0}' runs.env >first.env
    sorted_env want.env >want
    sorted_env first.env >got
    diff want got
}

@test "environment: an answer larger than a pipe holds at first (a caller's 'library' of 100 KB, which the wrapper's shell overwrote): exact, warnings said once" {
    big=$(head -c 100000 /dev/zero | tr '\0' x)
    env -i PATH="$PATH" library="$big" env -0 >want.env
    # (a bound: a checker waiting for room in the pipe would wait forever)
    env -i PATH="$PATH" library="$big" timeout 120 "$STDIOGATE_WRAPPER" env -0 </dev/null >out 2>got.env
    [ ! -s out ]
    # said once: the answer waits whole until the pipe has room for it
    env -i PATH="$PATH" library="$big" STDIOGATE_DEBUG=x timeout 120 "$STDIOGATE_WRAPPER" true </dev/null >out 2>err
    [ "$(grep -c 'is not a level' err)" -eq 1 ] || { cat err; false; }
    sorted_env want.env >want
    sorted_env got.env | grep -Ev '^LD_PRELOAD=' >got
    diff want got
    grep -qx "LD_PRELOAD=$STDIOGATE_LIB" <(sorted_env got.env)
}

@test "stdiogate-check --wrapper --answer FD: a FD that is no pipe or file (/dev/null, a shell's empty here-document) gets nothing, status 3" {
    : >lib.so
    run -3 "$ROOT/stdiogate-check" --wrapper $$ 0 "$PWD/lib.so" /bin/true --answer 5 5</dev/null
    [ -z "$output" ]
    run -0 "$ROOT/stdiogate-check" --wrapper $$ 0 "$PWD/lib.so" /bin/true --answer 5 5<<<''
    [ -z "$output" ]
    run -125 "$ROOT/stdiogate-check" --wrapper $$ 0 "$PWD/lib.so" /bin/true --answer 10
}

# A command that lists its descriptors 3 to 9 on stderr, "N TARGET" a line.
LIST_FDS='for fd in 3 4 5 6 7 8 9; do [ -h /proc/self/fd/$fd ] && echo "$fd $(readlink /proc/self/fd/$fd)" >&2; done; true'

@test "descriptors: the caller's 3 to 9 reach COMMAND as they were, none, some or all open (the checker answers on a free one, or through \$(...)); under dash and bash" {
    for n in 3 4 5 6 7 8 9; do echo "$n" >"f$n"; done
    for shell in "" bash; do
        for open in "" 3 "3 4 5" "4 9" "3 4 5 6 7 8 9"; do
            (
                for n in 3 4 5 6 7 8 9; do eval "exec $n>&-"; done    # (bats' own)
                for n in $open; do eval "exec $n<f$n"; done
                sh -c "$LIST_FDS" </dev/null >/dev/null 2>want
                $shell "$STDIOGATE_WRAPPER" sh -c "$LIST_FDS" </dev/null >out 2>got
            )
            [ ! -s out ]
            [ "$(wc -l <want)" -eq "$(echo $open | wc -w)" ]
            diff want got || { echo "open: '$open', shell: '${shell:-sh}'"; false; }
        done
    done
}

@test "environment: under bash as sh (an empty here-document is /dev/null there), COMMAND gets the library and the caller's environment" {
    vars=(PATH="$PATH" HOME=/nonexistent-home fd="caller's fd" checker="caller's checker")
    env -i "${vars[@]}" env -0 >want.env
    env -i "${vars[@]}" bash "$STDIOGATE_WRAPPER" env -0 </dev/null >out 2>got.env
    [ ! -s out ]
    sorted_env want.env >want
    # (bash exports SHLVL and PWD where the caller did not, as it always did)
    sorted_env got.env | grep -Ev '^(LD_PRELOAD|SHLVL|PWD)=' >got
    diff want got
    grep -qx "LD_PRELOAD=$STDIOGATE_LIB" <(sorted_env got.env)
}

# --- STDIOGATE_DEBUG

@test "STDIOGATE_DEBUG invalid (abc, -1, 9, 12, x1, 2x, 0,): one warning for the whole tree, the nearest level used" {
    # (a number with anything after it is no number: 1, not its digits)
    for pair in abc:1 -1:0 9:4 12:4 x1:1 2x:1 0,:1; do
        given=${pair%:*} want=${pair#*:}
        STDIOGATE_DEBUG=$given "$STDIOGATE_WRAPPER" sh -c 'sh -c "echo \$STDIOGATE_DEBUG >level"; true' </dev/null >out 2>err
        [ "$(grep -c 'is not a level from 0 to 4' err)" -eq 1 ] || { echo "$given:"; cat err; false; }
        grep -qx "stdiogate: warning: STDIOGATE_DEBUG=$given is not a level from 0 to 4: using $want" err
        [ "$(cat level)" = "$want" ] || { echo "$given gave $(cat level)"; false; }
    done
    STDIOGATE_DEBUG=3 "$STDIOGATE_WRAPPER" true </dev/null 2>err
    ! grep -q 'not a level' err || false
}

@test "STDIOGATE_DEBUG invalid with a marker set by hand (no wrapper): the library warns once, uses the nearest level" {
    : >out
    STDIOGATE_DEBUG=9 LD_PRELOAD=$STDIOGATE_LIB STDIOGATE_WIRE=$(stat -L -c %d:%i out) \
        sh -c 'sh -c "echo level=\$STDIOGATE_DEBUG >&2"' </dev/null >out 2>err
    [ "$(grep -c 'is not a level' err)" -eq 1 ] || { cat err; false; }
    grep -Eq '^stdiogate\[[0-9]+\]: STDIOGATE_DEBUG=9 is not a level from 0 to 4: using 4$' err
    grep -qx level=4 err
}

# --- nesting: exactly one gate acts

# gate_count: how many gates opened, in $ERR at level 2.
gates_opened() { grep -c 'gate opened by' "$ERR" || true; }

@test "nesting: LD_PRELOAD=libstdiogate.so stdiogate SERVER: junk on stderr, one gate (pipes, sockets)" {
    for sockets in "" --sockets; do
        JUNK=("setups-junk 00000000")
        ungated $sockets --line "$INIT" -- "$SRV" 192
        assert_status 0
        assert_stdout_has "setups-junk 00000000"
        LD_PRELOAD=$STDIOGATE_LIB STDIOGATE_DEBUG=2 ungated $sockets --line "$INIT" -- "$STDIOGATE_WRAPPER" "$SRV" 192
        assert_status 0
        assert_frames "$ANSWER"
        assert_junk_on_stderr
        [ "$(gates_opened)" -eq 1 ] || { show_run; false; }
    done
}

@test "nesting: a client running under stdiogate starts stdiogate SERVER on pipes of its own" {
    # client.py is the client here, itself started under stdiogate: the
    # library is preloaded in its tree, and its own stdout is diverted.
    for sockets in "" --sockets; do
        "$STDIOGATE_WRAPPER" "$PYTHON" "$CLIENT" $sockets --out "$OUT" --err "$ERR" --line "$INIT" \
            -- "$STDIOGATE_WRAPPER" "$SRV" 192 </dev/null >/dev/null 2>outer.err
        assert_frames "$ANSWER"
        assert_stderr_has "setups-junk 00000000"
    done
}

@test "nesting: stdiogate stdiogate SERVER and a launcher calling stdiogate under stdiogate: one gate (pipes, sockets)" {
    printf '#!/bin/sh\n"%s" "%s" 192\n' "$STDIOGATE_WRAPPER" "$SRV" >launcher
    printf '#!/bin/sh\nexec "%s" "%s" 192\n' "$STDIOGATE_WRAPPER" "$SRV" >launcher-exec
    chmod +x launcher launcher-exec
    for sockets in "" --sockets; do
        for cmd in "$STDIOGATE_WRAPPER $SRV 192" ./launcher ./launcher-exec \
                   "$STDIOGATE_WRAPPER $STDIOGATE_WRAPPER $SRV 192"; do
            JUNK=("setups-junk 00000000")
            # shellcheck disable=SC2086
            STDIOGATE_DEBUG=2 gated $sockets --line "$INIT" -- $cmd
            assert_status 0
            assert_frames "$ANSWER"
            assert_junk_on_stderr
            [ "$(gates_opened)" -eq 1 ] || { echo "$cmd"; show_run; false; }
        done
    done
}

# --- musl

@test "musl COMMAND (dynamically linked), --gate-only: a warning, it runs without the library, unguarded (pipes, sockets)" {
    for sockets in "" --sockets; do
        STDIOGATE_AUTO_STRICT=0 gated $sockets --line "$INIT" -- "$MUSL" 128 show-env
        assert_status 0
        assert_stdout_has "$ANSWER" "setups-junk 00000000"
        assert_stderr_has "stdiogate: warning: $MUSL uses the loader /lib/ld-musl-"
        assert_stderr_has "which cannot load libstdiogate.so: it runs without the library"
        assert_stderr_has "env: LD_PRELOAD=<unset> STDIOGATE_WIRE=<unset>"
        assert_stderr_lacks "Error relocating"
    done
}

@test "musl program started by a diverted launcher (exec, fork+exec, #!, posix_spawnp), --gate-only: it starts, with the wire, without our LD_PRELOAD entry" {
    printf '#!%s 128\n' "$MUSL" >musl-script    # the kernel runs the musl program as interpreter
    chmod +x musl-script
    cc -shared -nostdlib -o other.so -x c /dev/null   # loadable by both loaders
    for sockets in "" --sockets; do
        for cmd in "sh -c 'exec $MUSL 128 show-env'" "sh -c '$MUSL 128 show-env; echo launcher-junk-after'" \
                   "bash -c '$MUSL 128 show-env'" "$BIN/tree_spawn plain $MUSL 128 show-env" \
                   "sh -c 'exec ./musl-script show-env'" "$BIN/tree_spawn plain ./musl-script show-env" \
                   "$BIN/tree_exec execve ./musl-script show-env"; do
            LD_PRELOAD=$PWD/other.so STDIOGATE_AUTO_STRICT=0 STDIOGATE_DEBUG=2 eval gated $sockets --line "\"\$INIT\"" -- "$cmd"
            assert_status 0
            assert_stdout_has "$ANSWER"
            assert_stderr_has "has a loader that cannot load libstdiogate.so: it runs without it, unguarded"
            assert_stderr_has "env: LD_PRELOAD=$PWD/other.so STDIOGATE_WIRE=<unset>"
            assert_stderr_lacks "Error relocating"
        done
    done
}

@test "musl program started by a diverted launcher, LD_PRELOAD holding only our entry: it starts with no LD_PRELOAD at all, as unwrapped (not an empty one)" {
    unset LD_PRELOAD
    # unwrapped: no LD_PRELOAD (the test can fail)
    ungated --line "$INIT" -- sh -c "exec $MUSL 128 show-env"
    assert_status 0
    assert_stderr_has "env: LD_PRELOAD=<unset> STDIOGATE_WIRE=<unset>"
    for cmd in "sh -c 'exec $MUSL 128 show-env'" "$BIN/tree_spawn plain $MUSL 128 show-env"; do
        STDIOGATE_AUTO_STRICT=0 STDIOGATE_DEBUG=2 eval gated --line "\"\$INIT\"" -- "$cmd"
        assert_status 0
        assert_stdout_has "$ANSWER"
        assert_stderr_has "has a loader that cannot load libstdiogate.so: it runs without it, unguarded"
        assert_stderr_has "env: LD_PRELOAD=<unset> STDIOGATE_WIRE=<unset>"
    done
}

@test "a glibc program exec'd by a diverted launcher still gets the library (the musl check does not misfire)" {
    STDIOGATE_DEBUG=2 gated --line "$INIT" -- sh -c "exec $SRV 128 show-env"
    assert_status 0
    assert_frames "$ANSWER"
    assert_stderr_has "env: LD_PRELOAD=$STDIOGATE_LIB STDIOGATE_WIRE=<unset>" "setups-junk 00000000"
    assert_stderr_lacks "cannot load libstdiogate.so"
}

@test "libstdiogate.so needs no glibc-only symbol that musl lacks (strerrorname_np)" {
    ! nm -D --undefined-only "$STDIOGATE_LIB" | grep -w strerrorname_np || false
}

# --- programs the library cannot enter

@test "file capabilities (setcap): strict mode by itself; with --gate-only a warning, as for setuid" {
    [ "$(id -u)" -eq 0 ] || skip "needs root to set file capabilities and to run as nobody"
    tree_in_tmp caps "$SRV"
    setcap cap_net_bind_service+ep "$dir/setups_srv"
    run --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups \
        env STDIOGATE_DEBUG=2 "$dir/stdiogate" "$dir/setups_srv" 0 </dev/null
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"$dir/setups_srv is a program with file capabilities: strict mode"* ]]
    run --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups \
        "$dir/stdiogate" --gate-only "$dir/setups_srv" 0 </dev/null
    rm -rf "$dir"
    [ "$status" -eq 0 ]
    [ "$stderr" = "stdiogate: warning: $dir/setups_srv has file capabilities, so the dynamic linker drops LD_PRELOAD: its stdout is not guarded" ]
}

# Issue 45: the same file run by root, whom file capabilities give nothing
# more (no secure execution: ld.so keeps LD_PRELOAD), both as COMMAND (the
# wrapper's inspector) and at exec (the library): the library enters it, no
# filter, no warning; run by nobody beside it (the test can fail).
# root_or_nobody FINDING WORDS: setups_srv in $dir (made FINDING) run by
# root and by nobody, as COMMAND and at exec; WORDS: what level 2 calls it
root_or_nobody() {
    local finding=$1 words=$2 who how
    for who in root nobody; do
        for how in command exec; do
            local cmd=("$dir/setups_srv" 0)
            [ "$how" = exec ] && cmd=(sh -c 'exec "$0" 0' "$dir/setups_srv")
            if [ "$who" = root ]; then
                run --separate-stderr env STDIOGATE_DEBUG=2 "$dir/stdiogate" "${cmd[@]}" </dev/null
            else
                run --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups \
                    env STDIOGATE_DEBUG=2 "$dir/stdiogate" "${cmd[@]}" </dev/null
            fi
            echo "$who/$how: $stderr"
            [ "$status" -eq 0 ]
            if [ "$who" = root ]; then
                [[ "$stderr" != *"$finding"* ]]
                [[ "$stderr" == *"diverting stdout to stderr"* ]]
                [[ "$stderr" != *"strict: filtering"* ]]
            else
                [[ "$stderr" == *"$dir/setups_srv is $words: "*"strict"* ]]
                [[ "$stderr" == *"strict: filtering"* ]]
            fi
        done
    done
}

@test "file capabilities run by root: no secure execution, so the library enters the program (COMMAND and at exec); by nobody: the filter" {
    [ "$(id -u)" -eq 0 ] || skip "needs root to set file capabilities and to run as nobody"
    tree_in_tmp caps "$SRV"
    setcap cap_net_bind_service+ep "$dir/setups_srv"
    root_or_nobody "file capabilities" "a program with file capabilities"
    rm -rf "$dir"
}

# The same for a setuid-root file: run by root (its owner: no secure
# execution) the library enters it, as COMMAND and at exec; by nobody the
# dynamic linker would drop LD_PRELOAD, so it runs under the filter.
@test "setuid-root program run by root: no secure execution, the library enters it (COMMAND and at exec); by nobody: the filter" {
    [ "$(id -u)" -eq 0 ] || skip "needs root to make a setuid-root file and to run as nobody"
    tree_in_tmp suid "$SRV"
    chmod u+s "$dir/setups_srv"
    root_or_nobody setuid "a setuid program"
    rm -rf "$dir"
}

@test "docker or podman as COMMAND: strict mode by itself (level 2 says so, level 1 nothing); --gate-only: unguarded, say so, recommend --strict" {
    mkdir bin
    cc -o bin/docker -x c - <<<'int main(void) { return 0; }'
    cp bin/docker bin/podman
    for cli in docker podman; do
        PATH="$PWD/bin:$PATH" run --separate-stderr "$STDIOGATE_WRAPPER" "$cli" run -i image </dev/null
        [ "$status" -eq 0 ]
        [ -z "$stderr" ]
        PATH="$PWD/bin:$PATH" run --separate-stderr "$STDIOGATE_WRAPPER" -v "$cli" run -i image </dev/null
        [ "$status" -eq 0 ]
        [[ "$stderr" == *"$PWD/bin/$cli is a container CLI (the server runs in a container): strict mode"* ]]
        [[ "$stderr" == *"strict: filtering"* ]]
        PATH="$PWD/bin:$PATH" run --separate-stderr "$STDIOGATE_WRAPPER" --gate-only "$cli" run -i image </dev/null
        [ "$status" -eq 0 ]
        [ "$stderr" = "stdiogate: warning: $PWD/bin/$cli is a container CLI: the server runs in a container, which the library does not enter, so its stdout is not guarded (use stdiogate --strict, or stdiogate inside the image)" ]
    done
}

@test "Bun program (.bun and .bun_builtins sections, as in bun build --compile executables): strict mode by itself; --gate-only: a warning that recommends --strict" {
    # (tests/fixtures/core_bun_fake.c: the sections, no output, exit 0)
    run --separate-stderr "$STDIOGATE_WRAPPER" -v "$BIN/core_bun_fake" none </dev/null
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"$BIN/core_bun_fake is a Bun program: strict mode"* ]]
    run --separate-stderr "$STDIOGATE_WRAPPER" --gate-only "$BIN/core_bun_fake" none </dev/null
    [ "$status" -eq 0 ]
    [ "$stderr" = "stdiogate: warning: $BIN/core_bun_fake is a Bun program (raw system calls), so its own stdout is not guarded (programs it starts are; use stdiogate --strict)" ]
}

@test "under --strict the step-aside warnings are left out: the filter guards such a program" {
    run --separate-stderr "$STDIOGATE_WRAPPER" --strict "$BIN/core_bun_fake" none </dev/null
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    # and one filter: the checker knows --strict put it there already
    run --separate-stderr env STDIOGATE_DEBUG=2 "$STDIOGATE_WRAPPER" --strict "$BIN/core_bun_fake" none </dev/null
    [ "$status" -eq 0 ]
    [ "$(grep -c 'strict: filtering' <<<"$stderr")" -eq 1 ] || { echo "$stderr"; false; }
    ! grep -q 'Bun program: strict mode' <<<"$stderr" || false
}

@test "stdiogate-check --inspect: statuses 0 (nothing), 1 (warn), 2 (drop the library), 125 (usage)" {
    run "$ROOT/stdiogate-check" --inspect "$SRV"
    [ "$status" -eq 0 ] && [ -z "$output" ]
    run "$ROOT/stdiogate-check" --inspect "$BIN/tree_server_static"
    [ "$status" -eq 1 ]
    run "$ROOT/stdiogate-check" --inspect "$MUSL"
    [ "$status" -eq 2 ]
    run "$ROOT/stdiogate-check"
    [ "$status" -eq 125 ]
}

# --- Perl and Ruby stdout buffers

# banner LANG SCRIPT NAME=VALUE PROBE WANT GATE_ONLY_WANT: LANG -e SCRIPT
# leaves a startup banner (LANG-banner-junk) in the interpreter's stdout
# buffer: on pipes and on sockets it reaches stderr, the answer the wire, by
# default (the guard takes it off when the buffer is written with the
# answer) and with the gate alone (stdout unbuffered: lib/interpreters.c);
# then with NAME=VALUE in the environment, PROBE (run before SCRIPT) writes
# WANT to stderr (GATE_ONLY_WANT with the gate alone): NAME is the caller's.
banner() {
    local lang=$1 script=$2 opt=$3 probe=$4 sockets guard
    for guard in 1 0; do
        local -x STDIOGATE_GUARD=$guard STDIOGATE_AUTO_STRICT=$guard
        for sockets in "" --sockets; do
            JUNK=("$lang-banner-junk")
            both $sockets --line "$INIT" -- "$lang" -e "$script"
            assert_status 0
            assert_frames "$ANSWER"
            assert_junk_on_stderr
        done
        (
            export "${opt%%=*}"="${opt#*=}"
            gated --line "$INIT" -- "$lang" -e "$probe$script"
            assert_frames "$ANSWER"
            assert_stderr_has "$([ "$guard" = 1 ] && echo "$5" || echo "$6")"
        )
    done
}

@test "Perl: a startup banner in PerlIO's buffer reaches stderr, not the wire (pipes, sockets; default, gate alone); PERL5OPT the caller's" {
    banner perl 'print "perl-banner-junk\n"; while (my $l = <STDIN>) { print qq({"jsonrpc":"2.0","id":0,"result":{"echo":"initialize"}}\n); STDOUT->flush(); }' \
        PERL5OPT=-w 'print STDERR "opt=$ENV{PERL5OPT} w=$^W autoflush=$|\n"; ' "opt=-w w=1 autoflush=0" "opt=-w w=1 autoflush=1"
}

@test "Ruby: a startup banner in Ruby's STDOUT buffer reaches stderr, not the wire (pipes, sockets; default, gate alone); RUBYOPT the caller's" {
    # (ENV asks getenv: the other interpreters' variables are the caller's too)
    unset PYTHONUNBUFFERED PERL5OPT
    banner ruby 'puts "ruby-banner-junk"; while STDIN.gets; puts %q({"jsonrpc":"2.0","id":0,"result":{"echo":"initialize"}}); STDOUT.flush; end' \
        RUBYOPT=-W0 'STDERR.puts "opt=#{ENV["RUBYOPT"]} verbose=#{$VERBOSE.inspect} sync=#{STDOUT.sync} py=#{ENV["PYTHONUNBUFFERED"].inspect} perl=#{ENV["PERL5OPT"].inspect}"; ' \
        "opt=-W0 verbose=nil sync=false py=nil perl=nil" "opt=-W0 verbose=nil sync=true py=nil perl=nil"
}
