# SPDX-License-Identifier: MIT
# pkg/pkg.mk - the Python wheels and the npm packages, for x86_64 and aarch64 (issue 26), and
# make release (included by the Makefile).
#
#   make packages   build/pkg/out/: a wheel per machine, the npm package stdiogate and its
#                   platform packages @stdiogate/linux-x64 and -arm64 (tests/package/packages.bats,
#                   tests/package/aarch64.bats install and run them)
#   make release    build/release/: the source tarball, the .deb, the wheels, the npm tarballs
#                   (built in a Debian 11 root: pkg/release_root.sh) and SHA256SUMS, from a
#                   clean tree, the same bytes every time (docs/RELEASING.md: how to publish)
#   make test-release  make release twice, into two directories, and compares the sums
#
# Each machine's files are what `make install DESTDIR=build/pkg/MACHINE/stage PREFIX=/usr`
# installs, stripped (as dh_strip does for the .deb): the host's from this tree as built, the
# other's from a copy of the tree built by Debian's cross compiler; pkg/pack.py packs them.
# The aarch64 binaries are run under qemu-user (tests/package/aarch64.bats); the cross compiler and
# qemu come from Debian's packages, installed by pkg-tools when missing.

PKG_DIR      = build/pkg
PKG_OUT      = $(PKG_DIR)/out
PKG_MACHINES = x86_64 aarch64
HOST_MACHINE := $(shell uname -m)
# The cross compiler's prefix for a machine that is not this one.
cross_prefix = $(if $(filter $(HOST_MACHINE),$(1)),,$(1)-linux-gnu-)
npm_cpu      = $(if $(filter x86_64,$(1)),x64,arm64)
# What a stage is made of, the host's binaries standing for their sources (which `all` follows).
PKG_INPUTS   = $(LIB) $(CHECK) $(FILTER) stdiogate.1 stdiogate completion/stdiogate $(RUNTIME) \
               Makefile packaging.mk pkg/pkg.mk
# COMMAND-or-FILE:DEBIAN-PACKAGE, installed when missing (qemu-user-static, which runs the
# aarch64 programs in the tests, is in TEST_TOOLS: tests/packages.mk).
PKG_TOOLS    = aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu \
               /usr/aarch64-linux-gnu/include/stdio.h:libc6-dev-arm64-cross readelf:binutils
# The entries' date: SOURCE_DATE_EPOCH, or the last commit's.
PKG_EPOCH   := $(or $(SOURCE_DATE_EPOCH),$(shell git log -1 --format=%ct 2>/dev/null),315532800)
PACK         = SOURCE_DATE_EPOCH=$(PKG_EPOCH) python3 pkg/pack.py
# That date as a prerequisite: the file is rewritten only when the date changes (a commit since,
# or another SOURCE_DATE_EPOCH), and every package is then made again, not only those whose other
# inputs changed: packages of one `make packages` bear one date.
PKG_DATED    = $(PKG_DIR)/epoch
# Where the tree's files are listed from: git, or (an unpacked release tarball) every file.
PKG_LIST     = if [ -e .git ]; then git ls-files -z -co --exclude-standard; \
               else find . -path ./build -prune -o -type f -print0; fi

packages: $(PKG_MACHINES:%=$(PKG_DIR)/%/wheel.stamp) $(PKG_MACHINES:%=$(PKG_DIR)/%/npm.stamp) \
          $(PKG_OUT)/stdiogate-$(VERSION).tgz

$(PKG_DATED): FORCE
	@mkdir -p $(@D) && [ "$$(cat $@ 2>/dev/null)" = "$(PKG_EPOCH)" ] || echo "$(PKG_EPOCH)" >$@
FORCE:

pkg-tools:
	@for tool in $(PKG_TOOLS); do \
		case $${tool%%:*} in \
			/*) [ -e "$${tool%%:*}" ] && continue ;; \
			*) command -v "$${tool%%:*}" >/dev/null && continue ;; \
		esac; \
		apt-get install -y "$${tool#*:}" || \
			{ apt-get update && apt-get install -y "$${tool#*:}"; } || exit 1; \
	done

# The host's stage: this tree's binaries, as `make install` installs them.
$(PKG_DIR)/$(HOST_MACHINE)/stage.stamp: $(PKG_INPUTS) | pkg-tools
	rm -rf $(@D)/stage && mkdir -p $(@D)
	$(MAKE) -s install DESTDIR=$(abspath $(@D)/stage) PREFIX=/usr
	$(call pkg_strip,$(@D)/stage,$(HOST_MACHINE))
	touch $@

# Another machine's stage: a copy of the tree, cleaned, built by the cross compiler with the
# same CFLAGS (its path mapped away: the same bytes from any directory).
$(PKG_DIR)/%/stage.stamp: $(PKG_INPUTS) | pkg-tools
	rm -rf $(@D)/src $(@D)/stage && mkdir -p $(@D)/src
	$(PKG_LIST) | tar --null -T - -c | tar -x -C $(@D)/src
	$(MAKE) -s -C $(@D)/src clean
	$(MAKE) -s -C $(@D)/src install DESTDIR=$(abspath $(@D)/stage) PREFIX=/usr \
		CC=$(call cross_prefix,$*)gcc CFLAGS='$(CFLAGS) -ffile-prefix-map=$(abspath $(@D)/src)=.'
	$(call pkg_strip,$(@D)/stage,$*)
	touch $@

# pkg_strip STAGE MACHINE: its ELF files without their symbol tables and debug sections.
pkg_strip = for f in $(1)/usr/lib/stdiogate/*; do \
		[ -f "$$f" ] && [ "$$(head -c 4 "$$f")" = "$$(printf '\177ELF')" ] || continue; \
		$(call cross_prefix,$(2))strip --strip-unneeded "$$f" || exit 1; done

$(PKG_DIR)/%/wheel.stamp: $(PKG_DIR)/%/stage.stamp pkg/pack.py README.md LICENSE $(PKG_DATED)
	rm -f $(PKG_OUT)/stdiogate-$(VERSION)-*_$*.whl
	$(PACK) wheel $(PKG_DIR)/$*/stage/usr $(VERSION) $(PKG_OUT) >/dev/null
	touch $@

