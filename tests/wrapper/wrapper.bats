#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The wrapper script: options, exit statuses, messages, the environment it
# hands to COMMAND, the warnings for programs the preload cannot enter.
#
# Most tests run a copy of the wrapper beside a stand-in libstdiogate.so (an
# empty shared object), so that COMMAND's stdout is not diverted and `env`
# shows exactly what the wrapper exported.  Tests marked "real library" use
# ./stdiogate and the built libstdiogate.so.

bats_require_minimum_version 1.5.0

load ../stub_helpers

setup_file() {
    stub_tree
    cc -shared -fPIC -o "$STUB/other1.so" -x c /dev/null
    cc -shared -fPIC -o "$STUB/other2.so" -x c /dev/null
    printf 'int main(void) { return 7; }\n' >"$STUB/exit7.c"
    cc -o "$STUB/dynamic" "$STUB/exit7.c"
    cc -static -o "$STUB/static" "$STUB/exit7.c"
    # An ELF carrying the note a Go linker writes (.note.go.buildid: "Go", type 4).
    cat >"$STUB/go.c" <<'EOF'
__asm__(".section .note.go.buildid,\"a\",@note\n.p2align 2\n"
        ".long 4\n.long 8\n.long 4\n.asciz \"Go\"\n.byte 0\n.ascii \"buildid!\"\n.previous\n");
int main(void) { return 7; }
EOF
    cc -o "$STUB/gobuild" "$STUB/go.c"
}

setup() {
    cd "$BATS_TEST_TMPDIR"
}

# env_of NAME FILE: the value of NAME in an `env` listing, or "<unset>".
env_of() {
    local line
    line=$(grep -m1 "^$1=" "$2") || { echo "<unset>"; return 0; }
    echo "${line#*=}"
}

# --- exit statuses and messages

@test "no arguments: usage on stderr, nothing on stdout, status 125" {
    run --separate-stderr "$REPO/stdiogate" </dev/null
    [ "$status" -eq 125 ]
    [ -z "$output" ]
    [[ "$stderr" == *"no COMMAND given"* ]]
    [[ "$stderr" == *"Usage: stdiogate"* ]]
}

@test "only -- and options: status 125 with usage" {
    run --separate-stderr "$REPO/stdiogate" -v --discard --
    [ "$status" -eq 125 ]
    [ -z "$output" ]
    [[ "$stderr" == *"Usage: stdiogate"* ]]
}

@test "unknown option: status 125, one line naming it" {
    for option in -x --verbose -vx --discard=1; do
        run --separate-stderr "$REPO/stdiogate" "$option" true
        [ "$status" -eq 125 ]
        [ -z "$output" ]
        [ "$stderr" = "stdiogate: unknown option '$option' (try 'stdiogate --help')" ]
    done
}

@test "library missing: status 125, one line naming the library" {
    mkdir alone
    cp "$REPO/stdiogate" alone/
    run --separate-stderr alone/stdiogate true
    [ "$status" -eq 125 ]
    [ -z "$output" ]
    [ "${#stderr_lines[@]}" -eq 1 ]
    [[ "$stderr" == "stdiogate: cannot find libstdiogate.so"* ]]
}

@test "stdiogate-check missing beside the library: status 125, one line naming it" {
    mkdir nocheck
    cp "$STUB/stdiogate" "$STUB/libstdiogate.so" nocheck/
    run --separate-stderr nocheck/stdiogate true
    [ "$status" -eq 125 ]
    [ -z "$output" ]
    [ "$stderr" = "stdiogate: cannot run $PWD/nocheck/stdiogate-check" ]
}

@test "a checker whose answer does not run whole (no final line, no answer on the descriptor): status 125, COMMAND not run" {
    mkdir badcheck
    cp "$STUB/stdiogate" "$STUB/libstdiogate.so" badcheck/
    # it answers on neither path, then through $(...) without the last line
    printf '#!/bin/sh\ncase "$*" in *--answer*) exit 3 ;; esac\necho "export ANSWERED=half"\n' >badcheck/stdiogate-check
    chmod +x badcheck/stdiogate-check
    run --separate-stderr badcheck/stdiogate sh -c 'echo ran >&2'
    [ "$status" -eq 125 ]
    [ -z "$output" ]
    [ "$stderr" = "stdiogate: lost the answer of stdiogate-check, beside the library" ]
}

