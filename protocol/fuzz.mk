# SPDX-License-Identifier: MIT
# protocol/fuzz.mk - fuzzing and differential testing of the first-message detector.
#
#   make fuzz         libFuzzer over detect.h for FUZZ_SECONDS (default 60),
#                     starting from the seed corpus tests/fuzz-corpus/
#   make fuzz-diff    detector vs whole-buffer reference on random message
#                     streams split at random boundaries (DIFF_SECONDS, DIFF_SEED)
#   make fuzz-build   both programs (part of `make test`: tests/classifier/fault_detector.bats
#                     and tests/classifier/fuzz_smoke.bats run them)
#
# The fuzzer needs clang with libFuzzer (Debian: clang and libclang-rt-14-dev);
# fuzz-deps installs them with apt-get when they are missing.

CLANG        ?= clang
FUZZ_SECONDS ?= 60
FUZZ_MAX_LEN ?= 8192
DIFF_SECONDS ?= 60
DIFF_SEED    ?= 1
FUZZ_SAN      = -fsanitize=address,undefined -fno-sanitize-recover=all
# The headers each program includes come from the compiler (the Makefile's
# DEP_DIR): two sources each, so their lists are written by an -MM pass.
FUZZ_DEPS     = $(CC) -MM -MP -MT $@ $(filter %.c,$^) >$(DEP_FILE)

TEST_DEPS += fuzz-build

fuzz-build: protocol/bin/diff protocol/bin/endof protocol/bin/fuzz_detect

# Install clang and its libFuzzer runtime if a trivial fuzz target does not link.
fuzz-deps:
	@mkdir -p protocol/bin
	@printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
		> protocol/bin/probe.c
	@if ! $(CLANG) -fsanitize=fuzzer -o protocol/bin/probe protocol/bin/probe.c 2>/dev/null; then \
		echo "fuzz: clang with libFuzzer missing; installing clang libclang-rt-14-dev"; \
		apt-get install -y clang libclang-rt-14-dev || \
		{ apt-get update && apt-get install -y clang libclang-rt-14-dev; }; \
	fi
	@rm -f protocol/bin/probe protocol/bin/probe.c

protocol/bin/diff: protocol/diff.c protocol/reference.c | $(DEP_DIR)
	@mkdir -p protocol/bin
	$(FUZZ_DEPS)
	$(CC) -O2 -g -Wall -Wextra -Werror $(FUZZ_SAN) -o $@ protocol/diff.c protocol/reference.c

protocol/bin/endof: protocol/endof.c protocol/reference.c | $(DEP_DIR)
	@mkdir -p protocol/bin
	$(FUZZ_DEPS)
	$(CC) -O2 -g -Wall -Wextra -Werror $(FUZZ_SAN) -o $@ protocol/endof.c protocol/reference.c

protocol/bin/fuzz_detect: protocol/fuzz_detect.c protocol/reference.c | fuzz-deps $(DEP_DIR)
	@mkdir -p protocol/bin
	$(FUZZ_DEPS)
	$(CLANG) -O1 -g -Wall -Wextra -Werror -fsanitize=fuzzer $(FUZZ_SAN) \
		-o $@ protocol/fuzz_detect.c protocol/reference.c

# The working corpus (protocol/corpus/) grows as the fuzzer finds new paths; the
# committed seeds stay as they are.  Crashes land in protocol/artifacts/.
fuzz: protocol/bin/fuzz_detect
	@mkdir -p protocol/corpus protocol/artifacts
	protocol/bin/fuzz_detect -max_total_time=$(FUZZ_SECONDS) -max_len=$(FUZZ_MAX_LEN) \
		-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-dict=protocol/detect.dict -artifact_prefix=protocol/artifacts/ protocol/corpus tests/fuzz-corpus

fuzz-diff: protocol/bin/diff
	protocol/bin/diff -v -s $(DIFF_SEED) -n 100000000 -t $(DIFF_SECONDS)
	protocol/bin/diff tests/fuzz-corpus/*

.PHONY: fuzz fuzz-build fuzz-deps fuzz-diff
