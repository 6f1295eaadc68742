#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/glibc_root.sh - run the read-path tests on another glibc, in a Debian
# root made by debootstrap (make test-glibc-new, make test-glibc-old).
#
# usage: tests/glibc_root.sh SUITE DIR BATS-FILE...
#   SUITE      a Debian suite: trixie (glibc 2.41), bullseye (glibc 2.31)
#   DIR        where the root is kept (DIR/root, made once and reused)
#   BATS-FILE  test files, relative to the source tree
# The source tree (git ls-files) is copied to DIR/root/src; the library and
# fixtures are built there by the root's own compiler, and the test files run
# there, under chroot in a private mount namespace (/proc and /dev bound in).
# A fixture that does not build on that glibc is reported, and only the
# tests that use it fail.
# The mirror is the first non-security one in this machine's apt sources,
# unless MIRROR is set.  Needs root.  Exit status: that of bats (1 if the
# root cannot be made, 2 on usage errors).
set -eu

[ $# -ge 3 ] || { sed -n '2,/^set -eu/p' "$0" | sed '$d' >&2; exit 2; }
suite=$1 dir=$2
shift 2
src=$(cd "$(dirname "$0")/.." && pwd)
packages=gcc,g++,make,bats,python3,binutils,libc6-dev

mirror_of_apt() {
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
        sed -n 's/^URIs:[[:space:]]*//p; s/^deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]*\)\{0,1\}\([^[:space:]]*\).*/\2/p' |
        tr ' ' '\n' | grep -v -e security -e '^$' | head -n 1
}

if [ ! -e "$dir/root/.complete" ]; then
    command -v debootstrap >/dev/null ||
        apt-get install -y debootstrap || { apt-get update && apt-get install -y debootstrap; }
    mirror=${MIRROR:-$(mirror_of_apt)}
    [ -n "$mirror" ] || { echo "glibc_root.sh: no apt mirror found; set MIRROR" >&2; exit 1; }
    mkdir -p "$dir"
    rm -rf "$dir/root.tmp"
    echo "glibc_root.sh: debootstrap $suite from $mirror into $dir/root (log: $dir/debootstrap.log)" >&2
    if ! debootstrap --variant=minbase --include="$packages" "$suite" "$dir/root.tmp" "$mirror" \
            >"$dir/debootstrap.log" 2>&1; then
        tail -n 5 "$dir/debootstrap.log" >&2
        echo "glibc_root.sh: debootstrap $suite failed" >&2
        exit 1
    fi
    rm -rf "$dir/root"
    mv "$dir/root.tmp" "$dir/root"
    touch "$dir/root/.complete"
fi

rm -rf "$dir/root/src"
mkdir -p "$dir/root/src"
(cd "$src" && git ls-files -z -co --exclude-standard | grep -zv '^build/' | tar --null -T - -c) |
    tar -x -C "$dir/root/src"

# shellcheck disable=SC2016
exec unshare --mount --propagation private sh -c '
    root=$1; shift
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    exec chroot "$root" /bin/sh -c "
        cd /src && ldd --version | head -n 1 &&
        make -s all &&
        { make -s -k fixtures || echo \"glibc_root.sh: fixtures above do not build on this glibc\" >&2; } &&
        echo \"libstdiogate.so needs: \$(objdump -T libstdiogate.so | grep -o \"GLIBC_[0-9.]*\" | sort -uV | tail -n 1)\" &&
        bats \"\$@\"" sh "$@"
' sh "$dir/root" "$@"
