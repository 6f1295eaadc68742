#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/debian_root.sh - sourced by tests/glibc_root.sh and pkg/release_root.sh:
# the one way a Debian root is made here.
#
#   debian_root NAME SUITE DIR PACKAGES
#     makes DIR/root with debootstrap (minbase, PACKAGES included) once and
#     keeps it: DIR/root/.complete marks a root that was made whole.  The
#     mirror is MIRROR, else the first non-security one in this machine's apt
#     sources.  NAME prefixes the messages.  Needs root; exits 1 on failure.

# The first non-security mirror of this machine's apt sources (one-line and
# deb822 formats).
mirror_of_apt() {
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
        sed -n 's/^URIs:[[:space:]]*//p; s/^deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]*\)\{0,1\}\([^[:space:]]*\).*/\2/p' |
        tr ' ' '\n' | grep -v -e security -e '^$' | head -n 1
}

debian_root() {
    _name=$1 _suite=$2 _dir=$3 _packages=$4
    [ -e "$_dir/root/.complete" ] && return 0
    command -v debootstrap >/dev/null ||
        apt-get install -y debootstrap || { apt-get update && apt-get install -y debootstrap; }
    _mirror=${MIRROR:-$(mirror_of_apt)}
    [ -n "$_mirror" ] || { echo "$_name: no apt mirror found; set MIRROR" >&2; exit 1; }
    mkdir -p "$_dir"
    rm -rf "$_dir/root.tmp"
    echo "$_name: debootstrap $_suite from $_mirror into $_dir/root (log: $_dir/debootstrap.log)" >&2
    if ! debootstrap --variant=minbase --include="$_packages" "$_suite" "$_dir/root.tmp" "$_mirror" \
            >"$_dir/debootstrap.log" 2>&1; then
        tail -n 5 "$_dir/debootstrap.log" >&2
        echo "$_name: debootstrap $_suite failed" >&2
        exit 1
    fi
    rm -rf "$_dir/root"
    mv "$_dir/root.tmp" "$_dir/root"
    touch "$_dir/root/.complete"
}
