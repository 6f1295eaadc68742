#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# What a release ships beside the program: the man page agrees with --help, one
# version everywhere, `make install` puts the man page and the bash completion
# in place, the completion completes, `make dist` builds and demos from its
# tarball alone, `make clean` leaves nothing behind.

bats_require_minimum_version 1.5.0

setup_file() {
    export REPO="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
    export VERSION="$(sed -n 's/^version=//p' "$REPO/stdiogate")"
    make -C "$REPO" -s stdiogate.1 >&2
}

setup() {
    cd "$BATS_TEST_TMPDIR"
}

# options: the option names of a listing on stdin, generically: each line that
# starts with blanks then "-", its leading "-a, --bee=ARG" part (forms of
# repeated -v such as -vv are spelled in prose, not listed).
options() {
    sed -n 's/^[[:space:]]\{1,\}\(-[^[:space:],]*\(, -[^[:space:],]*\)*\).*/\1/p' |
        tr ',' '\n' | sed 's/^ *//; s/[= ].*//' | grep -E '^--?[a-zA-Z]' | sort -u
}

@test "man page: renders with man -l, without warnings" {
    run --separate-stderr man --warnings -l "$REPO/stdiogate.1"
    [ "$status" -eq 0 ]
    [ -z "$stderr" ] || { echo "$stderr"; false; }
    for section in NAME SYNOPSIS DESCRIPTION OPTIONS ENVIRONMENT "EXIT STATUS" EXAMPLES LIMITS "SEE ALSO"; do
        grep -qx "$section" <<<"$output" || { echo "no section $section"; false; }
    done
}

@test "man page: its OPTIONS are exactly the options --help lists" {
    MANWIDTH=80 man -l "$REPO/stdiogate.1" | sed -n '/^OPTIONS$/,/^[A-Z]/p' |
        grep -E '^ {7}-' | options >man.txt
    "$REPO/stdiogate" --help | options >help.txt
    [ -s help.txt ] && grep -qx -- --help help.txt
    diff help.txt man.txt || { echo "(< only in --help, > only in the man page)"; false; }
    # The listing parser finds an option added on one side only (the test can fail).
    { cat help.txt; echo "  --extra    an option only --help lists"; } | options >more.txt
    ! diff -q more.txt man.txt >/dev/null || false
}

@test "version: --version, the library's -vv banner, the man page, CHANGELOG.md and debian/changelog agree" {
    [ -n "$VERSION" ]
    [ "$("$REPO/stdiogate" --version)" = "stdiogate $VERSION" ]
    STDIOGATE_DEBUG=3 "$REPO/stdiogate" true </dev/null 2>err
    grep -q "^stdiogate\[[0-9]*\]: libstdiogate.so version $VERSION\$" err || { cat err; false; }
    grep -q "^\.TH STDIOGATE 1 \"[0-9-]*\" \"stdiogate $VERSION\"" "$REPO/stdiogate.1"
    [ "$(grep -m1 '^## [0-9]' "$REPO/CHANGELOG.md")" = "## $VERSION - $(sed -n 's/^\.TH [^"]*"\([^"]*\)".*/\1/p' "$REPO/stdiogate.1")" ]
    [ "$(head -1 "$REPO/debian/changelog")" = "stdiogate ($VERSION) unstable; urgency=medium" ]
}

