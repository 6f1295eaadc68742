# SPDX-License-Identifier: MIT
# tests/glibc.mk - the read-path tests on a newer and an older glibc than the
# host's (optional; CI does not run them).  Each builds a Debian root with
# debootstrap once, under build/ (kept between runs), builds the library and
# fixtures inside it with its own compiler and runs GLIBC_TESTS there.
#
# make test-glibc-new   Debian 13 (trixie, glibc 2.41: the __isoc23_ names)
# make test-glibc-old   Debian 11 (bullseye, glibc 2.31)
GLIBC_TESTS ?= tests/gate/core_read_paths.bats tests/gate/core_read_wide.bats

test-glibc-new:
	tests/glibc_root.sh trixie build/glibc-new $(GLIBC_TESTS)

test-glibc-old:
	tests/glibc_root.sh bullseye build/glibc-old $(GLIBC_TESTS)

.PHONY: test-glibc-new test-glibc-old
