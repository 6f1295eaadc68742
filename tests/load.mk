# SPDX-License-Identifier: MIT
# tests/load.mk - `make test-loaded`: the whole suite, twice in a row, with
# TEST_JOBS=2 (two test files side by side), while stress-ng keeps every
# CPU busy.  It shows that no test depends on the machine being quiet: a
# test that synchronises on a sleep or a short timeout fails here.  Not part
# of `make test` (it takes two runs' time); LOAD_RUNS=N for N runs.
LOAD_RUNS ?= 2

test-loaded:
	@tests/need.sh test-loaded stress-ng:stress-ng
	@stress-ng --cpu $$(nproc) --timeout 4h --quiet & load=$$!; \
	trap 'kill $$load 2>/dev/null' EXIT; \
	for run in $$(seq $(LOAD_RUNS)); do \
		echo "== test-loaded: run $$run of $(LOAD_RUNS), $$(nproc) CPU hogs, TEST_JOBS=2"; \
		start=$$(date +%s); \
		$(MAKE) test TEST_JOBS=2 || exit 1; \
		echo "== test-loaded: run $$run passed in $$(( $$(date +%s) - start )) s"; \
	done

.PHONY: test-loaded
