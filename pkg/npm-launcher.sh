#!/bin/sh
# SPDX-License-Identifier: MIT
# stdiogate's npm command: execs the stdiogate wrapper of the platform package
# (@stdiogate/linux-x64 or -arm64) that npm installed as an optional
# dependency of this one, nested under it (npm install -g) or beside it
# (npx, a project's node_modules).  It execs: nothing of it stays in front
# of the server.  It forks only to resolve npm's bin symlink and for uname.
case $0 in
    /*) self=$0 ;;
    *) self=$PWD/${0#./} ;;
esac
if [ -L "$self" ]; then
    self=$(readlink -f -- "$self") || exit 125
fi
package=${self%/bin/*}
case $(uname -m) in
    x86_64) cpu=x64 ;;
    aarch64|arm64) cpu=arm64 ;;
    *) echo "stdiogate: no npm package for this machine ($(uname -m)): build it from source" >&2
       exit 125 ;;
esac
for platform in "$package/node_modules/@stdiogate/linux-$cpu" "${package%/*}/@stdiogate/linux-$cpu"; do
    [ -x "$platform/bin/stdiogate" ] && exec "$platform/bin/stdiogate" "$@"
done
echo "stdiogate: the package @stdiogate/linux-$cpu is not installed beside $package" >&2
echo "stdiogate: (it is an optional dependency: was npm run with --omit=optional or --no-optional?)" >&2
exit 125
