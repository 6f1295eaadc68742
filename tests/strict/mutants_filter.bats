#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# stdiogate-filter (filter/) at the edges that the mutation check
# (tests/mutate.sh) found unpinned: --protocol framed from the first byte,
# the descriptors a launcher hands it beyond 0, 1 and 2.  Each test runs
# the filter directly (stdiogate-filter -- COMMAND) with a COMMAND that
# writes exact bytes, and checks stdout and stderr byte for byte.

bats_require_minimum_version 1.5.0

setup_file() {
    export REPO="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
}

setup() {
    cd "$BATS_TEST_TMPDIR"
}

ANSWER='{"jsonrpc":"2.0","id":1,"result":{}}'
# (a frame's body is a JSON-RPC message: in auto, until the framing is
# fixed, a frame passes only then)
FRAME='Content-Length: 36\r\n\r\n{"jsonrpc":"2.0","id":2,"result":{}}'

# filtered PROTOCOL FORMAT ARG...: the filter over printf FORMAT ARG...;
# stdout in "out", stderr in "err", each read through a pipe to its end of
# file (the filter, forked away, holds both until it exits)
filtered() {
    local protocol=$1
    shift
    ( "$REPO/stdiogate-filter" --protocol "$protocol" -- printf "$@" 2>&1 >&3 3>&- </dev/null |
        cat >err ) 3>&1 | cat >out
}

@test "filter: --protocol framed: a JSON-RPC line is junk even before any frame; auto passes it" {
    filtered framed "%s\n$FRAME" "$ANSWER"
    [ "$(cat out)" = "$(printf "$FRAME")" ]
    [ "$(cat err)" = "$ANSWER" ]
    filtered auto '%s\n' "$ANSWER"
    [ "$(cat out)" = "$ANSWER" ]
    [ ! -s err ]
}

@test "filter: --protocol jsonl: a frame is junk even before any JSON line; auto passes it" {
    filtered jsonl "$FRAME%s\n" "$ANSWER"
    [ "$(cat out)" = "$ANSWER" ]
    [ "$(cat err)" = "$(printf "$FRAME")" ]
    filtered auto "$FRAME"
    [ "$(cat out)" = "$(printf "$FRAME")" ]
    [ ! -s err ]
}

# COMMAND (sh report) waits for the filter's first line, then lists the
# filter's descriptors and says who started it (its parent, the marker)
fds_report() {
    cat >report <<'SH'
for _ in $(seq 2000); do grep -q "strict: filtering" err-log && break; sleep 0.01; done
pid=$(sed -n "s/^stdiogate\[\([0-9]*\)\]: strict: filtering.*/\1/p" err-log)
echo "filter fds $(ls /proc/$pid/fd | sort -n | tr "\n" " ")" >&2
echo "filter parent $(sed 's/.*) . \([0-9]*\) .*/\1/' /proc/$pid/stat) marker ${STDIOGATE_WIRE-unset}" >&2
SH
}

@test "filter: a descriptor 4 the launcher was given is not kept by the filter" {
    # stderr a regular file: the filter needs no handle of its own on it, so
    # it holds exactly the wire, stderr and the pipe (1, 2, 3)
    fds_report
    timeout 20 env STDIOGATE_DEBUG=2 "$REPO/stdiogate-filter" -- sh report 2>err-log </dev/null 4<report
    cat err-log >&2
    [ "$(sed -n 's/^filter fds //p' err-log)" = "1 2 3 " ]
    grep -q "^filter parent [0-9]* marker filter:" err-log
    if grep -q "^filter parent 1 " err-log; then false; fi
}

# Where a clone without exit signal is refused (qemu-user; here a seccomp
# filter), the launcher forks the filter twice instead: it then inherits
# everything the launcher had, and only its own close lets go of fd 4.
@test "filter: forked (the quiet start refused), it keeps no descriptor 4 either, and answers pass" {
    fds_report
    timeout 20 env STDIOGATE_DEBUG=2 "$REPO/tests/bin/strict_clone_refused" \
        "$REPO/stdiogate-filter" -- sh report 2>err-log </dev/null 4<report
    cat err-log >&2
    grep -q "^filter parent 1 marker unset" err-log
    [ "$(sed -n 's/^filter fds //p' err-log)" = "1 2 3 " ]
    srv='read x; echo junk1; echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"; printf junk2'
    ( "$REPO/tests/bin/strict_clone_refused" "$REPO/stdiogate-filter" -- sh -c "$srv" 2>&1 >&3 3>&- </dev/null |
        cat >err ) 3>&1 | cat >out
    [ "$(cat out)" = "$ANSWER" ]
    [ "$(cat err)" = "junk1"$'\n'"junk2" ]
}

