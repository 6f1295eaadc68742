# SPDX-License-Identifier: MIT
# bench/bench.mk - `make bench`: cost of the library per process, per read,
# per message, throughput and time to first answer, side by side with the
# alternatives.  Included by the top Makefile.
#   make bench                 full run (~3-5 min on 2 cores), table on stdout
#   make bench BENCH_QUICK=1   smoke run (< 1 min), figures not meaningful
#   make bench BENCH_LIB=/abs/path.so   measure another library build
#   make bench BENCH_ALT_LIB=/abs/other.so  also measure a second build beside it (rows "alt")
#   make bench BENCH_CPU=none  do not pin timed runs to one CPU (default: the last CPU)
#   make bench-interpreters    only the interpreters' item (issue 43)
# The table also goes to bench/out/latest.md.

BENCH_BIN    := bench/bin
BENCH_PROGS  := $(patsubst bench/src/%.c,$(BENCH_BIN)/%,$(wildcard bench/src/*.c))
BENCH_CFLAGS ?= -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE
BENCH_LIB    ?= $(CURDIR)/$(LIB)
BENCH_PYTHON ?= python3
BENCH_CPU    ?= auto
BENCH_ALT_LIB ?=

# (the headers each includes: the Makefile's DEP_DIR)
$(BENCH_BIN)/%: bench/src/%.c | $(BENCH_BIN) $(DEP_DIR)
	$(CC) $(BENCH_CFLAGS) $(DEP_FLAGS) -o $@ $<

$(BENCH_BIN):
	mkdir -p $@

bench-bins: $(BENCH_PROGS)

# Build the library only when measuring the one in this tree.
bench: bench-bins $(if $(filter $(CURDIR)/$(LIB),$(BENCH_LIB)),$(LIB))
	BENCH_CPU=$(BENCH_CPU) BENCH_ALT_LIB=$(BENCH_ALT_LIB) $(BENCH_PYTHON) bench/run.py --lib '$(BENCH_LIB)' $(if $(filter 1,$(BENCH_QUICK)),--quick)
	$(MAKE) -s bench-start
	$(MAKE) -s bench-interpreters

# What the wrapper costs the interpreters a server runs, and Python and Node
# servers themselves (issue 43; bench/interpreters.py, bench/out/interpreters.md):
# the wrapper in this tree, against unwrapped.
bench-interpreters: all bench-bins
	BENCH_CPU=$(BENCH_CPU) $(BENCH_PYTHON) bench/interpreters.py $(if $(filter 1,$(BENCH_QUICK)),--quick)

# The wrapper's start cost against stdbuf's (bench/start.py; bench/out/start.md), and the
# npm package's launcher in front of it: the npm tarballs of make packages installed offline
# into bench/out/npm.
BENCH_NPM = bench/out/npm
bench-start: all packages bench-bins
	rm -rf $(BENCH_NPM)
	npm install -g --offline --prefix $(BENCH_NPM) --registry=http://127.0.0.1:9/ --no-audit \
		--no-fund $(PKG_OUT)/stdiogate-$(VERSION).tgz \
		$(PKG_OUT)/stdiogate-linux-$(call npm_cpu,$(HOST_MACHINE))-$(VERSION).tgz >/dev/null
	BENCH_CPU=$(BENCH_CPU) $(BENCH_PYTHON) bench/start.py $(if $(filter 1,$(BENCH_QUICK)),--quick) \
		--npm $(BENCH_NPM)/bin/stdiogate

bench-clean:
	rm -rf $(BENCH_BIN) bench/out

.PHONY: bench bench-bins bench-clean bench-start bench-interpreters

# Strict mode (stdiogate-filter): a separate item, bench/strict.py; report in
# bench/out/strict.md.  BENCH_QUICK=1 and BENCH_CPU as above.
bench-strict: bench-bins $(FILTER)
	BENCH_CPU=$(BENCH_CPU) $(BENCH_PYTHON) bench/strict.py $(if $(filter 1,$(BENCH_QUICK)),--quick)

.PHONY: bench-strict