@test "license: MIT, and an SPDX line at the top of every tracked source file" {
    grep -q '^MIT License$' "$REPO/LICENSE"
    grep -q '^Copyright (c) [0-9]* The stdiogate authors$' "$REPO/LICENSE"
    [ -n "$(git -C "$REPO" ls-files)" ] || skip "not a git checkout"
    missing=()
    while IFS= read -r f; do
        case $f in examples/clients/*|tests/fuzz-corpus/*|*.json|*.md|debian/*) [ "$f" = debian/rules ] || continue ;; esac
        case $f in
            *.c|*.h|*.py|*.js|*.cjs|*.mjs|*.sh|*.bash|*.bats|*.mk|Makefile|stdiogate|completion/*|debian/rules) ;;
            *) head -c 2 "$REPO/$f" | grep -q '^#!' || continue ;;
        esac
        head -2 "$REPO/$f" | grep -q 'SPDX-License-Identifier: MIT' || missing+=("$f")
    done < <(git -C "$REPO" ls-files)
    [ "${#missing[@]}" -eq 0 ] || { echo "no SPDX line in the first two lines of: ${missing[*]}"; false; }
}

@test "install: the man page under MANDIR and the completion under BASHCOMPDIR; uninstall removes them" {
    make -C "$REPO" install PREFIX="$PWD/p" >make.log 2>&1 || { cat make.log; false; }
    cmp "$REPO/stdiogate.1" p/share/man/man1/stdiogate.1
    cmp "$REPO/completion/stdiogate" p/share/bash-completion/completions/stdiogate
    MANPATH="$PWD/p/share/man" man -w stdiogate | grep -qx "$PWD/p/share/man/man1/stdiogate.1"
    make -C "$REPO" install DESTDIR="$PWD/stage" PREFIX=/usr MANDIR=/usr/man/man1 datadir=/usr/data >make.log 2>&1
    [ -f stage/usr/man/man1/stdiogate.1 ]
    [ -f stage/usr/data/bash-completion/completions/stdiogate ]
    make -C "$REPO" uninstall PREFIX="$PWD/p" >make.log 2>&1
    [ ! -e p/share/man/man1/stdiogate.1 ]
    [ ! -e p/share/bash-completion/completions/stdiogate ]
    [ ! -e p/bin/stdiogate ]
}

# complete WORD...: the completions bash offers for the command line WORD...
# (the last word being completed), one a line, sorted.
complete_words() {
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
             _stdiogate; printf "%s\n" "${COMPREPLY[@]}" | sort -u' _ "$REPO/completion/stdiogate" "$@"
}

@test "bash completion: options from --help, commands, then files; registered for stdiogate" {
    bash -c 'source "$1"; complete -p stdiogate' _ "$REPO/completion/stdiogate" | grep -q -- '-F _stdiogate stdiogate$'
    "$REPO/stdiogate" --help | options >help.txt
    complete_words "$REPO/stdiogate" --  | grep -E '^--' >long.txt
    diff <(grep -E '^--' help.txt) long.txt
    [ "$(complete_words "$REPO/stdiogate" -v --disc)" = --discard ]
    complete_words "$REPO/stdiogate" -v | grep -qx -- -vv
    # A command, after the options, after "--" too.
    complete_words "$REPO/stdiogate" -v --discard ech | grep -qx echo
    complete_words "$REPO/stdiogate" -- ech | grep -qx echo
    # After COMMAND: its arguments (files here: bash-completion is not loaded).
    touch some-file
    [ "$(complete_words "$REPO/stdiogate" -v cat some-)" = some-file ]
    [ "$(complete_words "$REPO/stdiogate" cat --disc)" = "" ]
}

@test "bash completion: --protocol's values, and the check's options after --check (#25)" {
    [ "$(complete_words "$REPO/stdiogate" --protocol "" | tr '\n' ' ')" = "auto dap framed jsonl lsp mcp " ]
    [ "$(complete_words "$REPO/stdiogate" --strict --protocol j)" = jsonl ]
    [ "$(complete_words "$REPO/stdiogate" --check --protocol "" | tr '\n' ' ')" = "auto dap framed jsonl lsp mcp " ]
    [ "$(complete_words "$REPO/stdiogate" --protocol l)" = lsp ]
    # after --check: the check's options (from stdiogate --check --help), not the wrapper's
    "$REPO/stdiogate" --check --help | options >check-help.txt
    complete_words "$REPO/stdiogate" --check "" >offered.txt
    diff check-help.txt offered.txt
    [ "$(complete_words "$REPO/stdiogate" --check --ti)" = --timeout ]
    [ "$(complete_words "$REPO/stdiogate" --check --disc)" = "" ]
    # an option's value is not COMMAND; then a command; then its arguments
    complete_words "$REPO/stdiogate" --check --timeout 30 ech | grep -qx echo
    [ "$(complete_words "$REPO/stdiogate" --check --timeout "")" = "" ]
    # --log takes a file
    touch log-file
    [ "$(complete_words "$REPO/stdiogate" --log log-)" = log-file ]
    complete_words "$REPO/stdiogate" --log log-file ech | grep -qx echo
    # the short forms from "-h, --help"
    complete_words "$REPO/stdiogate" - | grep -qx -- -h
    complete_words "$REPO/stdiogate" - | grep -qx -- --help
    complete_words "$REPO/stdiogate" - | grep -qx -- -V
}

@test "bash completion: shellcheck-clean bash" {
    shellcheck -s bash "$REPO/completion/stdiogate"
}

@test "bash completion: an option whose --help line shows an argument takes the next word" {
    mkdir bin
    printf '#!/bin/sh\nprintf "  --protocol NAME  what\\n  --quiet  what\\n"\n' >bin/fake
    chmod +x bin/fake
    touch some-file
    # --protocol's argument is not COMMAND: the word after it completes as a command.
    complete_words "$PWD/bin/fake" --protocol mcp ech | grep -qx echo
    [ "$(complete_words "$PWD/bin/fake" --q)" = --quiet ]
    [ "$(complete_words "$PWD/bin/fake" --quiet cat some-)" = some-file ]
}

@test "make dist: the tarball holds the tracked files, and builds and runs make demo alone" {
    [ -n "$(git -C "$REPO" ls-files)" ] || skip "not a git checkout"
    make -C "$REPO" -s dist >dist.log 2>&1 || { cat dist.log; false; }
    tarball="$REPO/stdiogate-$VERSION.tar.gz"
    tar -tzf "$tarball" | grep -v '/$' | sed "s|^stdiogate-$VERSION/||" | sort >listed.txt
    git -C "$REPO" ls-files | sort >tracked.txt
    diff tracked.txt listed.txt
    tar -xzf "$tarball"
    cd "stdiogate-$VERSION"
    run timeout 300 make demo
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"Result: all 3 lines on stdout are JSON-RPC; the startup output went to stderr."* ]]
    [ -f libstdiogate.so ] && [ -f stdiogate.1 ]
}

@test "make clean: after a build, git status --ignored shows nothing generated" {
    [ -n "$(git -C "$REPO" ls-files)" ] || skip "not a git checkout"
    # The tree as it is now (tracked and new files), in a repository of its own.
    mkdir tree
    git -C "$REPO" ls-files -z -co --exclude-standard | (cd "$REPO" && tar --null -T - -c) | tar -x -C tree
    cd tree
    git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm tree
    # What the build, the tests, fuzzing, benchmarks and packaging leave.
    run make -s all fixtures examples fuzz-build bench-bins dist
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    cp -a "$REPO/tests/node_modules" tests/ 2>/dev/null || mkdir -p tests/node_modules/x
    mkdir -p build/ubsan && touch build/ubsan/x
    env -u PYTHONDONTWRITEBYTECODE python3 -c \
        'import sys; sys.path.insert(0, "tests/integration/fixtures"); import noisy_dep' >/dev/null
    for made in libstdiogate.so stdiogate.1 "stdiogate-$VERSION.tar.gz" tests/bin examples/bin \
            protocol/bin bench/bin tests/integration/fixtures/__pycache__; do
        [ -e "$made" ] || { echo "the build did not make $made"; false; }
    done
    make -s clean
    run git status --ignored --porcelain
    [ -z "$output" ] || { echo "left after make clean:"; echo "$output"; false; }
}
