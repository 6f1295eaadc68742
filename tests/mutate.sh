#!/bin/bash
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
#   -t FILE      run only this test file (repeatable; default: every
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
ignore-fgets | fgets and friends are not watched |             saw_file(fp, r, r ? strlen(r) : 0, #name); |             (void)0;
ignore-getline | getline/getdelim/__getdelim are not watched |             saw_file(fp, r > 0 ? *line : NULL, r > 0 ? (size_t)r : 0, #name); |             (void)0;
ignore-uflow | __uflow (inline getc_unlocked) is not watched |         saw_file(fp, fp->_IO_read_ptr - 1, (size_t)(fp->_IO_read_end - fp->_IO_read_ptr) + 1,\n                 "__uflow"); |         (void)0;
stdin-by-number | stdin is recognised by fd number, not identity (Python SDK v2 reads a copy) |     int saved = errno, r = is(fd, &g_stdin_id); |     int saved = errno, r = fd == 0;
ignore-handshake | setenv(STDIOGATE_OPEN=1) does not open the gate |         strcmp(value, "1") == 0)\n        open_gate(NULL, 0, 0); |         strcmp(value, "1") == 0)\n        (void)0;
forget-marker | an exec'd program is not given the marker |     if (x->hand && !x->foreign && g_marker[0])\n        out[k++] = g_marker; |     (void)0;
keep-marker | the marker stays in the environment |     unsetenv(MARKER); |     (void)0;
no-identity-check | diverts whatever fd 1 is, marker or not |     if (!is(1, &wire)) { |     if (0) {
diag-to-stdout | diagnostics are written to fd 1 |     while (write(2, line, n) < 0 && errno == EINTR) |     while (write(1, line, n) < 0 && errno == EINTR)
copies-stay-diverted | copies of the diverted fd 1 do not follow it onto the wire |     each_copy(0, ~0U, point_copy_at_wire, wire); |     (void)point_copy_at_wire, (void)wire;
dup2-untracked | dup2/dup3 onto fd 1 or from it are not tracked |         note_copy(old, new); |         (void)0;
fcntl-untracked | fcntl(F_DUPFD) copies of fd 1 are not tracked |     int r = REAL(fcntl)(fd, cmd, arg);\n    if (gated() && r >= 0 && fcntl_arg_dups(cmd) && shut()) |     int r = REAL(fcntl)(fd, cmd, arg);\n    if (0)
wire-closable | close() may close the private wire |     if (fd >= 0 && fd == LOAD(g_wire)) {\n        errno = EBADF; |     if (fd < -1 && fd == LOAD(g_wire)) {\n        errno = EBADF;
close-range-kills-wire | close_range closes the private wire |     if (wire >= 0 && (unsigned)wire >= first && (unsigned)wire <= last) { |     if (wire < -1 && (unsigned)wire >= first && (unsigned)wire <= last) {
no-move-wire | dup2 onto the wire's number clobbers the wire |         move_wire(); |         (void)move_wire;
private-low | the private wire sits at the lowest free descriptor (3) |     long top = 1000; |     long top = 3;
terminal-ok | a terminal on fd 2 takes the diversion (Node reopens it) |     if (isatty(2))\n        return 0; |     if (0)\n        return 0;
stderr-is-wire-ok | 2>&1 puts the junk back on the wire |     if (is(2, &g_wire_id))\n        return 0; |     if (0)\n        return 0;
go-not-detected | Go programs are diverted forever |     dl_iterate_phdr(main_program_is_go, &found); |     (void)main_program_is_go;
exec-not-restored | a failed exec leaves fd 1 on the wire |         REAL(dup2)(x->saved, 1); |         (void)0;
handback-no-exit | a failed hand-back answers on stderr instead of exiting 1 |             _exit(1); |             (void)0;
nonblock-not-carried | Node's O_NONBLOCK on the diversion is not carried to the wire |     carry_nonblock(wire); |     (void)carry_nonblock;
vfork-unaware | a vfork child writes the parent's state |     return getpid() != LOAD(g_pid); |     return 0;
no-drain | the diversion is stderr itself whatever it is (a log file, a pipe nobody reads) |     if (to_stderr && stderr_needs_drain()) { |     if (0 && stderr_needs_drain()) {
no-drain-wait | opening the gate, exec and exit do not wait for the drain |     if (!d || !is(1, &g_div_id))\n        return; |     if (1)\n        return;
drain-blocks | the drain writes to stderr without asking whether it would block |         if (p[1].revents & POLLOUT)\n            drain_out( |         if (len && alive)\n            drain_out(
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
        -t) [ $# -ge 2 ] || usage; files+=("$2"); shift ;;
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
(cd "$ROOT" && tar --exclude=.git --exclude='./fuzz/corpus' -cf - .) | (cd "$TREE" && tar -xf -)
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
