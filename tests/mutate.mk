# SPDX-License-Identifier: MIT
# tests/mutate.mk - `make mutate`: the mutation check (tests/mutate.sh) over
# every mutation of every C file and the wrapper, each mutant against the
# test files that exercise its file first, then the rest of the default set
# (the survivors run it all).  Fails below MUTATE_MIN percent killed (95).
# tests/mutate-kills.txt, the last full run's output, gives each mutant the
# test that killed it then, which runs first (mutate.sh -H): a run that kills
# as before takes a fraction of the hours a run without hints takes on 2
# cores.  One file's mutations: `make mutate MUTATE_ARGS='-f filter/relay.c'`.
MUTATE_MIN  ?= 95
MUTATE_ARGS ?= $(if $(wildcard tests/mutate-kills.txt),-H tests/mutate-kills.txt)

# What the test files in the default set need: TEST_DEPS without the SDK
# servers that only real_sdk.bats runs (not in the default set), but with
# the Go ones, which strict_auto.bats runs, the tokio writers and the Python
# venv with aiofiles and anyio, which guard_threads.bats runs (without them
# those tests fail on the unmutated copy: with -n, every mutant they meet
# would be "killed").
mutate: test-tools all fixtures examples npm-deps setups-fixtures strict-go sdk-go sdk-rust real-python fuzz-build fuzz-stream-build
	MUTATE_MIN=$(MUTATE_MIN) nice -n 10 tests/mutate.sh $(MUTATE_ARGS)

.PHONY: mutate
