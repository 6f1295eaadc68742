# SPDX-License-Identifier: MIT
# Test fixtures: every tests/fixtures/NAME.c becomes tests/bin/NAME.
# NAME_static.c is linked statically (a program the preload cannot enter).
FIXTURE_SRC := $(wildcard tests/fixtures/*.c)
FIXTURES := $(patsubst tests/fixtures/%.c,tests/bin/%,$(FIXTURE_SRC))
FIXTURE_CFLAGS ?= -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE
# Sanitizer flags for the dynamically linked fixtures (tests/sanitize.mk).
FIXTURE_SAN ?=

fixtures: $(FIXTURES)

# -MMD -MP: a fixture is rebuilt when a header it includes changes (its own,
# or a project header: protocol/detect.h), and only then.
FIXTURE_DEPS = -MMD -MP -MF tests/bin/.$(@F).d

tests/bin/%_static: tests/fixtures/%_static.c | tests/bin
	$(CC) $(FIXTURE_CFLAGS) $(FIXTURE_DEPS) -static -o $@ $< -lpthread

tests/bin/%: tests/fixtures/%.c | tests/bin
	$(CC) $(FIXTURE_CFLAGS) $(FIXTURE_SAN) $(FIXTURE_DEPS) -o $@ $< -lpthread

# say_race's poll() stands in for libc's in the libraries it loads: its
# dynamic symbol table must name it.
tests/bin/say_race: tests/fixtures/say_race.c | tests/bin
	$(CC) $(FIXTURE_CFLAGS) $(FIXTURE_SAN) $(FIXTURE_DEPS) -rdynamic -o $@ $< -lpthread

# strict_late is linked with a library of its own, built from the same file.
tests/bin/libstrict_late.so: tests/fixtures/strict_late.c | tests/bin
	$(CC) $(FIXTURE_CFLAGS) -fPIC -shared -DSTRICT_LATE_LIBRARY -o $@ $<

tests/bin/strict_late: tests/fixtures/strict_late.c tests/bin/libstrict_late.so | tests/bin
	$(CC) $(FIXTURE_CFLAGS) $(FIXTURE_SAN) $(FIXTURE_DEPS) -o $@ $< \
		-Ltests/bin -lstrict_late -Wl,-rpath,'$$ORIGIN'

-include $(wildcard tests/bin/.*.d)

tests/bin:
	mkdir -p $@

.PHONY: fixtures
