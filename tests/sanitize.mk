# SPDX-License-Identifier: MIT
# tests/sanitize.mk - the library under sanitizers and valgrind (issue 5).
#
# make check-sanitize   both of the below
# make check-ubsan      a copy of the tree in build/ubsan with the library, the
#                       dynamically linked C fixtures and the examples built
#                       with UBSan (any undefined behaviour aborts), running the
#                       test files whose servers are C programs
# make check-valgrind   memcheck on wrapped C servers (tests/lint/sanitize.bats)
#
# ASan is left to the fuzzer (protocol/fuzz.mk runs detect.h under ASan and UBSan):
# a preloaded library cannot bring the ASan runtime into programs that were not
# built with it, since that runtime must come first in the link order.

UBSAN_DIR   = build/ubsan
UBSAN_FLAGS = -fsanitize=undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
UBSAN_TESTS ?= core_junk core_read_paths core_framing core_descriptors core_diagnostics \
               tree_exec_spawn tree_children tree_eof fault_fds fault_concurrency
# Less the tests tagged every-offset (core_framing's sessions split at each
# byte of a message, a third of the run): what they add under UBSan is the
# detector fed in every piece, which protocol/fuzz.mk and protocol/stream.mk
# already run under UBSan and ASan; the library's side of a split read is in
# core_framing's other tests (a byte at a time, each read path).
UBSAN_FILTER ?= --filter-tags '!every-offset'

check-sanitize: check-ubsan check-valgrind

# The copy: what git has, or, outside a git checkout of its own (a release
# tarball, tests/mutate.sh's copy), the tree less what is built or fetched
# (the clean in the copy removes the programs built beside the sources).
UBSAN_EXCLUDES = --exclude=./.git --exclude=./build --exclude=./tests/node_modules --exclude=__pycache__
ubsan-tree:
	rm -rf $(UBSAN_DIR) && mkdir -p $(UBSAN_DIR)
	if [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(CURDIR)" ]; then \
		git ls-files -z -co --exclude-standard | tar --null -T - -c; \
	else tar $(UBSAN_EXCLUDES) -c .; fi | tar -x -C $(UBSAN_DIR)
	$(MAKE) -C $(UBSAN_DIR) -s clean

check-ubsan: | test-tools
	$(MAKE) -s ubsan-tree
	$(MAKE) -C $(UBSAN_DIR) -s CFLAGS='-O1 -g $(UBSAN_FLAGS)' FIXTURE_SAN='$(UBSAN_FLAGS)' \
		all fixtures examples
	cd $(UBSAN_DIR) && UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		bats $(UBSAN_FILTER) $(call test_files,$(UBSAN_TESTS))

check-valgrind: all fixtures | test-tools
	bats tests/lint/sanitize.bats

TEST_TOOLS += valgrind:valgrind

.PHONY: ubsan-tree check-sanitize check-ubsan check-valgrind
