# SPDX-License-Identifier: MIT
# tests/setups.mk - what tests/setups/setups_*.bats need (issue 12): musl-gcc (a
# dynamically linked musl server), perl and ruby (their stdout buffers),
# setcap (file capabilities).
TEST_TOOLS += musl-gcc:musl-tools perl:perl ruby:ruby setcap:libcap2-bin

# The setups server linked against musl, dynamically (its loader is
# /lib/ld-musl-*.so.1, which cannot load a glibc-built preload).
tests/bin/setups_srv_musl: tests/fixtures/setups_srv.c | tests/bin test-tools
	musl-gcc -O2 -Wall -Wextra -Werror $(FIXTURE_DEPS) -o $@ $<

setups-fixtures: tests/bin/setups_srv_musl

TEST_DEPS += setups-fixtures

.PHONY: setups-fixtures