@test "library path with a space or a colon: status 125" {
    for dir in "with space" "with:colon"; do
        mkdir "$dir"
        cp "$STUB/stdiogate" "$STUB/stdiogate-check" "$STUB/libstdiogate.so" "$dir/"
        run --separate-stderr "$dir/stdiogate" true
        [ "$status" -eq 125 ]
        [ -z "$output" ]
        [[ "$stderr" == "stdiogate: library path contains a space or colon"*"$dir/libstdiogate.so" ]]
    done
}

@test "command not found: status 127" {
    run -127 --separate-stderr "$STUB/stdiogate" no-such-command-xyz
    [ "$status" -eq 127 ]
    [ -z "$output" ]
    [ "$stderr" = "stdiogate: no-such-command-xyz: command not found" ]
    run -127 --separate-stderr "$STUB/stdiogate" ./no/such/file
    [ "$status" -eq 127 ]
    [ "$stderr" = "stdiogate: ./no/such/file: command not found" ]
}

@test "command not executable or a directory: status 126" {
    printf 'echo hi\n' >script
    run --separate-stderr "$STUB/stdiogate" ./script
    [ "$status" -eq 126 ]
    [ -z "$output" ]
    [ "$stderr" = "stdiogate: ./script: permission denied (not executable)" ]
    run --separate-stderr "$STUB/stdiogate" "$BATS_TEST_TMPDIR"
    [ "$status" -eq 126 ]
    [ "$stderr" = "stdiogate: $BATS_TEST_TMPDIR: is a directory" ]
    mkdir bin
    cp script bin/tool
    PATH="$BATS_TEST_TMPDIR/bin:$PATH" run --separate-stderr "$STUB/stdiogate" tool
    [ "$status" -eq 126 ]
    [ "$stderr" = "stdiogate: tool: permission denied (not executable)" ]
}

@test "an empty COMMAND: 'empty command', status 127 (as stdbuf)" {
    run -127 --separate-stderr "$STUB/stdiogate" ""
    [ -z "$output" ]
    [ "$stderr" = "stdiogate: empty command" ]
    run -127 --separate-stderr "$STUB/stdiogate" -v -- "" arg
    [ "$stderr" = "stdiogate: empty command" ]
}

# A script saved with Windows line ends: its #! line ends in a carriage
# return, which the kernel takes as part of the interpreter's name ("/bin/sh\r"
# is not found). The message shows it (^M, as older shells did), with what
# to do, and never the raw byte (which returns a terminal's cursor).
@test "a #! script with Windows line ends (CRLF): the carriage return named, status 127 (as the shell); a #! line longer than the kernel reads: run as the shell runs it" {
    printf '#!/bin/sh\r\necho hi\r\n' >crlf
    chmod +x crlf
    run -127 sh -c ./crlf
    run -127 --separate-stderr "$STUB/stdiogate" ./crlf
    [ -z "$output" ]
    [ "$stderr" = "stdiogate: ./crlf: bad interpreter /bin/sh^M: not found (its #! line ends in a carriage return: the file has Windows line ends; convert them, e.g. sed -i 's/\r\$//' ./crlf)" ]
    # a #! line longer than the kernel reads (300 bytes: exec fails with
    # ENOEXEC): the shell runs the file itself, and so it runs wrapped
    printf '#!/%s/sh\necho ran >&2\n' "$(printf '%0300d' 0 | tr 0 a)" >long
    chmod +x long
    run --separate-stderr sh -c ./long
    [ "$status" -eq 0 ] && [ "$stderr" = ran ]
    run --separate-stderr "$STUB/stdiogate" ./long
    [ "$status" -eq 0 ] && [ -z "$output" ] && [ "$stderr" = ran ]
}

