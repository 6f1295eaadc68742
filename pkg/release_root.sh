#!/bin/sh
# SPDX-License-Identifier: MIT
# pkg/release_root.sh - make packages from a release tarball in a Debian root
# made by debootstrap (make release: Debian 11, glibc 2.31, so that the wheels
# and npm packages run on glibc 2.31 and later, as a build from source does).
#
# usage: pkg/release_root.sh SUITE DIR TARBALL OUTDIR
#   SUITE    a Debian suite (bullseye)
#   DIR      where the root is kept (DIR/root, made once and reused)
#   TARBALL  the release tarball (make dist): unpacked in DIR/root/src
#   OUTDIR   where the wheels and npm tarballs are copied
# Environment: SOURCE_DATE_EPOCH and CFLAGS (-ffile-prefix-map for the
# directory in the root is added here), MIRROR (default: the first
# non-security one in this machine's apt sources).  Needs root.
# The root's compilers are its suite's: the same suite gives the same bytes.
set -eu

[ $# -eq 4 ] || { sed -n '2,/^set -eu/p' "$0" | sed '$d' >&2; exit 2; }
suite=$1 dir=$2 tarball=$3 out=$4
packages=make,gcc,libc6-dev,binutils,python3,gcc-aarch64-linux-gnu,libc6-dev-arm64-cross,binutils-aarch64-linux-gnu
dist=$(basename "$tarball" .tar.gz)

# shellcheck source=tests/debian_root.sh
. "$(cd "$(dirname "$0")/.." && pwd)/tests/debian_root.sh"
debian_root release_root.sh "$suite" "$dir" "$packages"

rm -rf "$dir/root/src"
mkdir -p "$dir/root/src" "$out"
tar -xzf "$tarball" -C "$dir/root/src"

# shellcheck disable=SC2016
unshare --mount --propagation private sh -c '
    root=$1 dist=$2
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    exec chroot "$root" /bin/sh -c "cd /src/$dist && ldd --version | head -n 1 >&2 &&
        make -s packages SOURCE_DATE_EPOCH=\"\$SOURCE_DATE_EPOCH\" \
            CFLAGS=\"\$CFLAGS -ffile-prefix-map=/src/$dist=.\""
' sh "$dir/root" "$dist"
cp "$dir/root/src/$dist/build/pkg/out/"* "$out/"
