#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/package/registry.py - a read-only npm registry on 127.0.0.1 for tests/package/packages.bats.

usage: registry.py TARBALL...

Serves each npm tarball's package as npm's registry would (a packument per name with one
version, the tarball with its integrity), so that `npm install -g stdiogate` and
`npx -y stdiogate` run offline exactly as they do from the real registry: npm chooses the
platform package by its os and cpu fields and lays the packages out itself.  Prints the port
on stdout, closes stdout, then serves until it is killed.  Anything else is a 404.
"""
import base64
import hashlib
import http.server
import json
import os
import sys
import tarfile
import urllib.parse


def package_of(path):
    with tarfile.open(path) as tar:
        return json.load(tar.extractfile("package/package.json"))


def main(paths):
    tarballs, packuments = {}, {}
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    base = "http://127.0.0.1:%d" % server.server_address[1]
    for path in paths:
        with open(path, "rb") as f:
            data = f.read()
        manifest = package_of(path)
        file = "/-/" + os.path.basename(path)
        tarballs[file] = data
        manifest["dist"] = {
            "tarball": base + file,
            "shasum": hashlib.sha1(data).hexdigest(),
            "integrity": "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode(),
        }
        packuments["/" + manifest["name"]] = json.dumps({
            "name": manifest["name"],
            "dist-tags": {"latest": manifest["version"]},
            "versions": {manifest["version"]: manifest},
        }).encode()
    server.files = {**tarballs, **packuments}
    print(server.server_address[1], flush=True)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    server.serve_forever()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = self.server.files.get(urllib.parse.unquote(self.path.split("?")[0]))
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json" if not self.path.endswith(".tgz")
                         else "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__.split("\n\n")[1])
    main(sys.argv[1:])