@test "a #! script whose interpreter is missing or not executable: named, status 127 or 126 (as the shell)" {
    printf '#!/usr/bin/nosuch-interpreter\necho hi\n' >x
    printf '#!%s/notexec -a\necho hi\n' "$BATS_TEST_TMPDIR" >y
    printf '#!/bin/sh\n' >notexec
    chmod +x x y
    run -127 --separate-stderr "$STUB/stdiogate" ./x
    [ -z "$output" ]
    [ "$stderr" = "stdiogate: ./x: bad interpreter /usr/bin/nosuch-interpreter: not found" ]
    run -126 --separate-stderr "$STUB/stdiogate" -v ./y
    [ "$stderr" = "stdiogate: ./y: bad interpreter $BATS_TEST_TMPDIR/notexec: not executable" ]
    # the shell's own statuses, for the record
    run -127 sh -c ./x
    run -126 sh -c ./y
    # a good interpreter is not in the way
    printf '#!/bin/sh\necho ran >&2\n' >z
    chmod +x z
    run --separate-stderr "$STUB/stdiogate" ./z
    [ "$status" -eq 0 ] && [ "$stderr" = ran ]
}

@test "PATH search skips a non-executable file, as execvp does" {
    mkdir a b
    printf '#!/bin/sh\necho a >&2\n' >a/tool
    printf '#!/bin/sh\necho b >&2\n' >b/tool
    chmod +x b/tool
    PATH="$BATS_TEST_TMPDIR/a:$BATS_TEST_TMPDIR/b:$PATH" run --separate-stderr "$STUB/stdiogate" tool
    [ "$status" -eq 0 ]
    [ "$stderr" = "b" ]
}

@test "--help and --version: stdout, status 0, nothing on stderr, even without the library" {
    mkdir alone
    cp "$REPO/stdiogate" alone/
    run --separate-stderr alone/stdiogate --help
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    [[ "${lines[0]}" == "Usage: stdiogate [-v]... [--discard] [--log FILE] [--protocol auto|jsonl|framed] [--strict | --gate-only] [--] COMMAND [ARG]..." ]]
    [[ "$output" == *"--discard"* ]]
    [[ "$output" == *"--check ..."* ]]
    run --separate-stderr alone/stdiogate --version
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    version=$(sed -n 's/^## \([0-9][^ ]*\) - .*/\1/p' "$REPO/CHANGELOG.md" | head -1)
    [ "$output" = "stdiogate $version" ]
    # -h and -V: the short forms, byte for byte the same
    alone/stdiogate --help >long.txt
    alone/stdiogate -h >short.txt
    cmp long.txt short.txt
    [ "$(alone/stdiogate -V 2>&1)" = "stdiogate $version" ]
    run --separate-stderr "$REPO/stdiogate" --check -h
    [ "$status" -eq 0 ] && [ -z "$stderr" ]
    [[ "${lines[0]}" == "Usage: stdiogate --check "* ]]
}

@test "--help names the doctor; its options work without --check too (stdiogate --config, --list, --client) (issue 44)" {
    run --separate-stderr "$REPO/stdiogate" --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"stdiogate --check --config"* ]]
    [[ "$output" == *"--list"* && "$output" == *"--fix"* && "$output" == *"--client NAME"* ]]
    mkdir home
    export HOME=$PWD/home XDG_CONFIG_HOME=$PWD/home/.config
    for opts in "--list" "--config --list" "--config --help" "--config=$PWD/none.json --list" \
                "--client codex -- srv"; do
        # shellcheck disable=SC2086  # the words of each case
        run --separate-stderr "$REPO/stdiogate" --check $opts
        want="$status|$output|$stderr"
        [ -n "$output$stderr" ]
        # shellcheck disable=SC2086
        run --separate-stderr "$REPO/stdiogate" $opts
        [ "$status|$output|$stderr" = "$want" ] || { echo "stdiogate $opts: [$status|$output|$stderr], with --check: [$want]"; false; }
        [[ "$stderr" != *"unknown option"* ]]
    done
}

