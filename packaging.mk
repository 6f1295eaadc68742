# SPDX-License-Identifier: MIT
# packaging.mk - what a release ships beside the program, and the targets
# around it (included by the Makefile):
#
#   stdiogate.1     the man page, from stdiogate.1.in (version and date filled in)
#   install         also installs the man page and the bash completion
#   make dist       stdiogate-VERSION.tar.gz: the tracked files (git ls-files)
#   make deb        the Debian package (build/deb/), lintian, tests/package/deb.bats
#   make deb-build  the Debian package and lintian alone (DEB_DIR=...: elsewhere)
#   make check      a fast subset of the tests for the edit-build-test loop
#   make clean      also removes what the tests, fuzzing, benchmarks and packaging made

MANDIR      ?= $(PREFIX)/share/man/man1
datadir     ?= $(PREFIX)/share
BASHCOMPDIR ?= $(datadir)/bash-completion/completions
# The date of this version's entry in CHANGELOG.md ("## 0.1.0 - 2026-12-01").
RELEASE_DATE := $(shell sed -n 's/^## $(VERSION) - //p' CHANGELOG.md)
DIST        = stdiogate-$(VERSION)
DEB_DIR     = build/deb

all: stdiogate.1

stdiogate.1: stdiogate.1.in stdiogate CHANGELOG.md
	sed -e 's/@VERSION@/$(VERSION)/g' -e 's/@DATE@/$(RELEASE_DATE)/g' stdiogate.1.in >$@

install: install-docs
install-docs: install-check stdiogate.1
	install -d "$(DESTDIR)$(MANDIR)" "$(DESTDIR)$(BASHCOMPDIR)"
	install -m 644 stdiogate.1 "$(DESTDIR)$(MANDIR)/stdiogate.1"
	install -m 644 completion/stdiogate "$(DESTDIR)$(BASHCOMPDIR)/stdiogate"

uninstall: uninstall-docs
uninstall-docs:
	rm -f "$(DESTDIR)$(MANDIR)/stdiogate.1" "$(DESTDIR)$(BASHCOMPDIR)/stdiogate"

# The tracked files, owned by root, dated by the last commit, in name order,
# gzip storing no time: the same tree gives the same tarball.  Outside a git
# checkout of its own (an unpacked release), every file but what is fetched
# or built under build/, dated by SOURCE_DATE_EPOCH or the files' own dates.
DIST_FILES = if [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(CURDIR)" ]; then git ls-files -z; \
	else find . \( -path ./.git -o -path ./build -o -path ./tests/node_modules -o -name '$(DIST).tar.gz' \) \
		-prune -o -type f -print0 | LC_ALL=C sort -z; fi
DIST_DATE  = $(or $(SOURCE_DATE_EPOCH),$(shell git log -1 --format=%ct 2>/dev/null))
dist:
	$(DIST_FILES) | tar --null -T - --sort=name --owner=0 --group=0 --numeric-owner \
		$(if $(DIST_DATE),--mtime=@$(DIST_DATE)) --transform 's|^\(\./\)*|$(DIST)/|' -cf - | gzip -n -9 >$(DIST).tar.gz
	@echo "$(DIST).tar.gz"

# Built from the release tarball in build/deb, so that the source tree stays clean.
# make deb-build is the package and lintian's verdict on it, what make deb and make
# release build (tests/package/packages.bats runs it: a release that no longer builds fails
# make test); make deb then installs and runs it (tests/package/deb.bats).
DEB_TOOLS = dpkg-buildpackage:dpkg-dev dh:debhelper lintian:lintian
deb: deb-build examples | test-tools
	DEB_DIR=$(abspath $(DEB_DIR)) bats tests/package/deb.bats

deb-build: dist
	@tests/need.sh deb $(DEB_TOOLS)
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)
	tar -xzf $(DIST).tar.gz -C $(DEB_DIR)
	cd $(DEB_DIR)/$(DIST) && dpkg-buildpackage -us -uc -b
	lintian --fail-on error,warning --display-info $(DEB_DIR)/*.changes

# The wrapper, the gate's read paths and junk kinds, diagnostics, exec and spawn,
# end of input: 129 tests, no npm, no fuzzer; 19 s on 2 cores, one file per CPU
# (CHECK_JOBS=1: one by one).  It installs only what these files and the
# fixtures use (CHECK_TOOLS: shellcheck for wrapper.bats, node for one test of
# tree_eof.bats, g++ for the C++ fixture), not the whole of TEST_TOOLS.
CHECK_TESTS ?= wrapper core_junk core_read_paths core_diagnostics tree_exec_spawn tree_eof
CHECK_JOBS ?= $(CPUS)
CHECK_TOOLS = bats:bats python3:python3 parallel:parallel shellcheck:shellcheck node:nodejs g++:g++
check-tools:
	@tests/need.sh check $(CHECK_TOOLS)
check: check-tools all fixtures examples
	bats $(call bats_jobs,$(CHECK_JOBS)) $(call test_files,$(CHECK_TESTS))

clean: clean-more
clean-more:
	rm -rf build protocol/bin protocol/out protocol/corpus protocol/artifacts bench/bin bench/out \
		tests/node_modules stdiogate.1 stdiogate-*.tar.gz
	rm -rf debian/.debhelper debian/stdiogate debian/files debian/debhelper-build-stamp \
		debian/*.debhelper.log debian/*.substvars
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

.PHONY: install-docs uninstall-docs dist deb deb-build check-tools check clean-more
