# SPDX-License-Identifier: MIT
# tests/mutate.mk - `make mutate`: the mutation check (tests/mutate.sh) over
# every mutation of every C file and the wrapper, each mutant against the
# test files that exercise its file first, then the rest of the default set
# (the survivors run it all).  Fails below MUTATE_MIN percent killed (95).
# Hours on a 2-core machine: run one file's mutations with
# `make mutate MUTATE_ARGS='-f filter/relay.c'`, or tests/mutate.sh -t FILE.bats.
MUTATE_MIN  ?= 95
MUTATE_ARGS ?=

# What the test files in the default set need: TEST_DEPS without the SDK
# servers that only real_sdk.bats runs (not in the default set), but with
# the Go ones, which strict_auto.bats runs, the tokio writers and the Python
# venv with aiofiles and anyio, which guard_threads.bats runs (without them
# those tests fail on the unmutated copy: with -n, every mutant they meet
# would be "killed").
mutate: test-tools all fixtures examples npm-deps setups-fixtures strict-go sdk-go sdk-rust real-python fuzz-build fuzz-stream-build
	MUTATE_MIN=$(MUTATE_MIN) nice -n 10 tests/mutate.sh $(MUTATE_ARGS)

.PHONY: mutate