@test "-- ends the options; options after COMMAND are COMMAND's" {
    run -127 --separate-stderr "$STUB/stdiogate" -- --help
    [ "$status" -eq 127 ]
    [ "$stderr" = "stdiogate: --help: command not found" ]
    run --separate-stderr "$STUB/stdiogate" sh -c 'echo "$@"' sh -v --discard --help
    [ "$status" -eq 0 ]
    [ "$output" = "-v --discard --help" ]
}

# --- the environment handed to COMMAND (stand-in library: nothing diverted)

@test "LD_PRELOAD: our absolute path first, existing entries kept" {
    unset LD_PRELOAD
    "$STUB/stdiogate" env >env.txt
    [ "$(env_of LD_PRELOAD env.txt)" = "$STUB/libstdiogate.so" ]
    LD_PRELOAD="$STUB/other1.so:$STUB/other2.so" "$STUB/stdiogate" env >env.txt
    [ "$(env_of LD_PRELOAD env.txt)" = "$STUB/libstdiogate.so $STUB/other1.so:$STUB/other2.so" ]
}

@test "LD_PRELOAD is absolute when the wrapper is called by a relative path or a symlink" {
    cd "$STUB"
    ./stdiogate env >"$BATS_TEST_TMPDIR/env.txt"
    [ "$(env_of LD_PRELOAD "$BATS_TEST_TMPDIR/env.txt")" = "$STUB/libstdiogate.so" ]
    ln -s "$STUB/stdiogate" "$BATS_TEST_TMPDIR/link"
    cd "$BATS_TEST_TMPDIR"
    ./link env >env.txt
    [ "$(env_of LD_PRELOAD env.txt)" = "$STUB/libstdiogate.so" ]
}

# An installed layout (PREFIX/bin/stdiogate; the library and the checker in
# PREFIX/lib/stdiogate/) reached through a bin directory that is itself a
# symlink (~/bin -> PREFIX/bin): the library is in ../lib/stdiogate of the
# real bin directory, not of the link's parent (nor of the real bin
# directory itself).
@test "LD_PRELOAD from a bin directory that is a symlink (~/bin -> PREFIX/bin): PREFIX/lib/stdiogate/libstdiogate.so" {
    mkdir -p prefix/bin prefix/lib/stdiogate home
    cp "$STUB/stdiogate" prefix/bin/
    cp "$STUB/libstdiogate.so" "$STUB/stdiogate-check" prefix/lib/stdiogate/
    ln -s "$PWD/prefix/bin" home/bin
    run --separate-stderr "$PWD/home/bin/stdiogate" env
    [ "$status" -eq 0 ] || { echo "status $status: $stderr"; false; }
    [ -z "$stderr" ]
    printf '%s\n' "$output" >env.txt
    [ "$(env_of LD_PRELOAD env.txt)" = "$(cd prefix && pwd -P)/lib/stdiogate/libstdiogate.so" ]
}

@test "PYTHONUNBUFFERED, PERL5OPT, RUBYOPT are the user's: unset, empty or set" {
    unset PYTHONUNBUFFERED PERL5OPT RUBYOPT
    "$STUB/stdiogate" env >env.txt
    [ "$(env_of PYTHONUNBUFFERED env.txt)" = "<unset>" ]
    [ "$(env_of PERL5OPT env.txt)" = "<unset>" ]
    [ "$(env_of RUBYOPT env.txt)" = "<unset>" ]
    PYTHONUNBUFFERED=0 PERL5OPT=-w RUBYOPT=-W0 "$STUB/stdiogate" env >env.txt
    [ "$(env_of PYTHONUNBUFFERED env.txt)" = 0 ]
    [ "$(env_of PERL5OPT env.txt)" = -w ]
    [ "$(env_of RUBYOPT env.txt)" = -W0 ]
    PYTHONUNBUFFERED= PERL5OPT= RUBYOPT= "$STUB/stdiogate" env >env.txt
    [ "$(grep -c '^PYTHONUNBUFFERED=$' env.txt)" = 1 ]
    [ "$(grep -c '^PERL5OPT=$' env.txt)" = 1 ]
    [ "$(grep -c '^RUBYOPT=$' env.txt)" = 1 ]
}

