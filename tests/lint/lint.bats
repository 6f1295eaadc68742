#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Static analysis (tests/lint.mk): cppcheck and clang-tidy on the library
# (shim.c and lib/), the wrapper and the test helpers under shellcheck, gcc
# and clang builds at -Wall -Wextra -Werror.  Expected outcome: `make lint`
# exits 0.  Each target runs on its own so that a failure names the tool.

load ../lint_helpers

@test "lint: cppcheck on the library is clean" {
    lint lint-cppcheck
}

@test "lint: clang-tidy on the library is clean" {
    lint lint-tidy --brief
}

@test "lint: shellcheck on the wrapper and test helpers is clean" {
    lint lint-shell
}

@test "lint: no test negates an assertion with a bare ! (errexit ignores it)" {
    lint lint-bats
}

@test "lint: every mutation of tests/mutate.sh still applies to its file exactly once (-c)" {
    # an edit of the code can leave a mutation stale, and make mutate takes
    # hours: this says so at once
    run "$ROOT/tests/mutate.sh" -c
    [ "$status" -eq 0 ] || { echo "$output" >&2; false; }
    [[ "$output" == "all "*" mutations apply" ]] || { echo "$output" >&2; false; }
}

@test "lint: every source file is on the map (named in a table of docs/ARCHITECTURE.md)" {
    # the one map of the source: a file added without its row fails here
    cd "$ROOT"
    shopt -s nullglob
    local f missing= n=0
    for f in stdiogate doctor/stdiogate-doctor ./*.[ch] common/*.[ch] filter/*.[ch] lib/*.[ch] check/*.[ch] protocol/*.[ch] \
        examples/*.c bench/src/*.[ch] runtime/perl/Stdiogate/*.pm runtime/ruby/*.rb pkg/*.py pkg/*.sh; do
        f=${f#./} n=$((n + 1))
        # the first cell of a table row, where each file is named in backquotes
        awk -F'|' -v name="\`$f\`" '/^\|/ && index($2, name) { found = 1 } END { exit !found }' \
            docs/ARCHITECTURE.md || missing="$missing $f"
    done
    [ -z "$missing" ] || { echo "not named in docs/ARCHITECTURE.md's tables:$missing" >&2; false; }
    # (and the globs found the tree: 68 files when this was written)
    [ "$n" -ge 60 ] || { echo "only $n source files found" >&2; false; }
}

@test "lint: the environment's names are spelled in env.h alone, and the wrapper's list of them matches it" {
    cd "$ROOT"
    # every name, once: SG_ENV_... "NAME"
    awk '/^#define SG_ENV_/ && $3 ~ /^"[A-Z_]+"$/ && $2 != "SG_ENV_PREFIX" { gsub(/"/, "", $3); print $3 }' common/env.h |
        sort >"$BATS_TEST_TMPDIR/env.h"
    [ "$(wc -l <"$BATS_TEST_TMPDIR/env.h")" -ge 9 ]
    # no C file of the library, the filter or the checker spells one in a string of its own
    run grep -nE '"(STDIOGATE_[A-Z_]|LD_PRELOAD)' ./*.c filter/*.[ch] common/inspect.c lib/*.[ch] check/*.[ch] common/helper.h common/quiet.h common/stall.h common/junk.h common/inspect.h
    [ "$status" -eq 1 ] || { echo "spelled outside env.h (use its SG_ENV_ names):"; echo "$output"; false; } >&2
    # the wrapper names exactly env.h's variables
    { grep -oE 'STDIOGATE_[A-Z_]+' stdiogate; echo LD_PRELOAD; } | sort -u >"$BATS_TEST_TMPDIR/wrapper"
    diff -u "$BATS_TEST_TMPDIR/env.h" "$BATS_TEST_TMPDIR/wrapper" ||
        { echo "the wrapper's list (its comment, \"The environment\") and env.h differ" >&2; false; }
}

@test "lint: gcc and clang build the library, fuzz programs and fixtures at -Wall -Wextra -Werror" {
    lint lint-build
}
