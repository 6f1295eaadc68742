#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Static analysis (tests/lint.mk): cppcheck and clang-tidy on the library
# (shim.c and lib/), the wrapper and the test helpers under shellcheck, gcc
# and clang builds at -Wall -Wextra -Werror.  Expected outcome: `make lint`
# exits 0.  Each target runs on its own so that a failure names the tool.

load lint_helpers

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
    for f in stdiogate doctor/stdiogate-doctor ./*.[ch] lib/*.[ch] check/*.[ch] protocol/*.[ch] \
        examples/*.c bench/src/*.[ch] runtime/perl/Stdiogate/*.pm runtime/ruby/*.rb pkg/*.py pkg/*.sh; do
        f=${f#./} n=$((n + 1))
        # the first cell of a table row, where each file is named in backquotes
        awk -F'|' -v name="\`$f\`" '/^\|/ && index($2, name) { found = 1 } END { exit !found }' \
            docs/ARCHITECTURE.md || missing="$missing $f"
    done
    [ -z "$missing" ] || { echo "not named in docs/ARCHITECTURE.md's tables:$missing" >&2; false; }
    # (and the globs found the tree: 66 files when this was written)
    [ "$n" -ge 60 ] || { echo "only $n source files found" >&2; false; }
}

@test "lint: gcc and clang build the library, fuzz programs and fixtures at -Wall -Wextra -Werror" {
    lint lint-build
}
