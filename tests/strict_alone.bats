#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# `stdiogate --strict SERVER` must pass what the filter alone passes: the
# library, preloaded under --strict too, must not take a byte from it (an
# answer written in pieces used to lose its first piece to the library's
# diversion).  The strict edge and fault cases, run again with the filter
# alone (STRICT_VIA=filter, strict_helpers.bash), with the same expectations.

load helpers

alone() {
    run env STRICT_VIA=filter bats "$TESTS/$1"
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
