#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/mutate.sh - mutation check: does the test suite notice when shim.c is
# broken in ways that matter?
#
# usage: tests/mutate.sh [-l] [-c] [-k] [-n] [-t FILE.bats]... [MUTATION]...
#   -l           list the mutations and exit
#   -c           check that every mutation still applies to shim.c, and exit
#   -k           keep the work directory (printed at the end)
#   -n           no baseline: skip the run of the test files on the unmutated
#                library (by default it runs first, and a failure there stops
#                everything: a mutant "killed" by an already failing test
#                would mean nothing)
#   -t FILE      run only this test file (tests/x.bats or x.bats; repeatable; default: every
#                tests/*.bats except those listed in SLOW below, cheapest first)
#   MUTATION     run only these mutations (default: all)
#
# For each mutation, a copy of the source tree (in a temporary directory,
# nothing in the real tree is touched) gets shim.c with exactly one hand-made
# change, the library is rebuilt there, and the test files run one after the
# other until one fails: the mutant is "killed" (by that file).  If every file
# passes, it "survived".  A mutation whose text no longer matches shim.c
# exactly once is reported as "stale" (fix the mutation), one that does not
# compile as "stillborn"; neither counts.
#
# Output: one line per mutation, then "killed K of N (P%)" and the survivors.
# Exit status: 0 if at least 90% of the counted mutants were killed, 1 if
# fewer, 2 on usage errors or when the baseline fails.
set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Files left out by default: they do not exercise shim.c (detector, fuzzing,
# lint, installation) or take minutes (real servers from npm).
SLOW="fault_detector.bats fuzz_smoke.bats lint.bats install.bats real_*.bats"

# name | what the mutation breaks | exact text in shim.c | replacement
# (fields separated by " | "; \n in the texts is a newline)
MUTATIONS=$(cat <<'EOF'
skip-flush | startup bytes left in C stdio's stdout buffer are not flushed before the gate opens |             fflush_unlocked(stdout); |             (void)0;
open-on-first-byte | the gate opens on the first byte read, not at the end of the first message |         done = k != 0 || sg_detect_done(&g_detect); |         done = 1;
open-late | the last byte of every read is not shown to the detector |         k = sg_detect_feed(&g_detect, p, n); |         k = sg_detect_feed(&g_detect, p, n > 1 ? n - 1 : n);
eof-keeps-shut | end of input does not open the gate |     if (n == 0) {\n        done = 1; |     if (n == 0) {\n        done = 0;
ignore-readv | readv/preadv are not watched |             saw_iov(iov, cnt, r, #name); |             (void)0;
ignore-recv | recv/recvfrom are not watched |         int watched = gated() && !(flags & MSG_PEEK) && watch(fd);      \ |         int watched = 0 && gated() && !(flags & MSG_PEEK) && watch(fd); \
ignore-fgets | fgets and friends are not watched |         stdio_end(&c_, r, r ? strlen(r) : 0, #name);            \ |         stdio_done(&c_);                                        \
ignore-getline | getline/getdelim/__getdelim are not watched |         stdio_end(&c_, r > 0 ? *line : NULL, r > 0 ? (size_t)r : 0, #name);     \ |         stdio_done(&c_);                                                        \
ignore-uflow | __uflow (inline getc_unlocked) is not watched |         if (end > from && shut())\n            feed(from, (size_t)(end - from), "__uflow"); |         (void)from;
stdin-by-number | stdin is recognised by fd number, not identity (Python SDK v2 reads a copy) |     int saved = errno, r = is(fd, &g_stdin_id) && !in_vfork_child(); |     int saved = errno, r = fd == 0 && !in_vfork_child();
ignore-handshake | setenv(STDIOGATE_OPEN=1) does not open the gate |         strcmp(value, "1") == 0)\n        open_gate(NULL, 0, 0); |         strcmp(value, "1") == 0)\n        (void)0;
forget-marker | an exec'd program is not given the marker |         x->out[k++] = g_marker_out; |         (void)0;
keep-marker | the marker stays in the environment |     unsetenv(MARKER); |     (void)0;
no-identity-check | diverts whatever fd 1 is, marker or not |     if (!is(1, &wire)) { |     if (0) {
diag-to-stdout | diagnostics are written to fd 1 |         while ((w = REAL(write)(2, line, n)) < 0 && errno == EINTR) |         while ((w = REAL(write)(1, line, n)) < 0 && errno == EINTR)
copies-stay-diverted | copies of the diverted fd 1 do not follow it onto the wire |     each_copy(0, ~0U, point_copy_at_wire, wire); |     (void)point_copy_at_wire, (void)wire;
dup2-untracked | dup2/dup3 onto fd 1 or from it are not tracked |         note_copy(old, new); |         (void)0;
fcntl-untracked | fcntl(F_DUPFD) copies of fd 1 are not tracked |     int r = REAL(fcntl)(fd, cmd, arg);\n    if (gated() && r >= 0 && fcntl_arg_dups(cmd) && shut()) |     int r = REAL(fcntl)(fd, cmd, arg);\n    if (0)
wire-closable | close() may close the private wire |     if (is_private(fd)) {\n        /* Ours |     if (0) {\n        /* Ours
close-range-kills-wire | close_range closes the private wire |     int mine[3] = { LOAD(g_wire), LOAD(g_div), LOAD(g_err) }, r = 0; |     int mine[3] = { -1, -1, -1 }, r = 0;
no-move-wire | dup2 onto the wire's number clobbers the wire |         move_private(new); |         (void)move_private;
private-low | the private wire sits at the lowest free descriptor (3) |     long top = 1000; |     long top = 3;
terminal-ok | a terminal on fd 2 takes the diversion (Node reopens it) |     if (isatty(2))\n        return 0; |     if (0)\n        return 0;
stderr-is-wire-ok | 2>&1 puts the junk back on the wire |     if (is(2, &g_wire_id))\n        return 0; |     if (0)\n        return 0;
go-not-detected | Go programs are diverted forever |     dl_iterate_phdr(main_program_is_go, &found); |     (void)main_program_is_go;
exec-not-restored | a failed exec leaves fd 1 on the wire |         REAL(dup2)(x->saved, 1); |         (void)0;
handback-no-exit | a failed hand-back answers on stderr instead of exiting 1 |             _exit(1); |             (void)0;
nonblock-not-carried | Node's O_NONBLOCK on the diversion is not carried to the wire |     carry_nonblock(wire); |     (void)carry_nonblock;
vfork-unaware | a vfork child writes the parent's state |     return getpid() != LOAD(g_pid); |     return 0;
close-range-past-last | close_range(first, last) also closes descriptors above last, up to a private one |         if (mine[i] < 0 || skip[i] < lo || skip[i] > last) |         if (mine[i] < 0 || skip[i] < lo)
identity-ino-only | identity is the inode number alone, whatever the device |     return id->valid && identify(fd, &here) && here.dev == id->dev && here.ino == id->ino; |     return id->valid && identify(fd, &here) && here.ino == id->ino;
empty-read-opens | a stdio reader returning nothing without end of file opens the gate |     if (!n && feof_unlocked(fp) && shut()) |     if (!n && shut())
handoff-leaks-saved | the program exec'd with the wire also inherits a copy of the diversion |     x->saved = REAL(fcntl)(1, F_DUPFD_CLOEXEC, 3); |     x->saved = REAL(fcntl)(1, F_DUPFD, 3);
diversion-by-identity | the program's own /dev/null on fd 1 is taken for the diversion (no kcmp) |         r = same_open_file(fd, div); |         r = -1 + 0 * same_open_file(fd, div);
copies-below-4096 | copies of fd 1 at 4096 and above are not tracked |     if (bits <= TRACKED_STATIC)\n        return; |     if (1)\n        return;
cloexec-lost | fd 1's FD_CLOEXEC is lost when the gate opens |         if (REAL(dup3)(wire, 1, (fl > 0 && (fl & FD_CLOEXEC)) ? O_CLOEXEC : 0) < 0) { |         if (REAL(dup3)(wire, 1, (fl > 0 && (fl & FD_CLOEXEC) && 0) ? O_CLOEXEC : 0) < 0) {
cloexec-handed | a close-on-exec fd 1 is handed the wire at exec |     return shut() && LOAD(g_fd1_ours) && fl >= 0 && !(fl & FD_CLOEXEC) && on_diversion(1) && |     return shut() && LOAD(g_fd1_ours) && fl >= 0 && on_diversion(1) &&
env-on-stack | environments of up to 40,000 entries are copied on the stack | #define ENV_ON_STACK 256 | #define ENV_ON_STACK 40000
flush-inside-stdio | the gate flushes stdout under the code a signal handler interrupted |     if (stdout_locked_here()) { |     if (stdout_locked_here() && 0) {
vfork-reads-fed | a vfork child's reads feed the parent's detector |     int saved = errno, r = is(fd, &g_stdin_id) && !in_vfork_child(); |     int saved = errno, r = is(fd, &g_stdin_id);
daemon-keeps-wire | a daemon(3) child keeps the wire open |     if (gated() && r == 0 && shut() && !in_vfork_child() && LOAD(g_fd1_ours) && |     if (0 && gated() && r == 0 && shut() && !in_vfork_child() && LOAD(g_fd1_ours) &&
secure-ignored | under secure execution the library still diverts |     if (getauxval(AT_SECURE))\n        return; |     if (0)\n        return;
failsafe-no-trigger | an answer written to the diversion does not open the gate |     sg_answer_init(&a);\n    for (int i = 0; i < cnt && !found; i++) |     sg_answer_init(&a);\n    for (int i = 0; i < 0 && !found; i++)
failsafe-no-split | junk written with the answer in one call goes to the wire with it |     size_t start = (size_t)a.start, total = iov_total(iov, cnt); |     size_t start = 0, total = iov_total(iov, cnt);
failsafe-junk-lost | the junk split off an answer is dropped instead of diverted |         ssize_t r = put_range(c, iov, cnt, 0, start, 0); |         ssize_t r = (ssize_t)start;
failsafe-first-iovec | only the first iovec of a writev is looked at |     for (int i = 0; i < cnt && !found; i++) |     for (int i = 0; i < 1 && !found; i++)
failsafe-copies-unseen | an answer written on a copy of fd 1 is not recognised |     return shut() && is_diversion(fd) && !in_vfork_child(); |     return shut() && fd == 1 && LOAD(g_fd1_ours) && !in_vfork_child();
failsafe-stdio-unseen | an answer in stdout's buffer at fflush is not recognised |     if (fp->_mode <= 0 && len && shut() && sg_answer_find(base, len, &start)) { |     if (0) {
failsafe-stdio-unhidden | the gate's own flush writes the answer in stdout's buffer to stderr |         fp->_IO_write_ptr = base;               /* hidden from the gate's flush */ |         (void)0;
failsafe-no-exit | answers left in stdout's buffer at exit are not looked at |         answer_in_stdout("exit"); |         (void)0;
failsafe-loud | the fail-safe's warning is not said at level 1 |         say(1, "the server answered before |         say(2, "the server answered before
bun-not-detected | Bun programs are diverted forever |     if (valid && is(1, &wire) && is_bun_program()) { |     if (0 && valid && is(1, &wire) && is_bun_program()) {
peek-count | bytes read again after ungetc stepped back count as new input |     return a->pushed + (g_buf.fed > a->point ? (size_t)(g_buf.fed - a->point) : 0); |     return a->pushed;
peek-refill | a refill after inline reads is taken for more of the old fill |         if (!refill && g_buf.fed > from) |         if (((void)refill, g_buf.fed > from))
summary-lines-uncounted | the gate's summary counts no lines |             lines++; |             (void)lines;
summary-unsaid | the gate's opening does not sum up what the diversion took |     diverted_summary();\n    errno = saved; |     (void)diverted_summary;\n    errno = saved;
peek-backup | ungetc's backup area is taken for the main buffer |     if (fp->_flags & SG_IO_IN_BACKUP) {\n        a->point = fp->_IO_save_base; |     if (0) {\n        a->point = fp->_IO_save_base;
scanf-refill-uncounted | refills inside one scanf call are not counted |     v->counted = v->offset == SG_IO_POS_BAD; |     v->counted = 0;
ignore-wide | wide stdio readers (fgetwc, fgetws, w-scanf...) are not watched |     v->on = is_stdin_file(fp) && !in_vfork_child(); |     v->on = 0;
wide-fgetws-real | fgetws on stdin is the real one: refills inside a line go unseen |     if (wide_line_watched(fp, n))\n        return wide_line(s, n, fp, 1, "fgetws"); |     if (0)\n        return wide_line(s, n, fp, 1, "fgetws");
wide-filler | bytes of a multi-byte character read in several pieces are not counted |         feed_filler(got - kept, how); |         (void)feed_filler;
wide-refill-start | the bytes of a wide refill are counted from the wrong place |     else if (got > 0)\n        start = end - got; |     else if (got > 0)\n        start = point - 1;
isoc23-null | before glibc 2.38 __isoc23_scanf calls a NULL real function |     return f ? f : REAL(__isoc99_vfscanf); |     return f;
reopen-unseen | opening /dev/stdout or /proc/self/fd/1 while diverted gives the diversion (the client hangs) |     return n >= 0 && is_diversion(n) && on_diversion(n) == 1 ? n : -1; |     return n >= 0 && 0 ? n : -1;
reopen-wire-at-once | opening stdout by name gives the wire at once (junk written through it reaches the wire) |     if (in_vfork_child())\n        return give_wire(wire, flags); |     if (1)\n        return give_wire(wire, flags);
reopen-no-swap | a stand-in is not put on the wire when the gate opens |             point_one_at_wire(e); |             (void)point_one_at_wire;
reopen-no-epoll | a stand-in's epoll registration is not made again for the wire (tokio waits forever) |     else if (e->epfd >= 0 && REAL(epoll_ctl)(e->epfd, EPOLL_CTL_ADD, prog, &e->ev) < 0) |     else if (0 && e->epfd >= 0 && REAL(epoll_ctl)(e->epfd, EPOLL_CTL_ADD, prog, &e->ev) < 0)
reopen-copies-unknown | the program's copies of a stand-in are not the diversion (dup2 of it onto fd 1 stays on stderr) |     if (r == 0)\n        r = on_reopened(fd); |     if (0)\n        r = on_reopened(fd);
reopen-file-reopened | a stand-in for a stderr that is a file is a new open file of it (written from offset 0, over the log) |     if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) { |     if (fstat(fd, &st) == 0) {
no-drain | the diversion is stderr itself whatever it is (a log file, a pipe nobody reads) |     if (to_stderr && stderr_needs_drain()) { |     if (0 && stderr_needs_drain()) {
no-drain-wait | opening the gate, exec and exit do not wait for the drain |     if (!d || !is(1, &g_div_id))\n        return; |     if (1)\n        return;
say-blocks | the library's diagnostics wait for room on a full stderr pipe |     STORE(g_err, high); |     (void)REAL(fcntl)(high, F_SETFL, 0);\n    STORE(g_err, high);
helper-never-reaped | the library never reaps the helper's parent (a zombie where pid 1 does not reap) |     if (pid <= 0 || in_vfork_child())\n        return 1; |     if (1)\n        return 1;
exit-keeps-diversion | at exit fd 1 stays on the helper's pipe (the helper outlives the server, unreaped) |         end_diversion(); |         if (0)\n            end_diversion();
strip-own-marker | exec strips a marker the program set itself (a nested wrapper) |     return is_marker(e) && g_marker[0] && strcmp(e, g_marker) == 0; |     return is_marker(e);
musl-not-detected | a program whose loader cannot load the library gets it in LD_PRELOAD |     return path[0] && runs_foreign_loader(path); |     return 0 && runs_foreign_loader(path);
debug-not-fixed | an invalid STDIOGATE_DEBUG is warned about in every process of the tree |     putenv(fixed); |     (void)fixed;
EOF
)

usage() { sed -n '2,/^set -u/p' "$0" | sed '$d' >&2; exit 2; }

list=0 check=0 keep=0 baseline=1 files=() only=()
while [ $# -gt 0 ]; do
    case $1 in
        -l) list=1 ;;
        -c) check=1 ;;
        -k) keep=1 ;;
        -n) baseline=0 ;;
        -t) [ $# -ge 2 ] || usage; files+=("${2##*/}"); shift ;;
        -h|--help) usage ;;
        -*) usage ;;
        *) only+=("$1") ;;
    esac
    shift
done

if [ "$list" = 1 ]; then
    printf '%s\n' "$MUTATIONS" | awk -F' [|] ' '{ printf "%-24s %s\n", $1, $2 }'
    exit 0
fi

if [ ${#files[@]} -eq 0 ]; then
    # cheapest first: a mutant dies at the first failing file
    for f in "$ROOT"/tests/core_*.bats "$ROOT"/tests/fault_*.bats "$ROOT"/tests/wrapper.bats \
             "$ROOT"/tests/tree_*.bats "$ROOT"/tests/*.bats; do
        [ -e "$f" ] || continue
        b=$(basename "$f")
        skip=0
        for s in $SLOW; do
            # shellcheck disable=SC2254
            case $b in $s) skip=1 ;; esac
        done
        [ "$skip" = 1 ] && continue
        case " ${files[*]:-} " in *" $b "*) continue ;; esac
        files+=("$b")
    done
fi

if [ "$check" = 1 ]; then
    printf '%s\n' "$MUTATIONS" | python3 -c '
import sys
text = open(sys.argv[1]).read()
bad = 0
for spec in sys.stdin.read().splitlines():
    if not spec:
        continue
    name, what, old, new = [x.replace("\\n", "\n") for x in spec.split(" | ", 3)]
    n = text.count(old)
    if n != 1:
        print("%-24s stale (found %d times)" % (name, n))
        bad = 1
sys.exit(bad)' "$ROOT/shim.c" && echo "all mutations apply"
    exit $?
fi

WORK=$(mktemp -d /tmp/stdiogate-mutate.XXXXXX)
cleanup() { if [ "$keep" = 0 ]; then rm -rf "$WORK"; fi; }
trap cleanup EXIT
TREE=$WORK/tree
mkdir -p "$TREE"
make -s -C "$ROOT" all fixtures >/dev/null || { echo "mutate: the pristine tree does not build" >&2; exit 2; }
(cd "$ROOT" && tar --exclude=.git --exclude='./fuzz/corpus' --exclude='./build' -cf - .) | (cd "$TREE" && tar -xf -)
cp "$ROOT/shim.c" "$WORK/shim.c.orig"

# apply NAME: write the mutant to $TREE/shim.c; status 3 if stale
apply() {
    python3 - "$WORK/shim.c.orig" "$TREE/shim.c" "$1" <<'PY'
import sys
src, dst, spec = sys.argv[1], sys.argv[2], sys.argv[3]
name, what, old, new = [x.replace("\\n", "\n") for x in spec.split(" | ", 3)]
text = open(src).read()
if text.count(old) != 1:
    sys.exit(3)
open(dst, "w").write(text.replace(old, new))
PY
}

# Tests that already fail on the unmutated library (the baseline): they can
# kill no mutant, and are listed in the summary.
KNOWN=$WORK/known-failures
: >"$KNOWN"

# new_failures LOG: the failing tests in LOG that are not known failures
new_failures() {
    grep '^not ok' "$1" | sed -E 's/^not ok [0-9]+ //; s/ # timeout after .*$//' | grep -vxFf "$KNOWN"
}

# run_file FILE LOG: run one bats file; stop it at its first new failing
# test (status 1), so that a killed mutant costs one failure, not a file of
# time-outs.  The log is polled: bats writes one TAP line per test.
# A test that takes longer than MUTATE_TEST_TIMEOUT seconds (default 90, well
# above what any test takes on the pristine library) fails: a mutant that
# makes the suite hang is killed, not waited for.
run_file() {
    local f=$1 log=$2 pid
    : >"$log"
    BATS_TEST_TIMEOUT=${MUTATE_TEST_TIMEOUT:-90} setsid bats "$f" >"$log" 2>&1 &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        if [ -n "$(new_failures "$log")" ]; then
            kill -TERM -- "-$pid" 2>/dev/null
            wait "$pid" 2>/dev/null
            return 1
        fi
        sleep 0.2   # polling the log for a TAP line, not a timing guess
    done
    wait "$pid"
    [ -z "$(new_failures "$log")" ] && grep -q '^1\.\.' "$log"
}

if [ "$baseline" = 1 ]; then
    : >"$WORK/baseline-failures"
    make -s -C "$TREE" libstdiogate.so >"$WORK/build.log" 2>&1 || { echo "mutate: baseline build failed" >&2; exit 2; }
    for f in "${files[@]}"; do
        BATS_TEST_TIMEOUT=${MUTATE_TEST_TIMEOUT:-90} bats "$TREE/tests/$f" >"$WORK/baseline.$f.log" 2>&1
        new_failures "$WORK/baseline.$f.log" | sed "s|^|$f: |" >>"$WORK/baseline-failures"
        new_failures "$WORK/baseline.$f.log" >>"$KNOWN.new"
    done
    [ -f "$KNOWN.new" ] && cat "$KNOWN.new" >"$KNOWN"
    echo "baseline: ${#files[@]} test files on the unmutated library; $(wc -l <"$KNOWN") failing test(s), which kill nothing:"
    sed 's/^/  /' "$WORK/baseline-failures"
fi

total=0 killed=0 survivors=() stale=() stillborn=()
while IFS= read -r spec; do
    [ -n "$spec" ] || continue
    name=${spec%% | *}
    if [ ${#only[@]} -gt 0 ] && [[ " ${only[*]} " != *" $name "* ]]; then
        continue
    fi
    apply "$spec"
    case $? in
        0) ;;
        3) printf '%-24s stale (text not found exactly once in shim.c)\n' "$name"; stale+=("$name"); continue ;;
        *) echo "mutate: cannot apply $name" >&2; exit 2 ;;
    esac
    if ! make -s -C "$TREE" libstdiogate.so >"$WORK/build.log" 2>&1; then
        printf '%-24s stillborn (does not compile)\n' "$name"; stillborn+=("$name"); continue
    fi
    total=$((total + 1))
    by=
    for f in "${files[@]}"; do
        if ! run_file "$TREE/tests/$f" "$WORK/$name.$f.log"; then
            by=$f
            break
        fi
    done
    if [ -n "$by" ]; then
        killed=$((killed + 1))
        printf '%-24s killed by %s (%s)\n' "$name" "$by" \
            "$(new_failures "$WORK/$name.$by.log" | head -1 | cut -c1-80)"
    else
        printf '%-24s SURVIVED\n' "$name"
        survivors+=("$name")
    fi
done <<<"$MUTATIONS"
cp "$WORK/shim.c.orig" "$TREE/shim.c"

pct=0
[ "$total" -gt 0 ] && pct=$((100 * killed / total))
echo "killed $killed of $total ($pct%)${stale:+; stale: ${stale[*]}}${stillborn:+; stillborn: ${stillborn[*]}}"
if [ ${#survivors[@]} -gt 0 ]; then
    echo "survivors:"
    for s in "${survivors[@]}"; do
        printf '%s\n' "$MUTATIONS" | awk -F' [|] ' -v n="$s" '$1 == n { printf "  %-24s %s\n", $1, $2 }'
    done
fi
[ "$keep" = 1 ] && echo "work directory: $WORK"
[ "$total" -gt 0 ] && [ $((100 * killed)) -ge $((90 * total)) ]