# The exit line at level 2, read from a pipe to its end of file (the filter
# writes it after the server has exited: strict_wrapper.bats's "strict
# diagnostics" reads a file at once, and misses it now and then)
@test "filter: the level-2 exit line counts the junk bytes and lines (a last line without its newline too), or says /dev/null" {
    srv='read x; echo junk1; echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"; printf junk2'
    ( STDIOGATE_DEBUG=2 "$REPO/stdiogate-filter" -- sh -c "$srv" 2>&1 >&3 3>&- </dev/null | cat >err ) 3>&1 |
        cat >out
    cat err >&2
    [ "$(cat out)" = "$ANSWER" ]
    grep -q "strict: end of the server's output; 11 bytes of junk in 2 lines diverted to stderr, 0 of them dropped" err
    ( STDIOGATE_DEBUG=2 STDIOGATE_DISCARD=1 "$REPO/stdiogate-filter" -- sh -c 'read x; echo junk1' 2>&1 >&3 3>&- \
        </dev/null | cat >err ) 3>&1 | cat >out
    cat err >&2
    grep -q "6 bytes of junk in 1 line diverted to /dev/null" err
    if grep -q junk1 err out; then false; fi
}

# STDIOGATE_DISCARD means /dev/null only when it is set, not empty and not
# "0" (the library's reading, shim.c and lib/guard.c): =0 keeps stderr.
@test "filter: STDIOGATE_DISCARD=0 (or empty) is not --discard: the junk reaches stderr; =1 drops it" {
    srv='read x; echo junk1; echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"; printf junk2'
    for v in 0 ''; do
        ( STDIOGATE_DISCARD=$v "$REPO/stdiogate-filter" -- sh -c "$srv" 2>&1 >&3 3>&- </dev/null |
            cat >err ) 3>&1 | cat >out
        cat err >&2
        [ "$(cat out)" = "$ANSWER" ]
        [ "$(cat err)" = "junk1"$'\n'"junk2" ]
    done
    ( STDIOGATE_DISCARD=1 "$REPO/stdiogate-filter" -- sh -c "$srv" 2>&1 >&3 3>&- </dev/null |
        cat >err ) 3>&1 | cat >out
    [ "$(cat out)" = "$ANSWER" ]
    [ ! -s err ]
    # unfiltered, the same server puts both on stdout
    sh -c "$srv" </dev/null >out
    [ "$(cat out)" = "junk1"$'\n'"$ANSWER"$'\n'"junk2" ]
}