@test "STDIOGATE_WIRE is the identity of the wrapper's own stdout (file, pipe; the checker's answer on a descriptor or through \$(...))" {
    for how in "" taken; do
        # (",seen": the wrapper read COMMAND, an ELF program, and found no Bun)
        STDIOGATE_WIRE=1:1 $how "$STUB/stdiogate" env >env.txt
        [ "$(env_of STDIOGATE_WIRE env.txt)" = "$(stat -L -c %d:%i env.txt),seen" ]
        # Through a pipe: the marker names the pipe COMMAND writes to.
        $how "$STUB/stdiogate" sh -c 'echo "${STDIOGATE_WIRE%,seen}"; stat -L -c %d:%i /proc/$$/fd/1' | uniq >ids
        [ "$(wc -l <ids)" -eq 1 ]
        grep -qx '[0-9]*:[0-9]*' ids
    done
}

@test "stdout closed: no STDIOGATE_WIRE, an inherited one removed (the checker's answer on a descriptor or through \$(...))" {
    for how in "" taken; do
        STDIOGATE_WIRE=1:1 $how "$STUB/stdiogate" sh -c 'echo "wire=${STDIOGATE_WIRE-unset}" >&2' >&- 2>err
        [ "$(cat err)" = "wire=unset" ] || { echo "${how:-answer on a descriptor}:"; cat err; false; }
    done
}

@test "-v levels: STDIOGATE_DEBUG 2, 3, 4 (capped); a higher explicit value kept" {
    check() {  # check EXPECTED [VAR=VALUE] OPTIONS...
        expected=$1
        shift
        env "$@" true >/dev/null 2>&1  # the options must be valid
        env "$@" env >env.txt 2>/dev/null
        [ "$(env_of STDIOGATE_DEBUG env.txt)" = "$expected" ] ||
            { echo "$* gave $(env_of STDIOGATE_DEBUG env.txt), expected $expected"; return 1; }
    }
    unset STDIOGATE_DEBUG
    W="$STUB/stdiogate"
    check "<unset>" "$W"
    check 2 "$W" -v
    check 3 "$W" -vv
    check 3 "$W" -v -v
    check 4 "$W" -vvv
    check 4 "$W" -vv -vvv
    check 0 STDIOGATE_DEBUG=0 "$W"
    check 2 STDIOGATE_DEBUG=0 "$W" -v
    check 4 STDIOGATE_DEBUG=4 "$W" -v
    check 3 STDIOGATE_DEBUG=1 "$W" -vv
}

@test "-v levels 2 and up: the wrapper's own line goes to stderr, never stdout" {
    run --separate-stderr "$STUB/stdiogate" -vvv true
    [ "$status" -eq 0 ]
    [ -z "$output" ]
    [[ "$stderr" == "stdiogate["*"]: preloading $STUB/libstdiogate.so, running $(type -P true)"$'\n'"stdiogate["*"]: the wire is device:inode "*:* ]]
}

