#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pkg/pack.py - the Python wheel and the npm packages of what `make install` staged.

usage: pkg/pack.py wheel ROOT VERSION OUTDIR         stdiogate-VERSION-py3-none-TAG.whl
       pkg/pack.py npm-platform ROOT VERSION OUTDIR  stdiogate-linux-CPU-VERSION.tgz
       pkg/pack.py npm-main VERSION OUTDIR           stdiogate-VERSION.tgz

ROOT is a staged PREFIX (make install DESTDIR=... PREFIX=...).  The wheel puts ROOT/bin/ in
its scripts (pip and uv install them in the environment's bin/) and everything else in its
data (installed in the environment's root), so the environment gets bin/stdiogate and
lib/stdiogate/ laid out as by `make install`, and the wrapper finds the library in
../lib/stdiogate as usual: the installed script is the sh wrapper itself, no Python runs.
The npm platform package (@stdiogate/linux-x64 or -arm64, no bin of its own) is ROOT as it is;
the main package `stdiogate` has pkg/npm-launcher.sh as its bin and the platform packages as
optional dependencies (npm installs the one whose os and cpu match), as esbuild does.

In both, the wrapper's configured_libdir is emptied: the staging PREFIX means nothing where
the package lands.  The machine comes from the binaries' ELF headers, and the wheel's
manylinux_X_Y tag from the newest GLIBC_X.Y symbol version any of them needs (readelf), 2.31
at least (the oldest glibc the project supports).
The same ROOT gives the same bytes: entries sorted, dated SOURCE_DATE_EPOCH (default
1980-01-01), modes 644 or 755, owner 0, gzip without name or time.  Prints the file made.
"""
import base64
import gzip
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import time
import zipfile

NAME = "stdiogate"
SUMMARY = "Keep a stdio MCP/LSP/DAP server's non-protocol output off its stdout"
KEYWORDS = ["mcp", "lsp", "dap", "stdio", "json-rpc", "ld_preload"]
MACHINES = {0x3E: "x86_64", 0xB7: "aarch64"}
NPM_CPU = {"x86_64": "x64", "aarch64": "arm64"}
SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def die(message):
    sys.exit("pack.py: " + message)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def epoch():
    return max(int(os.environ.get("SOURCE_DATE_EPOCH", "315532800")), 315532800)


def mode_of(path):
    return 0o755 if os.stat(path).st_mode & 0o111 else 0o644


def files_under(root):
    """Every file under root, as sorted paths relative to it (a symlink is refused)."""
    found = []
    for top, _, names in os.walk(root):
        for name in names:
            path = os.path.join(top, name)
            if os.path.islink(path) or not os.path.isfile(path):
                die("%s is not a regular file" % path)
            found.append(os.path.relpath(path, root))
    if "bin/stdiogate" not in found:
        die("no bin/stdiogate under %s" % root)
    return sorted(found)


def staged(root):
    """(name, mode, bytes) of each file under root; the wrapper's configured_libdir emptied."""
    entries = []
    for name in files_under(root):
        data = read(os.path.join(root, name))
        if name == "bin/stdiogate":
            data, n = re.subn(rb"(?m)^configured_libdir=.*$", b"configured_libdir=", data)
            if n != 1:
                die("bin/stdiogate has no configured_libdir= line")
        entries.append((name, mode_of(os.path.join(root, name)), data))
    return entries


def elf_machine(path):
    """The machine of ELF file path, None if it is no ELF file."""
    head = read(path)[:20]
    if head[:4] != b"\x7fELF":
        return None
    machine = int.from_bytes(head[18:20], "little" if head[5] == 1 else "big")
    if machine not in MACHINES:
        die("%s: ELF machine %#x is not one we package" % (path, machine))
    return MACHINES[machine]


def glibc_needed(path):
    """The newest GLIBC_X.Y path needs, as (X, Y); (0, 0) if none (a static binary)."""
    out = subprocess.run(["readelf", "--version-info", "-W", path], check=True,
                         capture_output=True, text=True, env=dict(os.environ, LC_ALL="C")).stdout
    return max(((int(a), int(b)) for a, b in re.findall(r"Name: GLIBC_(\d+)\.(\d+)", out)),
               default=(0, 0))


def machine_and_glibc(root):
    # Not older than the oldest glibc the library is built and tested on (README, Limits;
    # make test-glibc-old), whatever older symbol versions a build there asks for.
    machines, glibc = set(), (2, 31)
    for name in files_under(root):
        path = os.path.join(root, name)
        machine = elf_machine(path)
        if machine:
            machines.add(machine)
            glibc = max(glibc, glibc_needed(path))
    if len(machines) != 1:
        die("the binaries under %s are for %s, not for one machine" % (root, sorted(machines)))
    return machines.pop(), glibc


def write_atomically(path, data):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path + ".tmp", "wb") as f:
        f.write(data)
    os.replace(path + ".tmp", path)
    print(path)


# ---------------------------------------------------------------------- the wheel

def wheel_metadata(version):
    head = ["Metadata-Version: 2.1", "Name: " + NAME, "Version: " + version,
            "Summary: " + SUMMARY, "License: MIT", "Keywords: " + ",".join(KEYWORDS),
            "Classifier: License :: OSI Approved :: MIT License",
            "Classifier: Operating System :: POSIX :: Linux",
            "Classifier: Programming Language :: C",
            "Classifier: Environment :: Console",
            "Description-Content-Type: text/markdown"]
    return ("\n".join(head) + "\n\n").encode() + read(os.path.join(SRC, "README.md"))


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d\n" % (name, digest, len(data))


def wheel(root, version, outdir):
    machine, glibc = machine_and_glibc(root)
    tag = "py3-none-manylinux_%d_%d_%s" % (glibc[0], glibc[1], machine)
    data_dir, info = "%s-%s.data" % (NAME, version), "%s-%s.dist-info" % (NAME, version)
    entries = []
    for name, mode, data in staged(root):
        if name.startswith("bin/"):
            entries.append((data_dir + "/scripts/" + name[4:], mode, data))
        else:
            entries.append((data_dir + "/data/" + name, mode, data))
    entries.append((info + "/LICENSE", 0o644, read(os.path.join(SRC, "LICENSE"))))
    entries.append((info + "/METADATA", 0o644, wheel_metadata(version)))
    entries.append((info + "/WHEEL", 0o644, ("Wheel-Version: 1.0\nGenerator: stdiogate pkg/pack.py\n"
                                             "Root-Is-Purelib: false\nTag: %s\n" % tag).encode()))
    record = "".join(record_line(n, d) for n, _, d in entries) + info + "/RECORD,,\n"
    entries.append((info + "/RECORD", 0o644, record.encode()))

    out = io.BytesIO()
    when = time.gmtime(epoch())[:6]
    with zipfile.ZipFile(out, "w") as z:
        for name, mode, data in entries:
            entry = zipfile.ZipInfo(name, date_time=when)
            entry.external_attr = (0o100000 | mode) << 16
            entry.create_system = 3
            entry.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(entry, data, compresslevel=9)
    write_atomically(os.path.join(outdir, "%s-%s-%s.whl" % (NAME, version, tag)), out.getvalue())


# ---------------------------------------------------------------------- npm

def package_json(fields):
    return (json.dumps(fields, indent=2) + "\n").encode()


def common_fields(name, version, description):
    return {"name": name, "version": version, "description": description,
            "license": "MIT", "keywords": KEYWORDS}


def tgz(path, entries):
    """A gzipped tar of entries under package/, as npm pack lays them out."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for name, mode, data in sorted(entries):
            member = tarfile.TarInfo("package/" + name)
            member.size, member.mode, member.mtime = len(data), mode, epoch()
            member.uid = member.gid = 0
            member.uname = member.gname = ""
            tar.addfile(member, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0, compresslevel=9) as z:
        z.write(raw.getvalue())
    write_atomically(path, out.getvalue())


def npm_platform(root, version, outdir):
    machine, _ = machine_and_glibc(root)
    cpu = NPM_CPU[machine]
    fields = common_fields("@stdiogate/linux-" + cpu, version,
                           "The linux-%s binaries of stdiogate (installed by the package stdiogate)" % cpu)
    fields.update({"os": ["linux"], "cpu": [cpu], "libc": ["glibc"], "preferUnplugged": True})
    readme = ("# @stdiogate/linux-%s\n\nThe Linux %s binaries of "
              "stdiogate: install the package `stdiogate`, "
              "which depends on this package.\n" % (cpu, machine)).encode()
    entries = staged(root) + [("package.json", 0o644, package_json(fields)),
                              ("README.md", 0o644, readme),
                              ("LICENSE", 0o644, read(os.path.join(SRC, "LICENSE")))]
    tgz(os.path.join(outdir, "stdiogate-linux-%s-%s.tgz" % (cpu, version)), entries)


def npm_main(version, outdir):
    fields = common_fields(NAME, version, SUMMARY)
    # "man": npm install -g links it where man finds it (PREFIX/share/man/man1)
    fields.update({"bin": {NAME: "bin/stdiogate"}, "man": ["./man/stdiogate.1"], "os": ["linux"],
                   "cpu": sorted(NPM_CPU.values()),
                   "optionalDependencies": {"@stdiogate/linux-" + cpu: version
                                            for cpu in sorted(NPM_CPU.values())}})
    entries = [("package.json", 0o644, package_json(fields)),
               ("bin/stdiogate", 0o755, read(os.path.join(SRC, "pkg", "npm-launcher.sh"))),
               ("man/stdiogate.1", 0o644, read(os.path.join(SRC, "stdiogate.1"))),
               ("README.md", 0o644, read(os.path.join(SRC, "README.md"))),
               ("LICENSE", 0o644, read(os.path.join(SRC, "LICENSE")))]
    tgz(os.path.join(outdir, "%s-%s.tgz" % (NAME, version)), entries)


def main(argv):
    commands = {"wheel": (wheel, 3), "npm-platform": (npm_platform, 3), "npm-main": (npm_main, 2)}
    if len(argv) < 2 or argv[1] not in commands or len(argv) - 2 != commands[argv[1]][1]:
        sys.exit(__doc__.split("\n\n")[1])
    commands[argv[1]][0](*argv[2:])


if __name__ == "__main__":
    main(sys.argv)
