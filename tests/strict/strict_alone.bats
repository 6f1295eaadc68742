#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# `stdiogate --strict SERVER` must pass what the filter alone passes: the
# library, preloaded under --strict too, must not take a byte from it (an
# answer written in pieces used to lose its first piece to the library's
# diversion).  The strict edge and fault cases, run again with the filter
# alone (STRICT_VIA=filter, strict_helpers.bash), with the same expectations.
#
# And the default mode's session guard (issue 34) must decide as the filter
# does: the strict edge cases and servers, run in the default mode
# (STRICT_VIA=guard: `stdiogate SERVER`, no filter process), with the same
# expectations.

load ../helpers

alone() {
    run env STRICT_VIA=${VIA:-filter} bats "$BATS_TEST_DIRNAME/$1"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" != *"not ok"* ]]
    [[ "$output" == *"ok 1 "* ]]
}

@test "strict alone: the edge cases, with stdiogate-filter -- SERVER" {
    alone strict_edges.bats
}

@test "strict alone: the fault cases, with stdiogate-filter -- SERVER" {
    alone strict_faults.bats
}

@test "guard: the strict edge cases, in the default mode (stdiogate SERVER: the library's guard)" {
    VIA=guard alone strict_edges.bats
}

@test "guard: the strict servers (8 MiB answers, LSP frames, JSON logs, children, sockets...), in the default mode" {
    VIA=guard alone strict_servers.bats
}

@test "guard: the strict fault cases, in the default mode (where the filter is the subject, its default-mode counterpart)" {
    VIA=guard alone strict_faults.bats
}