# (The logs named here can be opened: one that cannot is unset, with a
# warning, core_diagnostics.bats.)
@test "--log FILE and STDIOGATE_LOG=FILE: exported, absolute from the wrapper's directory (#25)" {
    local T=$BATS_TEST_TMPDIR
    mkdir -p "$T/run=1" "$T/rel"
    unset STDIOGATE_LOG
    "$STUB/stdiogate" env >env.txt
    [ "$(env_of STDIOGATE_LOG env.txt)" = "<unset>" ]
    "$STUB/stdiogate" --log server.log env >env.txt
    [ "$(env_of STDIOGATE_LOG env.txt)" = "$PWD/server.log" ]
    "$STUB/stdiogate" --log="$T/x.log" env >env.txt
    [ "$(env_of STDIOGATE_LOG env.txt)" = "$T/x.log" ]
    # a FILE with '=' in it: the value is all after the option's own '='
    "$STUB/stdiogate" --log="$T/run=1/x.log" env >env.txt
    [ "$(env_of STDIOGATE_LOG env.txt)" = "$T/run=1/x.log" ]
    STDIOGATE_LOG=rel/y.log "$STUB/stdiogate" env >env.txt
    [ "$(env_of STDIOGATE_LOG env.txt)" = "$PWD/rel/y.log" ]
    # the option wins over the variable
    STDIOGATE_LOG=$T/a "$STUB/stdiogate" --log "$T/b" env >env.txt
    [ "$(env_of STDIOGATE_LOG env.txt)" = "$T/b" ]
    run -125 --separate-stderr "$STUB/stdiogate" --log
    [ "$stderr" = "stdiogate: --log takes a FILE" ]
    [ -z "$output" ]
}

@test "--discard sets STDIOGATE_DISCARD=1" {
    unset STDIOGATE_DISCARD
    "$STUB/stdiogate" env >env.txt
    [ "$(env_of STDIOGATE_DISCARD env.txt)" = "<unset>" ]
    "$STUB/stdiogate" --discard env >env.txt
    [ "$(env_of STDIOGATE_DISCARD env.txt)" = 1 ]
}

