# SPDX-License-Identifier: MIT
# fuzz/stream.mk - fuzzing and differential testing of the stream classifier
# (detect.h, strict mode).  Included by the top Makefile beside fuzz/fuzz.mk.
#
#   make fuzz            also runs fuzz_stream (libFuzzer, FUZZ_SECONDS) from
#                        the seeds in tests/fuzz-corpus-stream/
#   make fuzz-diff       also runs stream_diff: random server output, every
#                        protocol, whole vs byte by byte vs random pieces, and
#                        the jsonl wire against a whole-buffer reference parser
#   make fuzz-stream-build  both programs (part of `make test`:
#                        tests/strict_fuzz.bats runs them)

TEST_DEPS += fuzz-stream-build

fuzz-stream-build: fuzz/bin/stream_diff fuzz/bin/fuzz_stream

# (the headers they include: the Makefile's DEP_DIR)
fuzz/bin/stream_diff: fuzz/stream_diff.c | $(DEP_DIR)
	@mkdir -p fuzz/bin
	$(CC) -O2 -g -Wall -Wextra -Werror $(FUZZ_SAN) $(DEP_FLAGS) -o $@ fuzz/stream_diff.c

fuzz/bin/fuzz_stream: fuzz/fuzz_stream.c | fuzz-deps $(DEP_DIR)
	@mkdir -p fuzz/bin
	$(CLANG) -O1 -g -Wall -Wextra -Werror -fsanitize=fuzzer $(FUZZ_SAN) $(DEP_FLAGS) -o $@ fuzz/fuzz_stream.c

fuzz-stream: fuzz/bin/fuzz_stream
	@mkdir -p fuzz/corpus-stream fuzz/artifacts
	fuzz/bin/fuzz_stream -max_total_time=$(FUZZ_SECONDS) -max_len=$(FUZZ_MAX_LEN) \
		-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-dict=fuzz/stream.dict -artifact_prefix=fuzz/artifacts/ fuzz/corpus-stream tests/fuzz-corpus-stream

stream-diff: fuzz/bin/stream_diff
	fuzz/bin/stream_diff -v -s $(DIFF_SEED) -n 100000000 -t $(DIFF_SECONDS)
	fuzz/bin/stream_diff tests/fuzz-corpus-stream/*

fuzz: fuzz-stream
fuzz-diff: stream-diff

.PHONY: fuzz-stream fuzz-stream-build stream-diff
