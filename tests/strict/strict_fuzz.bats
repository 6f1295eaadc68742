#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The strict-mode stream classifier (detect.h) under its differential test
# and libFuzzer (protocol/stream.mk): every byte gets the same verdict whole,
# byte by byte and in random pieces; never more than SG_HOLD_MAX bytes held;
# with jsonl, the wire against a whole-buffer reference parser.  Expected
# outcome: each program runs STREAM_SMOKE_SECONDS (default 5) and exits 0;
# on a finding the input is kept in the test's temporary directory.
# `make fuzz` and `make fuzz-diff` run the long passes.

setup_file() {
    ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
    export ROOT
    make -C "$ROOT" -s protocol/bin/stream_diff protocol/bin/fuzz_stream >&2
}

@test "stream classifier: seeds, then ${STREAM_SMOKE_SECONDS:-5} s of random server output, all splits agree" {
    cd "$BATS_TEST_TMPDIR"
    run "$ROOT/protocol/bin/stream_diff" "$ROOT"/tests/fuzz-corpus-stream/*
    echo "$output"
    [ "$status" -eq 0 ]
    run "$ROOT/protocol/bin/stream_diff" -v -s 1 -n 100000000 -t "${STREAM_SMOKE_SECONDS:-5}"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "stream classifier: ${STREAM_SMOKE_SECONDS:-5} s of libFuzzer finds nothing" {
    corpus="$BATS_TEST_TMPDIR/corpus"
    mkdir -p "$corpus"
    cp "$ROOT"/tests/fuzz-corpus-stream/* "$corpus/"
    run "$ROOT/protocol/bin/fuzz_stream" -max_total_time="${STREAM_SMOKE_SECONDS:-5}" -seed=1 \
        -max_len=8192 -timeout=10 -rss_limit_mb=2048 -dict="$ROOT/protocol/stream.dict" \
        -artifact_prefix="$BATS_TEST_TMPDIR/" "$corpus"
    echo "$output" | grep -E 'classifier:|^input|ERROR|Test unit written|Done' || true
    [ "$status" -eq 0 ]
}
