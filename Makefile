# SPDX-License-Identifier: MIT
# stdiogate: keep a stdio server's startup chatter off its protocol stream.
# The version is the wrapper's `version=` line: the library's -vv banner and the
# man page take it from there.
VERSION := $(shell sed -n 's/^version=//p' stdiogate)
PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR  ?= $(PREFIX)/bin
LIBDIR  ?= $(PREFIX)/lib
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN     = -Wall -Wextra -Werror
LIB      = libstdiogate.so
# The library: shim.c (the constructor, the state, the gate) and one file per
# mechanism under lib/, which share lib/internal.h.  Its list of headers names
# the sources too, each as a target of its own (what -MP does for headers): a
# source file renamed or removed later, or a checkout from before the split,
# builds from the sources that are there.
LIB_SRC  = shim.c $(sort $(wildcard lib/*.c))
VERSION_DEF = -DSTDIOGATE_VERSION='"$(VERSION)"'
# -nostartfiles: nothing of crti/crtbeginS is used, and they cost every
# process a few symbol lookups at load (shim.c, __dso_handle).
LIB_FLAGS = -D_GNU_SOURCE -fPIC -shared -fvisibility=hidden -nostartfiles -Wl,-z,nodelete $(VERSION_DEF)
# The inspector the wrapper runs (and --check), installed beside the library;
# static, as it runs at every start: no dynamic loading to pay for, and the
# LD_PRELOAD of a wrapped launcher never loads the library into it.
CHECK    = stdiogate-check
CHECK_SRC = check/main.c check/wrapper.c check/program.c check/protocol.c check/session.c check/output.c \
	check/report.c check/json.c check/progress.c check/util.c common/inspect.c
FILTER   = stdiogate-filter
# The filter: the launcher (main), the relay it starts, the default mode's
# helper (the drain), and the junk path the last two share (filter/filter.h).
FILTER_SRC = filter/launcher.c filter/relay.c filter/drain.c filter/junk.c
# --check --config, --fix, --client: a Python script stdiogate-check execs.
DOCTOR   = doctor/stdiogate-doctor
# Static: the LD_PRELOAD the wrapper sets must not load the library into it.
FILTER_FLAGS = -D_GNU_SOURCE -static
EXAMPLES = examples/bin/noisy-server examples/bin/demo-client
# Which headers each C target includes: written by the compiler while it
# builds the target (-MMD -MP), under build/deps (gitignored), read back at
# the end of this file.  A target built once is rebuilt when a header it
# includes changes, and only then.  DEP_FLAGS for a target of one source
# file; one of several (the library, the checker) has its list written by a
# pass of its own (-MM: with -MMD the second file's list would overwrite the
# first's).
DEP_DIR   = build/deps
DEP_FILE  = $(DEP_DIR)/$(subst /,_,$@).d
DEP_FLAGS = -MMD -MP -MF $(DEP_FILE)

all: $(LIB) $(CHECK) $(FILTER)

# (stdiogate: the version comes from it)
$(LIB): $(LIB_SRC) stdiogate | $(DEP_DIR)
	$(CC) -D_GNU_SOURCE -MM -MP -MT $@ $(LIB_SRC) >$(DEP_FILE)
	printf '%s:\n' $(LIB_SRC) >>$(DEP_FILE)
	$(CC) $(CFLAGS) $(WARN) $(LIB_FLAGS) -o $@ $(LIB_SRC) -ldl

$(CHECK): $(CHECK_SRC) stdiogate | $(DEP_DIR)
	$(CC) -D_GNU_SOURCE -MM -MP -MT $@ $(CHECK_SRC) >$(DEP_FILE)
	$(CC) $(CFLAGS) $(WARN) -D_GNU_SOURCE -static $(VERSION_DEF) -o $@ $(CHECK_SRC)

$(FILTER): $(FILTER_SRC) | $(DEP_DIR)
	$(CC) -D_GNU_SOURCE -MM -MP -MT $@ $(FILTER_SRC) >$(DEP_FILE)
	printf '%s:\n' $(FILTER_SRC) >>$(DEP_FILE)
	$(CC) $(CFLAGS) $(WARN) $(FILTER_FLAGS) -o $@ $(FILTER_SRC) -pthread

$(DEP_DIR):
	mkdir -p $@

# The same programs built by clang, warnings as errors (the results are thrown away).
check-clang: $(LIB_SRC) lib/internal.h lib/iov.h protocol/detect.h common/env.h $(CHECK_SRC) check/check.h common/inspect.h common/stall.h common/helper.h common/quiet.h common/junk.h common/stderr.h $(FILTER_SRC) filter/filter.h
	@tests/need.sh check-clang clang:clang
	clang $(CFLAGS) $(WARN) $(LIB_FLAGS) -o clang-$(LIB) $(LIB_SRC) -ldl
	clang $(CFLAGS) $(WARN) -D_GNU_SOURCE -static $(VERSION_DEF) -o clang-$(CHECK) $(CHECK_SRC)
	clang $(CFLAGS) $(WARN) $(FILTER_FLAGS) -o clang-$(FILTER) $(FILTER_SRC) -pthread
	rm -f clang-$(LIB) clang-$(CHECK) clang-$(FILTER)

examples: $(EXAMPLES)

examples/bin/%: examples/%.c | examples/bin $(DEP_DIR)
	$(CC) $(CFLAGS) $(WARN) -D_GNU_SOURCE $(DEP_FLAGS) -o $@ $<

examples/bin:
	mkdir -p $@

# The two failures the README names first, each with the bundled noisy server
# as it is, then under stdiogate, driven by the scripted client, which shows
# what stdout and stderr carried: a banner glued to the first answer, then
# junk at startup and while serving.
demo: all examples
	@echo "A scripted client sends examples/noisy-server four messages; each line the server"
	@echo "wrote on stdout is marked ok (a JSON-RPC message) or BAD (anything else)."
	@echo
	@echo "1. A banner printed without its newline: the first answer follows it on one line."
	@examples/bin/demo-client examples/bin/noisy-server --glued || true
	@examples/bin/demo-client ./stdiogate examples/bin/noisy-server --glued
	@echo
	@echo "2. Three lines on stdout while it starts, and a log line while it serves."
	@examples/bin/demo-client examples/bin/noisy-server --serving || true
	@examples/bin/demo-client ./stdiogate examples/bin/noisy-server --serving

# LD_PRELOAD splits on spaces and colons, with no escaping: the library must
# live where the path has neither.  BINDIR and DESTDIR may have spaces (the
# wrapper is told where the library is); LIBDIR may hold only the characters
# below, or nothing is installed.
LIBDIR_SAFE = A-Za-z0-9/._+@%,=~-
RUNTIME = runtime/perl/Stdiogate/Unbuffered.pm runtime/ruby/stdiogate_unbuffered.rb

# Refused before anything is written (install-docs waits for it too).
install-check:
	@case '$(LIBDIR)' in *[!$(LIBDIR_SAFE)]*|'') \
		echo "make install: LIBDIR '$(LIBDIR)' has a space, a colon or another character that LD_PRELOAD or the wrapper cannot carry; nothing was installed." >&2; \
		echo "make install: give the library a directory without one, e.g. make install PREFIX='$(PREFIX)' LIBDIR=/opt/stdiogate-lib (the wrapper finds it there)." >&2; \
		exit 1 ;; esac

install: install-check all
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(LIBDIR)/stdiogate/runtime/perl/Stdiogate" \
		"$(DESTDIR)$(LIBDIR)/stdiogate/runtime/ruby"
	sed 's|^configured_libdir=.*|configured_libdir=$(LIBDIR)/stdiogate|' stdiogate \
		>"$(DESTDIR)$(BINDIR)/stdiogate.tmp"
	chmod 755 "$(DESTDIR)$(BINDIR)/stdiogate.tmp"
	mv -f "$(DESTDIR)$(BINDIR)/stdiogate.tmp" "$(DESTDIR)$(BINDIR)/stdiogate"
	install -m 644 $(LIB) "$(DESTDIR)$(LIBDIR)/stdiogate/$(LIB)"
	install -m 755 $(CHECK) "$(DESTDIR)$(LIBDIR)/stdiogate/$(CHECK)"
	install -m 755 $(FILTER) "$(DESTDIR)$(LIBDIR)/stdiogate/$(FILTER)"
	install -m 755 $(DOCTOR) "$(DESTDIR)$(LIBDIR)/stdiogate/stdiogate-doctor"
	for f in $(RUNTIME); do install -m 644 "$$f" "$(DESTDIR)$(LIBDIR)/stdiogate/$$f" || exit 1; done

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/stdiogate" "$(DESTDIR)$(LIBDIR)/stdiogate/$(LIB)" \
		"$(DESTDIR)$(LIBDIR)/stdiogate/$(CHECK)" "$(DESTDIR)$(LIBDIR)/stdiogate/$(FILTER)" \
		"$(DESTDIR)$(LIBDIR)/stdiogate/stdiogate-doctor"
	for f in $(RUNTIME); do rm -f "$(DESTDIR)$(LIBDIR)/stdiogate/$$f"; done
	for d in runtime/perl/Stdiogate runtime/perl runtime/ruby runtime ''; do \
		rmdir "$(DESTDIR)$(LIBDIR)/stdiogate/$$d" 2>/dev/null || true; done

# Tools the tests run, as COMMAND:DEBIAN-PACKAGE; the missing ones are installed
# with apt-get by tests/need.sh (as root; otherwise it names them and the
# command that installs them).  Fragments append theirs: TEST_TOOLS += node:nodejs
TEST_TOOLS = bats:bats shellcheck:shellcheck python3:python3 parallel:parallel \
	update-ca-certificates:ca-certificates

# TEST_JOBS=N runs N test files side by side (the tests of a file in order;
# bats does it through GNU parallel); `make check` runs CHECK_JOBS, one per CPU
# (at most 4).  `make test`, what CI runs, runs three at a time: on 2 cores,
# two at a time left the CPUs idle 38% of the run (tests that wait for a
# timeout, a linger, a slow reader), and took a fifth longer.  Three at a time
# is also a load the tests must hold under (the races that load showed in the
# tests themselves were fixed: four so far; `make test-loaded` adds more).
CPUS = $(shell n=$$(nproc 2>/dev/null || echo 1); [ "$$n" -gt 4 ] && n=4; echo $$n)
TEST_JOBS ?= 3
bats_jobs = $(if $(filter-out 0 1,$(1)),--jobs $(1) --no-parallelize-within-files)

test-tools:
	@tests/need.sh '$(or $(MAKECMDGOALS),test-tools)' $(TEST_TOOLS)

include tests/fixtures.mk
include packaging.mk
# Fragments add their own targets and append to TEST_DEPS.
TEST_DEPS = test-tools all fixtures examples
-include $(filter-out tests/fixtures.mk,$(wildcard tests/*.mk bench/*.mk protocol/*.mk pkg/*.mk))

# What each C target includes (see DEP_DIR above).
-include $(wildcard $(DEP_DIR)/*.d)
# A source that is gone, named by a list written before it went (make would
# stop there): check.c is check/*.c since #23; filter.c and inspect.c moved
# to filter/ and common/ in #46, and filter/filter.c became filter/*.c.
check.c filter.c inspect.c filter/filter.c:

# The test files, one folder a part (docs/TESTING.md, "Where the tests are"),
# but make deb's; test_files names some by file name (core_junk: its folder's).
TEST_FILES = $(filter-out tests/package/deb.bats,$(sort $(wildcard tests/*/*.bats)))
test_files = $(foreach t,$(1),$(or $(wildcard tests/*/$(t).bats),tests/$(t).bats))

test: $(TEST_DEPS)
	bats $(call bats_jobs,$(TEST_JOBS)) $(TEST_FILES)

clean:
	rm -rf $(LIB) clang-$(LIB) $(CHECK) clang-$(CHECK) $(FILTER) clang-$(FILTER) tests/bin examples/bin

.PHONY: all check-clang examples demo install-check install uninstall test-tools test clean
