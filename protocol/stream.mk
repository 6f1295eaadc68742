# SPDX-License-Identifier: MIT
# protocol/stream.mk - fuzzing and differential testing of the stream classifier
# (detect.h, strict mode).  Included by the top Makefile beside protocol/fuzz.mk.
#
#   make fuzz            also runs fuzz_stream (libFuzzer, FUZZ_SECONDS) from
#                        the seeds in tests/fuzz-corpus-stream/
#   make fuzz-diff       also runs stream_diff: random server output, every
#                        protocol, whole vs byte by byte vs random pieces, and
#                        the jsonl wire against a whole-buffer reference parser
#   make fuzz-stream-build  both programs (part of `make test`:
#                        tests/strict/strict_fuzz.bats runs them)

TEST_DEPS += fuzz-stream-build

fuzz-stream-build: protocol/bin/stream_diff protocol/bin/fuzz_stream

# (the headers they include: the Makefile's DEP_DIR)
protocol/bin/stream_diff: protocol/stream_diff.c | $(DEP_DIR)
	@mkdir -p protocol/bin
	$(CC) -O2 -g -Wall -Wextra -Werror $(FUZZ_SAN) $(DEP_FLAGS) -o $@ protocol/stream_diff.c

protocol/bin/fuzz_stream: protocol/fuzz_stream.c | fuzz-deps $(DEP_DIR)
	@mkdir -p protocol/bin
	$(CLANG) -O1 -g -Wall -Wextra -Werror -fsanitize=fuzzer $(FUZZ_SAN) $(DEP_FLAGS) -o $@ protocol/fuzz_stream.c

fuzz-stream: protocol/bin/fuzz_stream
	@mkdir -p protocol/corpus-stream protocol/artifacts
	protocol/bin/fuzz_stream -max_total_time=$(FUZZ_SECONDS) -max_len=$(FUZZ_MAX_LEN) \
		-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-dict=protocol/stream.dict -artifact_prefix=protocol/artifacts/ protocol/corpus-stream tests/fuzz-corpus-stream

stream-diff: protocol/bin/stream_diff
	protocol/bin/stream_diff -v -s $(DIFF_SEED) -n 100000000 -t $(DIFF_SECONDS)
	protocol/bin/stream_diff tests/fuzz-corpus-stream/*

fuzz: fuzz-stream
fuzz-diff: stream-diff

.PHONY: fuzz-stream fuzz-stream-build stream-diff