$(PKG_DIR)/%/npm.stamp: $(PKG_DIR)/%/stage.stamp pkg/pack.py LICENSE $(PKG_DATED)
	$(PACK) npm-platform $(PKG_DIR)/$*/stage/usr $(VERSION) $(PKG_OUT) >/dev/null
	touch $@

$(PKG_OUT)/stdiogate-$(VERSION).tgz: pkg/pack.py pkg/npm-launcher.sh README.md LICENSE stdiogate stdiogate.1 \
                                        $(PKG_DATED)
	$(PACK) npm-main $(VERSION) $(PKG_OUT) >/dev/null

# The example server for tests/package/aarch64.bats, built by the cross compiler.
pkg-aarch64-server: $(PKG_DIR)/aarch64/noisy-server
$(PKG_DIR)/aarch64/noisy-server: examples/noisy-server.c | pkg-tools
	mkdir -p $(@D)
	aarch64-linux-gnu-gcc $(CFLAGS) $(WARN) -D_GNU_SOURCE -o $@ $<

# ------------------------------------------------------------------ make release
RELEASE_DIR    = build/release
RELEASE_SRC    = build/release-src
# Where the wheels and npm packages are built: in a Debian 11 root (glibc 2.31, the oldest a
# build from source supports: pkg/release_root.sh, the root made once under build/), or, with
# RELEASE_ROOT= (empty), on this machine (glibc 2.36: manylinux_2_34).
RELEASE_ROOT  ?= bullseye
# Debian's hardening flags (those the .deb is built with), no debug information (the build
# directory is mapped away where it is known).
RELEASE_CFLAGS = -O2 -fstack-protector-strong -fstack-clash-protection -D_FORTIFY_SOURCE=2 \
                 -Wl,-z,relro -Wl,-z,now
RELEASE_EPOCH  = $(shell git log -1 --format=%ct 2>/dev/null)

# The release's wheels and npm packages are then installed and run by tests/package/packages.bats and
# tests/package/aarch64.bats (the .deb by make deb's tests/package/deb.bats).
release: | test-tools examples pkg-aarch64-server sdk-python
	@[ -z "$$(git status --porcelain 2>&1)" ] || { git status --short >&2; \
		echo "make release: the tree has changes (above); commit or stash them: a release is built from a commit" >&2; exit 1; }
	rm -rf $(RELEASE_DIR) $(RELEASE_SRC) && mkdir -p $(RELEASE_DIR) $(RELEASE_SRC)
	SOURCE_DATE_EPOCH=$(RELEASE_EPOCH) $(MAKE) -s dist deb
	cp $(DIST).tar.gz $(DEB_DIR)/stdiogate_$(VERSION)_*.deb $(RELEASE_DIR)/
ifneq ($(RELEASE_ROOT),)
	SOURCE_DATE_EPOCH=$(RELEASE_EPOCH) CFLAGS='$(RELEASE_CFLAGS)' \
		pkg/release_root.sh $(RELEASE_ROOT) build/release-root $(DIST).tar.gz $(RELEASE_DIR)
else
	tar -xzf $(DIST).tar.gz -C $(RELEASE_SRC)
	SOURCE_DATE_EPOCH=$(RELEASE_EPOCH) $(MAKE) -s -C $(RELEASE_SRC)/$(DIST) packages \
		CFLAGS='$(RELEASE_CFLAGS) -ffile-prefix-map=$(abspath $(RELEASE_SRC))/$(DIST)=.'
	cp $(RELEASE_SRC)/$(DIST)/$(PKG_OUT)/* $(RELEASE_DIR)/
endif
	cd $(RELEASE_DIR) && sha256sum $$(ls | LC_ALL=C sort) >SHA256SUMS
	PKG_OUT_DIR=$(abspath $(RELEASE_DIR)) bats tests/package/packages.bats tests/package/aarch64.bats
	@cat $(RELEASE_DIR)/SHA256SUMS

test-release:
	$(MAKE) release RELEASE_DIR=build/release-1
	$(MAKE) release RELEASE_DIR=build/release-2
	cmp build/release-1/SHA256SUMS build/release-2/SHA256SUMS
	@echo "make test-release: two releases, the same bytes"


.PHONY: FORCE packages pkg-tools pkg-aarch64-server release test-release