@test "--protocol takes the protocols' names too: mcp is jsonl, lsp and dap are framed (as --check's) (issue 44)" {
    local row opt want
    for row in "--protocol mcp|jsonl" "--protocol=mcp|jsonl" "--protocol lsp|framed" "--protocol=dap|framed" \
               "--protocol auto|auto" "--protocol=jsonl|jsonl" "--protocol framed|framed"; do
        opt=${row%|*} want=${row#*|}
        # shellcheck disable=SC2086  # one or two words
        "$STUB/stdiogate" $opt env >env.txt
        [ "$(env_of STDIOGATE_PROTOCOL env.txt)" = "$want" ] || { echo "$opt: $(env_of STDIOGATE_PROTOCOL env.txt)"; false; }
    done
    run -125 --separate-stderr "$STUB/stdiogate" --protocol xml env
    [ "$stderr" = "stdiogate: --protocol takes auto, jsonl or framed, or the protocol: mcp, lsp or dap" ]
    [ -z "$output" ]
}

# --- programs the preload cannot enter

@test "statically linked COMMAND: a warning, and it runs anyway" {
    run --separate-stderr "$STUB/stdiogate" "$STUB/static"
    [ "$status" -eq 7 ]
    [ -z "$output" ]
    [ "$stderr" = "stdiogate: warning: $STUB/static is statically linked, so its own stdout is not guarded (programs it starts are; use stdiogate --strict)" ]
}

@test "dynamically linked COMMAND: no warning" {
    run --separate-stderr "$STUB/stdiogate" "$STUB/dynamic"
    [ "$status" -eq 7 ]
    [ -z "$stderr" ]
    run --separate-stderr "$STUB/stdiogate" sh -c true
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
}

@test "Go program (.note.go.buildid): a warning" {
    run --separate-stderr "$STUB/stdiogate" "$STUB/gobuild"
    [ "$status" -eq 7 ]
    [ "$stderr" = "stdiogate: warning: $STUB/gobuild is a Go program (raw system calls), so its own stdout is not guarded (programs it starts are; use stdiogate --strict)" ]
}

@test "program headers and notes past the first KiB the wrapper reads at once" {
    # poke FILE OFFSET BYTE...: write decimal BYTEs into FILE at OFFSET.
    poke() {
        local file=$1 offset=$2 b
        shift 2
        for b in "$@"; do
            printf "\\$(printf %o "$b")" | dd of="$file" bs=1 seek="$offset" conv=notrunc status=none
            offset=$((offset + 1))
        done
    }
    # elf FILE PHOFF NOTE_OFFSET: an ELF64 (little-endian) of 8 KiB with two program
    # headers at PHOFF, PT_INTERP and a PT_NOTE at NOTE_OFFSET holding "Go" type 4.
    elf() {
        head -c 8192 /dev/zero >"$1"
        poke "$1" 0 127 69 76 70 2 1 1
        poke "$1" 32 $(($2 % 256)) $(($2 / 256))  # e_phoff
        poke "$1" 54 56 0 2 0                     # e_phentsize, e_phnum
        poke "$1" "$2" 3                          # PT_INTERP
        poke "$1" $(($2 + 56)) 4                  # PT_NOTE
        poke "$1" $(($2 + 64)) $(($3 % 256)) $(($3 / 256))
        poke "$1" $(($2 + 88)) 20
        poke "$1" "$3" 3 0 0 0 4 0 0 0 4 0 0 0 71 111 0 0
    }
    elf far-headers 5000 6000
    elf far-note 64 3996  # where the Go linker puts it on amd64
    elf near 64 512
    cp far-headers far-static
    poke far-static 5000 1  # PT_LOAD instead of PT_INTERP
    # Not runnable: each is the #! interpreter of a script, which the shell
    # runs itself when exec fails with ENOEXEC.
    for f in far-headers far-note near far-static; do
        printf '#!%s\nexit 7\n' "$PWD/$f" >"run-$f"
        chmod +x "$f" "run-$f"
    done
    for f in far-headers far-note near; do
        run --separate-stderr "$STUB/stdiogate" "./run-$f"
        [ "$status" -eq 7 ]
        [ "$stderr" = "stdiogate: warning: ./run-$f runs $PWD/$f, which is a Go program (raw system calls), so its own stdout is not guarded (programs it starts are; use stdiogate --strict)" ]
    done
    run --separate-stderr "$STUB/stdiogate" ./run-far-static
    [ "$status" -eq 7 ]
    [ "$stderr" = "stdiogate: warning: ./run-far-static runs $PWD/far-static, which is statically linked, so its own stdout is not guarded (programs it starts are; use stdiogate --strict)" ]
}

@test "found through PATH, and through a #! interpreter, also #!/usr/bin/env NAME" {
    mkdir bin
    cp "$STUB/static" bin/static-tool
    printf '#!%s\n' "$STUB/static" >bin/script
    printf '#!/usr/bin/env static-tool\n' >bin/env-script
    printf '#!/usr/bin/env -S static-tool -x\n' >bin/env-s-script
    printf '#!/bin/sh\nexit 7\n' >bin/sh-script
    chmod +x bin/*
    export PATH="$BATS_TEST_TMPDIR/bin:$PATH"
    run --separate-stderr "$STUB/stdiogate" static-tool
    [ "$status" -eq 7 ]
    [ "$stderr" = "stdiogate: warning: $BATS_TEST_TMPDIR/bin/static-tool is statically linked, so its own stdout is not guarded (programs it starts are; use stdiogate --strict)" ]
    run --separate-stderr "$STUB/stdiogate" script
    [ "$status" -eq 7 ]
    [[ "$stderr" == "stdiogate: warning: $BATS_TEST_TMPDIR/bin/script runs $STUB/static, which is statically linked,"* ]]
    run --separate-stderr "$STUB/stdiogate" env-script
    [ "$status" -eq 7 ]
    [[ "$stderr" == *"bin/env-script runs $BATS_TEST_TMPDIR/bin/static-tool, which is statically linked,"* ]]
    run --separate-stderr "$STUB/stdiogate" env-s-script
    [ "$status" -eq 7 ]
    [[ "$stderr" == *"bin/env-s-script runs $BATS_TEST_TMPDIR/bin/static-tool, which is statically linked,"* ]]
    run --separate-stderr "$STUB/stdiogate" sh-script
    [ "$status" -eq 7 ]
    [ -z "$stderr" ]
}

@test "setuid COMMAND owned by another user: a warning" {
    [ "$(id -u)" -eq 0 ] || skip "needs root to give the file away"
    cp "$STUB/dynamic" suid
    chown nobody suid
    chmod 4755 suid
    run --separate-stderr "$STUB/stdiogate" ./suid
    [ "$status" -eq 7 ]
    [ "$stderr" = "stdiogate: warning: ./suid is setuid, so the dynamic linker drops LD_PRELOAD: its stdout is not guarded" ]
}

@test "the wrapper passes shellcheck as POSIX sh" {
    shellcheck -s sh "$REPO/stdiogate"
}

# --- with the real library

@test "real library: LD_PRELOAD composed, marker consumed, nothing on stdout" {
    unset PYTHONUNBUFFERED
    LD_PRELOAD="$STUB/other1.so" "$REPO/stdiogate" sh -c 'env >env.txt' >out </dev/null
    [ ! -s out ]
    [ "$(env_of LD_PRELOAD env.txt)" = "$REPO/libstdiogate.so $STUB/other1.so" ]
    [ "$(env_of PYTHONUNBUFFERED env.txt)" = "<unset>" ]
    [ "$(env_of STDIOGATE_WIRE env.txt)" = "<unset>" ]
}

@test "real library: exec keeps the pid" {
    W="$REPO/stdiogate" sh -c 'echo $$ >&2; exec "$W" sh -c "echo \$\$ >&2"' </dev/null >out 2>pids
    [ ! -s out ]
    [ "$(wc -l <pids)" -eq 2 ]
    [ "$(uniq pids | wc -l)" -eq 1 ]
}

@test "real library: COMMAND's exit status and death by signal come through" {
    run "$REPO/stdiogate" sh -c 'exit 42' </dev/null
    [ "$status" -eq 42 ]
    run "$REPO/stdiogate" sh -c 'kill -TERM $$' </dev/null
    [ "$status" -eq 143 ]
}

@test "real library: the example server's chatter goes to stderr, answers to stdout" {
    init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}'
    printf '%s\n' "$init" | "$REPO/stdiogate" "$REPO/examples/bin/noisy-server" >out 2>err
    [ "$(cat out)" = '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"noisy-server","version":"1.0"}}}' ]
    grep -q '^Starting noisy-server 1.0 in stdio mode' err
    grep -q '^Loaded 1 tool: echo' err
    grep -q '^helper: cache warmed up' err
}

@test "real library: make demo shows the README's first two failures, each fixed wrapped: a banner glued to the first answer (lost unwrapped), junk while serving (issue 44)" {
    run --separate-stderr timeout 120 make -s -C "$REPO" demo
    [ "$status" -eq 0 ] || { echo "$output"; echo "$stderr"; false; }
    # the four runs, in order: glued unwrapped, glued wrapped, serving unwrapped, serving wrapped
    awk '/^=== /{n++} {print > ("part" n ".txt")}' <<<"$output"
    [ -f part4.txt ] && [ ! -f part5.txt ]
    grep -q '^\$ examples/bin/noisy-server --glued$' part1.txt
    grep -q '^  stdout   BAD   Starting noisy-server 1.0 in stdio mode...{"jsonrpc":"2.0","id"' part1.txt
    grep -q '^  Result: the answer to request 1 came on the same line as the junk before it' part1.txt
    ! grep -q 'tools/list' part1.txt || false
    grep -q '^\$ ./stdiogate examples/bin/noisy-server --glued$' part2.txt
    grep -q '^  stderr         Starting noisy-server 1.0 in stdio mode...$' part2.txt
    grep -q '^  Result: all 3 lines on stdout are JSON-RPC; the startup output went to stderr\.$' part2.txt
    grep -q '^\$ examples/bin/noisy-server --serving$' part3.txt
    grep -q '^  stdout   BAD   log: handled tools/list (1 tool)$' part3.txt
    grep -q '^\$ ./stdiogate examples/bin/noisy-server --serving$' part4.txt
    grep -q '^  stderr         log: handled tools/list (1 tool)$' part4.txt
    ! grep -q 'BAD' part2.txt part4.txt || false
    grep -q '^  Result: all 3 lines on stdout are JSON-RPC; the startup output went to stderr, and so did the line written while serving\.$' part4.txt
}
