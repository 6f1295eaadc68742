# SPDX-License-Identifier: MIT
# Test fixtures: every tests/fixtures/NAME.c becomes tests/bin/NAME.
# NAME_static.c is linked statically (a program the preload cannot enter).
FIXTURE_SRC := $(wildcard tests/fixtures/*.c)
FIXTURES := $(patsubst tests/fixtures/%.c,tests/bin/%,$(FIXTURE_SRC))
FIXTURE_HDR := $(wildcard tests/fixtures/*.h)
FIXTURE_CFLAGS ?= -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE
# Sanitizer flags for the dynamically linked fixtures (tests/sanitize.mk).
FIXTURE_SAN ?=

fixtures: $(FIXTURES)

tests/bin/%_static: tests/fixtures/%_static.c $(FIXTURE_HDR) | tests/bin
	$(CC) $(FIXTURE_CFLAGS) -static -o $@ $< -lpthread

tests/bin/%: tests/fixtures/%.c $(FIXTURE_HDR) | tests/bin
	$(CC) $(FIXTURE_CFLAGS) $(FIXTURE_SAN) -o $@ $< -lpthread

tests/bin:
	mkdir -p $@

.PHONY: fixtures
