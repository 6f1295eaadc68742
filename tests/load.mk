# SPDX-License-Identifier: MIT
# tests/load.mk - `make test-loaded`: `make test` as the README gives it (three test files side
# by side), while stress-ng keeps LOAD_HOGS busy loops running beside it (default: one more than
# the CPUs, three on 2 cores). It shows that no test depends on the machine being quiet: a test
# that synchronises on a sleep or a short timeout fails here. Not part of `make test` (it takes
# a run's time and more); LOAD_RUNS=N for N runs in a row, LOAD_JOBS for another TEST_JOBS.
LOAD_RUNS ?= 1
LOAD_HOGS ?= $(shell echo $$(( $$(nproc) + 1 )))
LOAD_JOBS ?= $(TEST_JOBS)

test-loaded:
	@tests/need.sh test-loaded stress-ng:stress-ng
	@stress-ng --cpu $(LOAD_HOGS) --timeout 4h --quiet & load=$$!; \
	trap 'kill $$load 2>/dev/null' EXIT; \
	for run in $$(seq $(LOAD_RUNS)); do \
		echo "== test-loaded: run $$run of $(LOAD_RUNS), $(LOAD_HOGS) busy loops on $$(nproc) CPUs, TEST_JOBS=$(LOAD_JOBS)"; \
		start=$$(date +%s); \
		$(MAKE) test TEST_JOBS=$(LOAD_JOBS) || exit 1; \
		echo "== test-loaded: run $$run passed in $$(( $$(date +%s) - start )) s"; \
	done

.PHONY: test-loaded
