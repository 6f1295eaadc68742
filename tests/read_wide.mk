# SPDX-License-Identifier: MIT
# tests/read_wide.mk - the C++ fixture of tests/gate/core_read_wide.bats (std::wcin).
CXX ?= g++
FIXTURE_CXXFLAGS ?= -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE
CXX_FIXTURES = tests/bin/core_wcin

fixtures: $(CXX_FIXTURES)

# (the headers: -MMD, tests/fixtures.mk)
tests/bin/core_wcin: tests/fixtures/core_wcin.cpp | tests/bin
	$(CXX) $(FIXTURE_CXXFLAGS) $(FIXTURE_SAN) $(FIXTURE_DEPS) -o $@ $<

TEST_TOOLS += g++:g++

# core_peek looks __isoc23_scanf up with dlsym: libdl before glibc 2.34.
tests/bin/core_peek: tests/fixtures/core_peek.c | tests/bin
	$(CC) $(FIXTURE_CFLAGS) $(FIXTURE_SAN) $(FIXTURE_DEPS) -o $@ $< -lpthread -ldl
