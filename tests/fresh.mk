# SPDX-License-Identifier: MIT
# tests/fresh.mk - make test-fresh: the README's commands (make demo, make
# test; tests/recipes.py checks that they are the README's) in a clean clone of
# HEAD on a fresh Debian 12 root that debootstrap makes once under build/fresh
# (only make, gcc and git in it; each run starts from a new copy).  Optional
# (long: make test and every install from the network); needs root.
# FRESH_COMMANDS: other commands to run there (FRESH_COMMANDS="'make check'").
FRESH_COMMANDS ?= 'make demo' 'make test'

test-fresh:
	tests/fresh_root.sh build/fresh $(FRESH_COMMANDS)

.PHONY: test-fresh