# client.py-like driver for the three tests below: the filter's stdout and
# stderr are what the test gives it (a socket the test closes, a socket
# nobody reads, a pipe the test stops reading); every wait is bounded (20 s)
# and fails with what it waited for.
drive() {
    "${PYTHON:-python3}" - "$@" <<'PY'
import os, re, select, socket, subprocess, sys, time
mode, filt = sys.argv[1], sys.argv[2]
ANSWER = b'{"jsonrpc":"2.0","id":1,"result":{}}\n'
deadline = time.monotonic() + 20
def left(what):
    t = deadline - time.monotonic()
    if t <= 0:
        sys.exit("timeout: " + what)
    return t
sys.path.insert(0, os.path.join(os.environ["REPO"], "tests", "fixtures"))
from strict_fault_client import is_gone
def gone(pid, what):
    while not is_gone(pid):
        if deadline - time.monotonic() <= 0:
            os.kill(pid, 9)     # a filter that would not end (it ignores SIGTERM)
        left(what)
        time.sleep(0.005)   # polling for an exit, not a timing guess
err = open("err", "w+b")
env = dict(os.environ, STDIOGATE_DEBUG="2")
if mode == "hangup":
    # stdout a socket; the client hangs up while the server is silent
    mine, theirs = socket.socketpair()
    srv = "import sys; sys.stdin.readline(); sys.stdout.write(%r); sys.stdout.flush(); sys.stdin.readline()" % ANSWER.decode()
    p = subprocess.Popen([filt, "--", sys.executable, "-c", srv], stdin=subprocess.PIPE, stdout=theirs, stderr=err, env=env)
    theirs.close()
    p.stdin.write(b"go\n"); p.stdin.flush()
    got = b""
    while not got.endswith(b"\n"):
        select.select([mine], [], [], left("the answer"))
        got += mine.recv(4096)
    assert got == ANSWER, got
    pid = int(re.search(rb"stdiogate\[(\d+)\]: strict: filtering", open("err", "rb").read()).group(1))
    mine.close()
    gone(pid, "the filter to see the client hang up")
    p.stdin.close()
    p.wait(left("the server"))
elif mode == "stderr-socket":
    # stderr a socket nobody reads, 4 MiB of junk: the answer still passes
    e_mine, e_theirs = socket.socketpair()
    srv = "import sys; sys.stdin.readline(); sys.stdout.write('junk ' * 200 + '\\n') or None\nfor _ in range(4000): sys.stdout.write('x' * 1023 + '\\n')\nsys.stdout.write(%r); sys.stdout.flush()" % ANSWER.decode()
    p = subprocess.Popen([filt, "--", sys.executable, "-c", srv], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=e_theirs, env=env)
    e_theirs.close()
    p.stdin.write(b"go\n"); p.stdin.close()
    got = b""
    while True:
        select.select([p.stdout], [], [], left("the answer past a stderr nobody reads"))
        b = os.read(p.stdout.fileno(), 65536)
        if not b:
            break
        got += b
    assert got == ANSWER, got
    p.wait(left("the server"))
elif mode == "closed-at-end":
    # the server writes more than the wire holds and exits; then the client
    # closes the wire without reading: the filter's write fails, it exits
    r, w = os.pipe()
    line = b'{"jsonrpc":"2.0","method":"n","params":"' + b"p" * 900 + b'"}\n'
    srv = "import os\nfor _ in range(100): os.write(1, %r)" % line
    p = subprocess.Popen([filt, "--", sys.executable, "-c", srv], stdin=subprocess.DEVNULL, stdout=w, stderr=err, env=env)
    os.close(w)
    p.wait(left("the server"))
    pid = int(re.search(rb"stdiogate\[(\d+)\]: strict: filtering", open("err", "rb").read()).group(1))
    os.close(r)
    gone(pid, "the filter to give up on a closed wire")
PY
}

@test "filter: a client that hangs up a socket is seen at once, while the server writes nothing" {
    drive hangup "$REPO/stdiogate-filter"
}

@test "filter: a stderr socket nobody reads does not hold up the protocol" {
    drive stderr-socket "$REPO/stdiogate-filter"
}

@test "filter: the client closes the wire after the server has exited: the filter's write fails and it exits" {
    drive closed-at-end "$REPO/stdiogate-filter"
}

# A wire that is non-blocking (the client's, or set by a Node launcher in
# front of stdiogate: O_NONBLOCK is on the open file, which the filter
# shares) and of one page (F_SETPIPE_SZ): the filter's writes come back
# short, and the rest must go from where the wire stopped
# (ind5-relay-wire-out-partial-repeats).  Twenty answers of 30 KB, each
# under the hold (decided whole, then written) and with bytes that differ
# all along: each arrives once, whole, in order.
@test "filter: a non-blocking wire that takes each answer in parts: every byte once, in order" {
    cat >nbwire.py <<'PY'
import fcntl, os, sys
fcntl.fcntl(1, 1031, 4096)      # F_SETPIPE_SZ: one page
os.set_blocking(1, False)
os.execv(sys.argv[1], sys.argv[1:])
PY
    cat >srv.py <<'PY'
import sys
for line in sys.stdin:
    i = line.index('"id":') + 5
    rid = line[i:line.index(",", i)]
    sys.stdout.write('{"jsonrpc":"2.0","id":%s,"result":{"items":[%s]}}\n'
                     % (rid, ",".join('"%s-%05d"' % (rid, k) for k in range(3000))))
    sys.stdout.flush()
PY
    local i want=
    for i in $(seq 1 20); do
        printf '{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' "$i"
        want+=$(python3 -c 'import sys; r = sys.argv[1]; print("{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"items\":[%s]}}" % (r, ",".join("\"%s-%05d\"" % (r, k) for k in range(3000))))' "$i")$'\n'
    done >req
    ( python3 nbwire.py "$REPO/stdiogate-filter" -- python3 srv.py <req 2>err | cat >out )
    [ ! -s err ] || { cat err >&2; false; }
    [ "$(cat out)" = "${want%$'\n'}" ] || { echo "out: $(wc -c <out) bytes, want ${#want}" >&2; false; }
}
