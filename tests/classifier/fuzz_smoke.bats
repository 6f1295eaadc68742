#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# A short libFuzzer pass over the first-message detector (protocol/fuzz_detect.c:
# bounded state, same end offset whole / byte by byte / in random chunks, and
# the whole-buffer reference's offset), starting from tests/fuzz-corpus/.
# Expected outcome: the fuzzer runs FUZZ_SMOKE_SECONDS (default 5) and exits
# 0.  On a finding it prints "detect.h: <what>" and the input, and the input
# is kept in the test's temporary directory.  `make fuzz` runs the long pass.

setup_file() {
    ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
    export ROOT
    # Builds (and, if clang's libFuzzer is missing, installs it: protocol/fuzz.mk).
    make -C "$ROOT" -s protocol/bin/fuzz_detect >&2
}

@test "fuzz: seed corpus runs clean under ASan/UBSan" {
    run "$ROOT/protocol/bin/fuzz_detect" -runs=0 -artifact_prefix="$BATS_TEST_TMPDIR/" "$ROOT/tests/fuzz-corpus"
    echo "$output" | grep -E 'detect.h:|ERROR|input \(' || true
    [ "$status" -eq 0 ]
}

@test "fuzz: ${FUZZ_SMOKE_SECONDS:-5} s of libFuzzer finds nothing" {
    corpus="$BATS_TEST_TMPDIR/corpus"
    mkdir -p "$corpus"
    cp "$ROOT"/tests/fuzz-corpus/* "$corpus/"
    run "$ROOT/protocol/bin/fuzz_detect" -max_total_time="${FUZZ_SMOKE_SECONDS:-5}" -seed=1 \
        -max_len=4096 -timeout=10 -rss_limit_mb=2048 -dict="$ROOT/protocol/detect.dict" \
        -artifact_prefix="$BATS_TEST_TMPDIR/" "$corpus"
    echo "$output" | grep -E 'detect.h:|^input|ERROR|Test unit written|Done' || true
    [ "$status" -eq 0 ]
}
