#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/mutate.sh - mutation check: does the test suite notice when the code
# is broken in ways that matter?  Every C file (the library: shim.c and
# lib/*; protocol/detect.h, common/env.h, filter/*.c, the checker's check/*.c, common/inspect.c), the wrapper
# (stdiogate) and the doctor (doctor/stdiogate-doctor) have mutations.
#
# usage: tests/mutate.sh [-l] [-c] [-k] [-n] [-H FILE] [-f FILE]... [-t FILE.bats]... [MUTATION]...
#   -l           list the mutations and exit
#   -c           check that every mutation still applies to its file, and exit
#   -k           keep the work directory (printed at the end)
#   -n           no baseline: skip the run of the test files on the unmutated
#                tree (by default it runs first, and a failure there stops
#                nothing but is listed: a mutant "killed" by an already failing
#                test would mean nothing, so such a test kills nothing)
#   -f FILE      run only the mutations of this source file (shim.c, lib/fds.c
#                or fds.c..., protocol/detect.h, common/env.h, filter/relay.c, check/main.c, check/wrapper.c,
#                check/report.c, check/output.c..., common/inspect.c, common/junk.h,
#                stdiogate, doctor/stdiogate-doctor; repeatable)
#   -H FILE      hints: the output of an earlier run (tests/mutate-kills.txt
#                keeps the last full one).  A mutant it says was "killed by
#                F.bats (TEST)" runs that test alone first (bats -f), and is
#                killed by it if it fails twice; if it passes, the test files
#                run as without hints.  Each hinted test is first run alone on
#                the unmutated tree: one that fails there is no hint.  A kill
#                counts the same either way; hints only make a run that kills
#                as before take minutes instead of hours.
#   -t FILE      run only this test file (tests/PART/x.bats or x.bats; repeatable).
#                Default: for each mutation, the test files that exercise its
#                source file (FIRST below) first, then every other tests/*/*.bats
#                except those listed in SLOW below, cheapest first
#   MUTATION     run only these mutations (default: all)
#
# For each mutation, a copy of the source tree (in a temporary directory,
# nothing in the real tree is touched) gets its file with exactly one
# hand-made change, `make all fixtures` rebuilds there what the file is part
# of (the library, the filter, the checker, the fixtures that include
# detect.h, as build/deps lists them; the test files that run the fuzzers
# rebuild those), and the test files run one after the other until one fails
# twice in a row: the mutant is "killed" (by that file; a file that fails once
# and then passes is reported, and the next file runs).  If every file
# passes, it "survived".  The file is then put back (and what was built
# from the mutant is rebuilt before the next one).  A mutation whose text no
# longer matches its file exactly once is reported as "stale" (fix the
# mutation), one that does not compile as "stillborn"; neither counts.  A
# mutation marked "equivalent" (its first field "FILE equivalent") changes
# nothing a program or a client could see; the comment above it says why.
# It is listed, not run, and not counted.
#
# Output: one line per mutation, then "killed K of N (P%)" overall and per
# file, and the survivors.  Exit status: 0 if at least MUTATE_MIN percent
# (default 95) of the counted mutants were killed, 1 if fewer, 2 on usage
# errors or when the pristine tree does not build.
set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The library is shim.c and the files under lib/.
SOURCES="shim.c $(cd "$ROOT" && ls lib/*.h lib/*.c 2>/dev/null | tr '\n' ' ')common/quiet.h common/junk.h protocol/detect.h common/env.h $(cd "$ROOT" && ls filter/*.c filter/*.h | tr '\n' ' ')$(cd "$ROOT" && ls check/*.c | tr '\n' ' ')common/inspect.c common/inspect.h stdiogate doctor/stdiogate-doctor"
# Files left out of the default set: they do not exercise the library
# (fuzzing, lint, installation), take minutes (real servers from npm), or
# install what `make packages` built from the real tree, not from the copy
# (packages.bats, aarch64.bats: they fail in the copy and would kill nothing).
# A source file's FIRST list may name one of them (detect.h: the detector's
# differential test).
# deb.bats is make deb's, not make test's.
SLOW="fault_detector.bats fuzz_smoke.bats strict_fuzz.bats strict_lint.bats lint.bats install.bats build_deps.bats packages.bats aarch64.bats real_*.bats deb.bats"
# The test files that exercise each source file, cheapest first: a mutant of
# that file runs them before the rest of the default set.
first_files() {
    case $1 in
        lib/exec.c) echo "families_exec.bats strict_auto.bats setups_wrapper.bats" ;;
        lib/helper.c|lib/internal.h|common/quiet.h) echo "setups_stderr.bats helper_process.bats" ;;
        lib/strict.c) echo "setups_stderr.bats helper_process.bats strict_faults.bats strict_alone.bats" ;;
        lib/system.c) echo "helper_process.bats guard_session.bats" ;;
        lib/stdout.c) echo "helper_process.bats guard_session.bats" ;;
        lib/guard.c|lib/transfer.c) echo "guard_threads.bats guard_session.bats fault_fds.bats strict_alone.bats edges_bound.bats" ;;
        lib/failsafe.c) echo "gate_race.bats core_failsafe.bats classifier_wide.bats" ;;
        lib/write.c) echo "gate_race.bats core_failsafe.bats tree_fdpass.bats families_write.bats guard_session.bats" ;;
        lib/interpreters.c) echo "setups_interpreters.bats setups_wrapper.bats core_python.bats" ;;
        shim.c|lib/*) echo "" ;;
        protocol/detect.h) echo "mutants_detect.bats fault_detector.bats strict_fuzz.bats strict_edges.bats classifier_wide.bats core_framing.bats core_failsafe.bats mutants_failsafe.bats check_verdicts.bats" ;;
        common/junk.h) echo "guard_session.bats mutants_filter.bats strict_edges.bats strict_faults.bats setups_stderr.bats" ;;
        filter/*) echo "mutants_filter.bats strict_edges.bats strict_wrapper.bats strict_alone.bats strict_faults.bats strict_servers.bats check_verdicts.bats" ;;
        common/env.h) echo "mutants_check.bats setups_wrapper.bats core_diagnostics.bats mutants_filter.bats strict_wrapper.bats" ;;
        check/*.c) echo "mutants_check.bats wrapper.bats setups_wrapper.bats check_verdicts.bats strict_wrapper.bats check_bad_input.bats" ;;
        common/inspect.c|common/inspect.h) echo "mutants_inspect.bats strict_auto.bats families_exec.bats wrapper.bats setups_wrapper.bats check_verdicts.bats" ;;
        stdiogate) echo "wrapper.bats strict_wrapper.bats setups_wrapper.bats check_verdicts.bats" ;;
        doctor/*) echo "doctor.bats wrapper.bats" ;;
    esac
}

# FILE | name | what the mutation breaks | exact text in FILE | replacement
# (fields separated by " | "; in the texts \n is a newline, \\ a backslash and \| a |; lines that
# start with # are comments).  FILE may be followed by "equivalent".
MUTATIONS=$(cat <<'EOF'
shim.c | skip-flush | startup bytes left in C stdio's stdout buffer are not flushed before the gate opens |             fflush_unlocked(stdout); |             (void)0;
lib/reads.c | open-on-first-byte | the gate opens on the first byte read, not at the end of the first message |         done = k != 0 || sg_detect_done(&g_detect); |         done = 1;
lib/reads.c | open-late | the last byte of every read is not shown to the detector |         k = sg_detect_feed(&g_detect, p, n); |         k = sg_detect_feed(&g_detect, p, n > 1 ? n - 1 : n);
lib/reads.c | eof-keeps-shut | end of input does not open the gate |     if (n == 0) {\n        done = 1; |     if (n == 0) {\n        done = 0;
lib/reads.c | ignore-readv | readv/preadv are not watched | WATCHED_READER(name, params, args, saw_iov(iov, cnt, r, #name)) | WATCHED_READER(name, params, args, (void)0)
lib/reads.c | ignore-recv | recv/recvfrom are not watched |         int watched = gated() && !(flags & MSG_PEEK) && watch(fd);      \ |         int watched = 0 && gated() && !(flags & MSG_PEEK) && watch(fd); \
lib/reads.c | ignore-fgets | fgets and friends are not watched |         stdio_end(&c_, r, r ? strlen(r) : 0, #name);            \ |         stdio_done(&c_);                                        \
lib/reads.c | ignore-getline | getline/getdelim/__getdelim are not watched |         stdio_end(&c_, r > 0 ? *line : NULL, r > 0 ? (size_t)r : 0, #name);     \ |         stdio_done(&c_);                                                        \
lib/reads.c | ignore-uflow | __uflow (inline getc_unlocked) is not watched |         if (end > from && shut())\n            feed(from, (size_t)(end - from), "__uflow"); |         (void)from;
lib/fds.c | stdin-by-number | stdin is recognised by fd number, not identity (Python SDK v2 reads a copy) |     int r = is(fd, &g_core.stdin_id), sure | int r = fd == 0, sure
lib/interpreters.c | interp-with-guard | the interpreters' stdout is unbuffered in default mode too (a Python server's every write a system call) |     if (!shut() \|\| LOAD(g_guard_wanted) \|\| !slash \|\| |     if (!shut() \|\| !slash \|\|
lib/interpreters.c | interp-every-time | getenv answers for ever, not once (Ruby's ENV["RUBYOPT"] shows ours) |         char *a = __atomic_exchange_n(&g_answers[i], NULL, __ATOMIC_ACQ_REL);\n        if (a)\n            __atomic_sub_fetch(&g_unanswered, 1, __ATOMIC_ACQ_REL); |         char *a = LOAD(g_answers[i]);
lib/interpreters.c | interp-any-program | every program gets every answer (Ruby's ENV["PYTHONUNBUFFERED"] is "1") |     return dlsym(RTLD_DEFAULT, g_runtimes[interpreter]) != NULL; |     return g_runtimes[interpreter] != NULL;
lib/interpreters.c | interp-python-forced | --gate-only: the caller's PYTHONUNBUFFERED=0 is overridden |     if (runs(PYTHON) && (!py \|\| !*py)) |     if (runs(PYTHON) && (py \|\| 1))
lib/interpreters.c | interp-no-perl | --gate-only: Perl's STDOUT stays buffered (its banner reaches the wire) |     if (runs(PERL) && FITS( |     if (0 && FITS(
lib/handshake.c | ignore-handshake | setenv(STDIOGATE_OPEN=1) does not open the gate | strcmp(name, HANDSHAKE) == 0 && sg_env_open(value))\n        open_gate(NULL, 0, 0); | strcmp(name, HANDSHAKE) == 0 && sg_env_open(value))\n        (void)0;
lib/exec.c | forget-marker | an exec'd program is not given the marker |         x->out[k++] = x->hand ? g_marker_out : g_marker_guarded; |         (void)0;
shim.c | client-framing-ignored | the session's framing is left to the server's output, not taken from the client's first message |     if (g_protocol == SG_AUTO && framing != SG_AUTO) |     if (0 && g_protocol == SG_AUTO && framing != SG_AUTO)
shim.c | keep-marker | the marker stays in the environment |     unsetenv(MARKER); |     (void)0;
shim.c | no-identity-check | diverts whatever fd 1 is, marker or not |     if (!is(1, &wire)) { |     if (0) {
lib/say.c | diag-to-stdout | diagnostics are written to fd 1 |         while ((w = REAL(write)(2, line, n)) < 0 && errno == EINTR) |         while ((w = REAL(write)(1, line, n)) < 0 && errno == EINTR)
shim.c | copies-stay-diverted | copies of the diverted fd 1 do not follow it onto the wire |     each_copy(0, ~0U, point_copy_at_wire, wire); |     (void)point_copy_at_wire, (void)wire;
lib/fds.c | dup2-untracked | dup2/dup3 onto fd 1 or from it are not tracked |         note_copy(old, new); |         (void)0;
lib/fds.c | fcntl-untracked | fcntl(F_DUPFD) copies of fd 1 are not tracked |     if (minding() && r >= 0 && fcntl_arg_dups(cmd)) { |     if (minding() && r >= 0 && fcntl_arg_dups(cmd) && 0) {
lib/fds.c | wire-closable | close() may close the private wire |     if (gated() && is_private(fd)) {\n        /* Ours |     if (0) {\n        /* Ours
lib/fds.c | close-range-kills-wire | close_range closes the private wire |     int mine[4] = { LOAD(g_core.wire), LOAD(g_core.div), LOAD(g_core.err), LOAD(g_drain_in) }, r = 0; |     int mine[4] = { -1, -1, -1, -1 }, r = 0;
lib/fds.c | no-move-wire | dup2 onto the wire's number clobbers the wire |         move_private(new); |         (void)move_private;
lib/fds.c | private-low | the private wire sits at the lowest free descriptor (3) |     long top = 1000; |     long top = 3;
shim.c | terminal-ok | a terminal on fd 2 takes the diversion (Node reopens it) |     if (isatty(2))\n        return 0; |     if (0)\n        return 0;
shim.c | stderr-is-wire-ok | 2>&1 puts the junk back on the wire |     if (is(2, &g_core.wire_id))\n        return 0; |     if (0)\n        return 0;
shim.c | go-not-detected | Go programs are diverted forever |     dl_iterate_phdr(main_program_is_go, &found); |     (void)main_program_is_go;
lib/exec.c | exec-not-restored | a failed exec leaves fd 1 on the wire |         REAL(dup2)(x->saved, 1); |         (void)0;
shim.c | handback-no-exit | a failed hand-back answers on stderr instead of exiting 1 |             _exit(1); |             (void)0;
shim.c | nonblock-not-carried | Node's O_NONBLOCK on the diversion is not carried to the wire |     carry_nonblock(wire); |     (void)carry_nonblock;
lib/internal.h | vfork-unaware | a vfork child writes the parent's state |     return getpid() != LOAD(g_core.pid); |     return 0;
lib/fds.c | close-range-past-last | close_range(first, last) also closes descriptors above last, up to a private one |         if (mine[i] < 0 || skip[i] < lo || skip[i] > last) |         if (mine[i] < 0 || skip[i] < lo)
lib/fds.c | identity-ino-only | identity is the inode number alone, whatever the device |     return id->valid && identify(fd, &here) && here.dev == id->dev && here.ino == id->ino; |     return id->valid && identify(fd, &here) && here.ino == id->ino;
lib/reads.c | empty-read-opens | a stdio reader returning nothing without end of file opens the gate |     if (!n && feof_unlocked(fp) && shut()) |     if (!n && shut())
lib/exec.c | handoff-leaks-saved | the program exec'd with the wire also inherits a copy of the diversion |     x->saved = REAL(fcntl)(1, F_DUPFD_CLOEXEC, 3); |     x->saved = REAL(fcntl)(1, F_DUPFD, 3);
lib/fds.c | diversion-by-identity | the program's own /dev/null on fd 1 is taken for the diversion (no kcmp) |         r = same_open_file(fd, div); |         r = -1 + 0 * same_open_file(fd, div);
lib/fds.c | copies-below-4096 | copies of fd 1 at 4096 and above are not tracked |     if (bits <= TRACKED_STATIC)\n        return; |     if (1)\n        return;
lib/internal.h | cloexec-lost | fd 1's FD_CLOEXEC is lost when the gate opens (and a copy's, when it is pointed elsewhere) |     return REAL(dup3)(to, fd, (fl > 0 && (fl & FD_CLOEXEC)) ? O_CLOEXEC : 0); |     return REAL(dup3)(to, fd, (fl > 0 && (fl & FD_CLOEXEC) && 0) ? O_CLOEXEC : 0);
lib/exec.c | cloexec-handed | a close-on-exec fd 1 is handed the wire at exec |     return shut() && LOAD(g_core.fd1_ours) && fl >= 0 && !(fl & FD_CLOEXEC) && on_diversion(1) && |     return shut() && LOAD(g_core.fd1_ours) && fl >= 0 && on_diversion(1) &&
lib/exec.c | env-on-stack | environments of up to 40,000 entries are copied on the stack | #define ENV_ON_STACK 256 | #define ENV_ON_STACK 40000
shim.c | flush-inside-stdio | the gate flushes stdout under the code a signal handler interrupted |     if (stdout_locked_here()) { |     if (stdout_locked_here() && 0) {
lib/fds.c | vfork-reads-fed | a vfork child's reads feed the parent's detector |     if (r)\n        r = !in_vfork_child(); |     if (r)\n        r = 1;
lib/fds.c | daemon-keeps-wire | a daemon(3) child keeps the wire open |     if (minding() && r == 0 && tracking() && !in_vfork_child() && LOAD(g_core.fd1_ours) && |     if (0 && minding() && r == 0 && tracking() && !in_vfork_child() && LOAD(g_core.fd1_ours) &&
lib/fds.c | not-stdin-forever | a number once found not to be stdin stays so when dup2, dup, fcntl or open makes it a copy of stdin (its reads unwatched) |         __atomic_add_fetch(&g_fd_epoch, 1, __ATOMIC_ACQ_REL); |         (void)0;
lib/fds.c | not-stdin-any-epoch | an answer "not stdin" is kept whatever the epoch |     return ((epoch << NOT_STDIN_FD_BITS) \| (unsigned long long)fd) + 1; |     return (unsigned long long)fd + 1 + 0 * epoch;
lib/reopen.c | open-keeps-not-stdin | an open by name (/proc/self/fd/0) of a number once found not to be stdin is not read as stdin |     if (fd >= 0)\n        fds_changed(); |     if (0)\n        fds_changed();
lib/reads.c | recvmsg-keeps-not-stdin | stdin received over a socket (SCM_RIGHTS) on a number once found not to be stdin is not read as stdin |     if (r >= 0 && msg->msg_controllen) { |     if (0) {
shim.c | secure-ignored | under secure execution the library still diverts |     if (gained_privileges())\n        return; |     if (0 && gained_privileges())\n        return;
lib/write.c | failsafe-copies-unseen | an answer written on a copy of fd 1 is not recognised |     return shut() && is_diversion(fd) && !in_vfork_child(); |     return shut() && fd == 1 && LOAD(g_core.fd1_ours) && !in_vfork_child();
lib/write.c | fdpass-diversion-sent | a descriptor of the diversion passed with SCM_RIGHTS goes as it is (the service outside the tree answers on stderr) |     *slot = wire; |     (void)wire;
lib/write.c | put-iovecs-first-only | a writev onto the wire that the guard puts out in pieces (messages with junk between them) sends only the first iovec of each piece: the program sees a short write, and one that does not retry (Python's os.writev) loses the rest of its messages |     return REAL(writev)(c->fd, v, n);\n} |     return put_bytes(c, v[0].iov_base, v[0].iov_len);\n}
lib/iov.h | put-empty-iovecs-loop | a writev onto the wire whose piece begins with empty iovecs (an empty header before a body, Node's write('') queued with its messages) spins for ever in the guard: the server hangs, the client waits | while (i < cnt && pos + iov[i].iov_len <= from && (pos < from \|\| iov[i].iov_len == 0)) | while (i < cnt && pos + iov[i].iov_len <= from && pos < from)
shim.c | failsafe-loud | the fail-safe's warning is not said at level 1 |         say(1, "the server answered before |         say(2, "the server answered before
shim.c | bun-not-detected | Bun programs are diverted forever |     if (valid && is(1, &wire) && !seen && is_bun_program()) { |     if (0 && valid && is(1, &wire) && !seen && is_bun_program()) {
lib/reads.c | peek-count | bytes read again after ungetc stepped back count as new input |     return a->pushed + (g_buf.fed > a->point ? (size_t)(g_buf.fed - a->point) : 0); |     return a->pushed;
lib/reads.c | peek-refill | a refill after inline reads is taken for more of the old fill |         if (!refill && g_buf.fed > from) |         if (((void)refill, g_buf.fed > from))
shim.c | summary-unsaid | the gate's opening does not sum up what the diversion took |     diverted_summary();\n    errno = saved; |     (void)diverted_summary;\n    errno = saved;
lib/reads.c | peek-backup | ungetc's backup area is taken for the main buffer |     if (fp->_flags & SG_IO_IN_BACKUP) {\n        a->point = fp->_IO_save_base; |     if (0) {\n        a->point = fp->_IO_save_base;
lib/reads.c | scanf-refill-uncounted | refills inside one scanf call are not counted |     v->counted = v->offset == SG_IO_POS_BAD; |     v->counted = 0;
lib/reads.c | ignore-wide | wide stdio readers (fgetwc, fgetws, w-scanf...) are not watched |     v->on = is_stdin_file(fp) && !in_vfork_child(); |     v->on = 0;
lib/reads.c | wide-fgetws-real | fgetws on stdin is the real one: refills inside a line go unseen |     if (wide_line_watched(fp, n))\n        return wide_line(s, n, fp, 1, "fgetws"); |     if (0)\n        return wide_line(s, n, fp, 1, "fgetws");
lib/reads.c | wide-filler | bytes of a multi-byte character read in several pieces are not counted |         feed_filler(got - kept, how); |         (void)feed_filler;
lib/reads.c | wide-refill-start | the bytes of a wide refill are counted from the wrong place |     else if (got > 0)\n        start = end - got; |     else if (got > 0)\n        start = point - 1;
lib/reads.c | isoc23-null | before glibc 2.38 __isoc23_scanf calls a NULL real function |     return f ? f : REAL(__isoc99_vfscanf); |     return f;
lib/reopen.c | reopen-unseen | opening /dev/stdout or /proc/self/fd/1 while diverted gives the diversion (the client hangs) |     return n >= 0 && is_diversion(n) && on_diversion(n) == 1 ? n : -1; |     return n >= 0 && 0 ? n : -1;
lib/reopen.c | reopen-wire-at-once | opening stdout by name gives the wire at once (junk written through it reaches the wire) |     if (in_vfork_child())\n        return give_wire(wire, flags); |     if (1)\n        return give_wire(wire, flags);
lib/reopen.c | reopen-no-swap | a stand-in is not put on the wire when the gate opens |             point_one_at_wire(e); |             (void)point_one_at_wire;
lib/reopen.c | reopen-after-gate-unguarded | stdout opened by name after the gate is not watched by the guard |     return guarding() && !gated() && path && path[0] == '/' && fd_named(path) >= 0; |     return 0 && guarding() && !gated() && path && path[0] == '/' && fd_named(path) >= 0;
lib/reopen.c | reopen-no-epoll | a stand-in's epoll registration is not made again for the wire (tokio waits forever) |     if (e->epfd >= 0 && REAL(epoll_ctl)(e->epfd, EPOLL_CTL_ADD, prog, &e->ev) < 0) |     if (0 && e->epfd >= 0 && REAL(epoll_ctl)(e->epfd, EPOLL_CTL_ADD, prog, &e->ev) < 0)
lib/fds.c | reopen-copies-unknown | the program's copies of a stand-in are not the diversion (dup2 of it onto fd 1 stays on stderr) |     if (r == 0)\n        r = on_reopened(fd); |     if (0)\n        r = on_reopened(fd);
# Equivalent (it survived the run of 2026-12-03, and this is why): the
# diversion is never a regular file.  A file (or socket, or pipe) stderr is
# drained through the helper's pipe (stderr_needs_drain), which takes the
# FIFO branch either way.  Without a helper the diversion is /dev/null, or
# stderr itself: a character device that is no terminal, or (no descriptor
# left for a helper) a pipe, which takes the FIFO branch, or a socket, whose
# open fails (ENXIO) into the same copy.  A new open of /dev/null is the
# same sink (no client gives a server another character device as stderr).
lib/reopen.c equivalent | reopen-file-reopened | a stand-in for a diversion that is no pipe is a new open file of it, not a copy |     if (sg_fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) { |     if (sg_fstat(fd, &st) == 0) {
shim.c | no-drain | the diversion is stderr itself whatever it is (a log file, a pipe nobody reads) |     if ((to_stderr && stderr_needs_drain()) \|\| logging) { |     if ((0 && stderr_needs_drain()) \|\| logging) {
shim.c | log-needs-stderr | --log with --discard (or a terminal): no helper, the log gets nothing |     if ((to_stderr && stderr_needs_drain()) \|\| logging) { |     if (to_stderr && stderr_needs_drain()) {
shim.c | summary-at-least | level 2's summary counts only what went through write, not the helper's exact count |     int exact = drained_count(&bytes, &n); |     int exact = 0 && drained_count(&bytes, &n);
# Survived the run of 2026-12-03 (it loses nothing, it changes the order of
# the junk still queued against the stderr lines written after the gate,
# exec or spawn, which the wait keeps for at most DRAIN_WAIT_MS); killed
# since by setups_stderr.bats' "helper held back" tests, which stop the
# helper and continue it at the wait's level-3 line, not at a time.
lib/helper.c | no-drain-wait | opening the gate, exec and exit do not wait for the drain |     if (!d || !is(1, &g_core.div_id) || ioctl(1, FIONREAD, &queued) != 0)\n        return; |     if (1)\n        return;
shim.c | say-blocks | the library's diagnostics wait for room on a full stderr pipe |     STORE(g_core.err, high); |     (void)REAL(fcntl)(high, F_SETFL, 0);\n    STORE(g_core.err, high);
lib/helper.c | helper-never-reaped | the library never reaps the helper's parent (a zombie where pid 1 does not reap) |     if (pid <= 0 || in_vfork_child())\n        return 1; |     if (1)\n        return 1;
lib/helper.c | exit-keeps-diversion | at exit fd 1 stays on the helper's pipe (the helper outlives the server, unreaped) |         end_diversion(); |         if (0)\n            end_diversion();
lib/internal.h | lazy-never-carries | a write to the diversion does not start the lazy helper (2 MiB before the gate: a hang) |     if (__builtin_expect(__atomic_load_n(&g_drain_in, __ATOMIC_RELAXED) >= 0, 0))\n        drain_now(why); |     (void)why;
lib/helper.c | direct-off | junk stderr takes at once still goes through a helper process started for it |     if (LOAD(g_drain_in) < 0 \|\| LOAD(g_drain_dead) \|\| LOAD(g_drain_starting) \|\| |     if (1 \|\| LOAD(g_drain_in) < 0 \|\| LOAD(g_drain_dead) \|\| LOAD(g_drain_starting) \|\|
lib/stdout.c | stdio-never-carries | C stdio that glibc writes unseen before the gate starts no helper (2 MiB: a hang) |         drain_now("C stdio");\n} |         (void)0;\n}
lib/guard.c | guard-junk-on-fd2 | junk after the gate is written on the program's own (blocking) fd 2 after a poll: another writer filling stderr between the two blocks the server for as long as nobody reads stderr |     w = fifo_put(own >= 0 ? own : 2, v, n); |     w = fifo_put(2, v, n);
lib/say.c | say-fd2-blocking | a diagnostic without the private handle (in the constructor, in a process that does not divert) is written on the program's own (blocking) fd 2 after a poll: another writer filling stderr between the two blocks the server |             fd = own >= 0 ? own : 2; |             fd = 2;
lib/say.c | say-tty-blocking | a diagnostic on a terminal stderr is a plain blocking write: a terminal nobody reads (a pty, ^S) that poll calls writable with room for part of a line holds the server in the line for ever |            (S_ISCHR(st->st_mode) && syscall(SYS_ioctl, 2, TCGETS, &t) == 0); |            (S_ISCHR(st->st_mode) && syscall(SYS_ioctl, 2, TCGETS, &t) == 0 && 0);
lib/guard.c | guard-junk-tty-blocking | junk after the gate on a terminal stderr is written on the program's own blocking fd 2: a terminal nobody reads holds the server at its first junk line after the gate |             w = REAL(writev)(own >= 0 ? own : 2, v, n); |             w = REAL(writev)(2, v, n);
lib/guard.c | stderr-sigpipe | junk written to a stderr pipe whose reader has gone raises SIGPIPE in the server |             if (p.revents & POLLERR)\n                return done ? (ssize_t)done : -1;   /* its reader has gone */\n            size_t k = v[i].iov_len - at < PIPE_BUF ? v[i].iov_len - at : PIPE_BUF;\n            ssize_t w = fifo_write(fd, (const char *)v[i].iov_base + at, k); |             size_t k = v[i].iov_len - at < PIPE_BUF ? v[i].iov_len - at : PIPE_BUF;\n            ssize_t w = REAL(write)(fd, (const char *)v[i].iov_base + at, k);\n            (void)fifo_write;
lib/helper.c | lazy-pending-dropped | bytes a lazy pipe holds when the process lets go of it are dropped |     if (!LOAD(g_drain_dead) && (drain_pending() \|\| |     if (!LOAD(g_drain_dead) && (0 \|\|
common/quiet.h | lazy-helper-no-stderr | a helper started late gets no stderr where the program made it close-on-exec (Node): lost |         long r = q->fd[i] == i ? (syscall(SYS_fcntl, i, F_SETFD, 0) < 0 && errno != EBADF ? -1 : 0) |         long r = q->fd[i] == i ? 0
lib/helper.c | lazy-start-fails-hard | a helper that cannot start leaves the diversion on a pipe nobody reads |             drain_to_null(from); |             (void)drain_to_null;
shim.c | fork-no-helper | a fork while the gate is shut starts no helper (a child's 2 MiB: a hang) |     if (LOAD(g_drain_in) >= 0 && shut())\n        drain_now("fork"); |     (void)0;
lib/system.c | system-no-helper | system() while the gate is shut starts no helper (its shell's 2 MiB: a hang) |         drain_now("system");   /* the shell writes to the diversion unseen */ |         (void)0;
lib/exec.c | strip-own-marker | exec strips a marker the program set itself (a nested wrapper) |     return is_marker(e) && g_marker[0] && n == marker_wire_len(g_marker) && |     return is_marker(e) \|\| (g_marker[0] && n == marker_wire_len(g_marker)) \|\|
lib/exec.c | musl-not-detected | a program whose loader cannot load the library gets it in LD_PRELOAD |     x->foreign = ours && (kind & RUNS_FOREIGN); |     x->foreign = 0 && (kind & RUNS_FOREIGN);
lib/exec.c | auto-strict-never | a program the library cannot enter gets the wire unguarded at exec |     x->filter = deep && (kind & RUNS_UNGUARDED); |     x->filter = 0 && (kind & RUNS_UNGUARDED);
lib/exec.c | auto-strict-ignores-opt-out | STDIOGATE_AUTO_STRICT=0 does not stop the filter at exec |     int deep = (x->hand \|\| x->guard) && LOAD(g_auto_strict) && g_helper_path[0] && argv && argv[0]; |     int deep = (x->hand \|\| x->guard) && g_helper_path[0] && argv && argv[0];
lib/exec.c | auto-strict-when-not-handing | a program that does not get the wire (fd 1 is not the wire or the diversion) is filtered too |     int deep = (x->hand \|\| x->guard) && LOAD(g_auto_strict) && g_helper_path[0] && argv && argv[0]; |     int deep = LOAD(g_auto_strict) && g_helper_path[0] && argv && argv[0];
lib/exec.c | auto-strict-static-missed | a static program is not recognised at exec |         *why = "a static program"; |         *why = NULL;
lib/exec.c | auto-strict-go-missed | a dynamically linked Go program (cgo) is not recognised at exec |     else if (sg_elf_go_note(fd, &e)) |     else if (0 && sg_elf_go_note(fd, &e))
lib/exec.c | auto-strict-bun-missed | a Bun program is not recognised at exec |     else if ((sg_elf_section_names(fd, &e) & bun) == bun) |     else if ((sg_elf_section_names(fd, &e) & bun) == bun + 1)
lib/exec.c | auto-strict-musl-missed | a musl program gets the wire unguarded at exec |             return RUNS_FOREIGN;\n        return RUNS_FOREIGN \| RUNS_UNGUARDED; |             return RUNS_FOREIGN;\n        return RUNS_FOREIGN;
lib/exec.c | auto-strict-script-level | a #! script is judged by its own file, not its interpreter |         at = interp; |         (void)interp;
lib/exec.c | spawn-actions-ignored | a posix_spawn whose file actions point fd 1 elsewhere is filtered anyway |         case SPAWN_DUP2: leaves = a[i].action.dup2_action.newfd != 1; break; |         case SPAWN_DUP2: leaves = a[i].action.dup2_action.newfd != -7; break;
lib/exec.c | spawn-chdir-touches | a chdir file action is taken to touch fd 1: the program runs unguarded (#42) |         case SPAWN_ELSEWHERE: break; |         case SPAWN_ELSEWHERE: leaves = 0; break;
lib/exec.c | filter-argv-shifted | the filtered program gets the filter's "--" as its argv[0] |     memcpy(f + 4, argv, (argc + 1) * sizeof *argv); |     memcpy(f + 3, argv, (argc + 1) * sizeof *argv);
lib/exec.c | filter-no-fallback | a filter that cannot be exec'd makes the exec fail |     REAL(execve)(g_helper_path, filter_argv(x, argv), env); |     if (REAL(execve)(g_helper_path, filter_argv(x, argv), env) < 0) _exit(127);
lib/epoll.c | epoll-not-again | fd 1's epoll registration is not made again on the wire (tokio waits forever, #42) |             REAL(epoll_ctl)(n->epfd, EPOLL_CTL_ADD, n->fd, &n->ev) == 0) |             0)
shim.c | debug-not-fixed | an invalid STDIOGATE_DEBUG is warned about in every process of the tree |     putenv(fixed); |     (void)fixed;
# ---- the library: the fail-safe's hold (lib/failsafe.c; the mutations of the
# older fail-safe that these replace no longer applied), open_gate_with and
# the summary (shim.c)
shim.c | guard-never-starts | the session guard does not start when the gate opens: junk while serving reaches the wire |     if (guard)\n        guard_start("from the gate on"); |     if (0)\n        guard_start("from the gate on");
lib/guard.c | guard-junk-nowhere | junk kept off the wire after the gate never reaches stderr |     if (!g_junk_discard) {\n        if (by == BY_OWNER && g_backlog.len) |     if (0) {\n        if (by == BY_OWNER && g_backlog.len)
lib/guard.c | guard-tail-lost | the unfinished end of a call (a message written in pieces) is neither held nor written |     if (cand != (size_t)-1 \|\| held) {\n        if (!check_fd(&f)) |     if (0) {\n        if (!check_fd(&f))
lib/guard.c | guard-owed-classified | the rest of a message the wire took only part of is classified again when the program writes it (junk) |     if (g_hold.owed) {      /* the call begins with it (apart_from_open) */ |     if (0 && g_hold.owed) {      /* the call begins with it (apart_from_open) */
lib/guard.c | guard-whole-any-size | a large message takes the lock-free path too: the rest the wire did not take is not owed (a handler's message lands inside it, the rest goes to stderr) |         LOAD(g_queue.len) \|\| LOAD(g_backlog.len) \|\| iov_total(iov, cnt) > PIPE_BUF) |         LOAD(g_queue.len) \|\| LOAD(g_backlog.len))
lib/guard.c | guard-no-queue | a signal handler's message is written at once, inside the message it interrupted |     if (queue && queue_add(f->iov, f->cnt, from, to)) { |     if (0 && queue && queue_add(f->iov, f->cnt, from, to)) {
lib/guard.c | guard-stale-fd-kept | a descriptor the program pointed elsewhere by itself (freopen) stays guarded: its junk goes to stderr |         f->checked = is(f->c->fd, &g_core.wire_id) ? 1 : -1; |         f->checked = 1;
lib/guard.c | guard-held-kept-at-exit | an unfinished line held at exit or exec is not put on stderr |     if (g_hold.len) {\n        struct iovec v = { g_hold.buf, g_hold.len }; |     if (0) {\n        struct iovec v = { g_hold.buf, g_hold.len };
lib/guard.c | guard-backlog-full-drops | junk that does not fit in the backlog is dropped at once while stderr is being read (a 3 MiB log line cut at 1 MiB) |     while (total - skip > sizeof g_backlog.buf - g_backlog.len) { |     while (0 && total - skip > sizeof g_backlog.buf - g_backlog.len) {
lib/guard.c | guard-queue-fixed | the queue of messages written apart from a message the wire takes slowly does not grow: past 256 KiB a signal handler's message lands inside the answer |     while (cap < waiting + n && cap < QUEUE_MAX) |     while (0 && cap < waiting + n && cap < QUEUE_MAX)
lib/guard.c | guard-stall-forgotten | a stderr found stalled is waited for again at every junk line that overflows the backlog (5 s each) |         if (g_junk_stalled)\n            break; |         if (0 && g_junk_stalled)\n            break;
lib/guard.c | guard-socket-full-gone | a full stderr socket is taken for one whose reader has gone: junk dropped at once, the backlog given up |         return w < 0 && errno == EAGAIN ? 0 : w;    /* full, not gone: it takes nothing now */ |         return w;    /* full, not gone: it takes nothing now */
lib/guard.c | guard-no-backlog | junk stderr cannot take at once (a line longer than its pipe) is cut, not kept for later |         if (by == BY_OWNER && w >= 0 && done < total)\n            backlog_keep(v, n, done); |         if (0)\n            backlog_keep(v, n, done);
lib/guard.c | guard-held-apart-joined | another thread's whole message between an answer's JSON and its newline is taken as their continuation: both are lost as junk |                 if (held && whole_alone(iov, cnt, from)) { |                 if (0 && held && whole_alone(iov, cnt, from)) {
lib/guard.c | guard-eintr-retried | a write of the held bytes interrupted by a signal is retried inside the library: a server that bounds a blocked write with a signal stays blocked |         return REAL(writev)(f->c->fd, v, n);     /* EINTR is the program's */ |         ssize_t w;\n        do\n            w = REAL(writev)(f->c->fd, v, n);\n        while (w < 0 && errno == EINTR);\n        return w;
lib/guard.c | guard-undone-pending | held bytes the wire took nothing of become the wire's to write later (at exit, to a client that may never read) instead of staying held |     if (out == 0 && held) { |     if (0 && out == 0 && held) {
lib/guard.c | guard-owed-by-thread | the rest of a message the wire took in part is recognised only from the thread whose write came back short: another thread's retry is classified alone (junk) |     if (!g_hold.owed \|\| owed_retry(iov, cnt))\n        return 0; |     if (!g_hold.owed \|\| (owed_retry(iov, cnt) && g_hold.owed_by == this_thread()))\n        return 0;
lib/guard.c | guard-held-set-apart | a call while bytes are held is set apart (classified alone) instead of continuing the stream: the newline another thread writes after tokio's JSON is lost |     if (!g_hold.owed \|\| owed_retry(iov, cnt))\n        return 0; |     if (g_hold.len)\n        return 1;\n    if (!g_hold.owed \|\| owed_retry(iov, cnt))\n        return 0;
lib/guard.c | guard-step-stop-ignored | a large answer put in steps goes on after the wire took part of a step (a slow client, a non-blocking stdout): the next step is written while the rest of the last is owed, and the client reads the answer with a hole in it | * call ends inside one). */\n                    run_out(&f);\n                    if (f.stop)\n                        break; | * call ends inside one). */\n                    run_out(&f);
lib/guard.c | guard-blocking-eagain | a server whose stdout is blocking and whose signal handler writes messages: a write of its own that the signal cut short inside bytes the guard held returns EAGAIN, a lie on a blocking descriptor: the server's write loop gives up and its answers are lost | if (w > 0 && blocking(f->c->fd) && pend_out(f)) { | if (0 && w > 0 && blocking(f->c->fd) && pend_out(f)) {
lib/stdout.c | stdout-unguarded | C stdio's buffer reaches the wire with glibc's own write after the gate |     return fp && guarding() && fp->_mode <= 0 && guard_fd(fp->_fileno) && stdio_flags_known(); |     return 0 && fp && guarding() && fp->_mode <= 0 && guard_fd(fp->_fileno) && stdio_flags_known();
lib/stdout.c | stdout-exit-unpushed | stdout's buffer left at exit is written by glibc, past the guard |     if (!on_wire(fp) \|\| stdout_locked_here())\n        return; |     if (1)\n        return;
lib/system.c | system-unguarded | system(3)'s shell runs on the wire without the guard |     say(3, "system: the shell starts on the wire with the guard");\n    return run_shell(line); |     (void)run_shell;\n    return REAL(system)(line);
lib/transfer.c | transfer-unguarded | sendfile, splice and vmsplice onto the wire go past the guard |     return guarding() && !shut() && guard_fd(fd); |     return 0 && guard_fd(fd);
lib/exec.c | guard-child-no-marker | a program started on the wire after the gate does not get the guard |     x->guard = !x->hand && check && should_guard_child(); |     x->guard = 0 && !x->hand && check && should_guard_child();
lib/failsafe.c | failsafe-no-trigger | an answer written to the diversion does not open the gate |             } else if (is_answer) { |             } else if (0 && is_answer) {
lib/failsafe.c | failsafe-frame-unheld | a frame passed at its header (the framing fixed: --protocol framed) is not held for its body: no such frame opens the gate |     if (unread) { |     if (0) {
lib/failsafe.c | failsafe-frame-fixes-framing | protocol that is no answer (a raw HTTP response) fixes the framing before the gate: the JSON-lines answers after it are not seen |     if (!*answer)\n        g_hold.s.protocol = protocol; |     if (0)\n        g_hold.s.protocol = protocol;
protocol/detect.h | answer-frame-bound-junk | a frame whose body reaches the bound before it proves an answer is none, in doubt or not |         return sg_reply_answer(&s->reply) \|\| (s->reply.cut && sg_reply_may_answer(&s->reply)); |         return sg_reply_answer(&s->reply);
lib/failsafe.c | failsafe-held-lost | the pieces of an answer held from earlier writes are not put on the wire with it |                 struct iovec answer[2] = { { g_hold.buf, g_hold.len }, { (void *)(p + off), k } }; |                 struct iovec answer[2] = { { g_hold.buf, 0 }, { (void *)(p + off), k } };
lib/failsafe.c | failsafe-junk-lost | junk the hold decided is dropped instead of diverted |                 batch_add(&b, fd, p + off, k, how); |                 batch_add(&b, fd, p + off, 0, how);
lib/failsafe.c | failsafe-first-iovec | only the first iovec of a writev goes through the hold |     for (int i = 0; i < cnt; i++) {\n        const unsigned char *p = iov[i].iov_base; |     for (int i = 0; i < cnt && i < 1; i++) {\n        const unsigned char *p = iov[i].iov_base;
lib/failsafe.c | failsafe-hold-forgets | undecided bytes of a write are not kept for the next one (an answer in pieces is lost) |                     memcpy(g_hold.buf + g_hold.len, p + off, k);\n                    g_hold.len += k; |                     memcpy(g_hold.buf + g_hold.len, p + off, k);
lib/stdout.c | failsafe-stdio-unseen | an answer in stdout's buffer at fflush is not looked at before the gate |     if (fp == NULL \|\| fp == stdout)\n        stdout_through_hold("fflush"); |     if (0)\n        stdout_through_hold("fflush");
lib/failsafe.c | failsafe-stdio-unhidden | what the hold took from stdout's buffer stays in it (written twice) |         fp->_IO_write_ptr = base + (len - taken); |         (void)0;
shim.c | failsafe-no-exit | answers left in stdout's buffer at exit are not looked at |         stdout_through_hold("exit");\n        hold_settle("exit", 0); |         (void)0;\n        hold_settle("exit", 0);
shim.c | hold-settle-exit | junk held at exit is never written |         stdout_through_hold("exit");\n        hold_settle("exit", 0); |         stdout_through_hold("exit");\n        (void)0;
shim.c | hold-settle-_exit | junk held at _exit is never written |     if (gated() && shut())\n        hold_settle("_exit", 0); |     if (0)\n        hold_settle("_exit", 0);
shim.c | hold-settle-open | junk held when the gate opens (by a read) is never written |     hold_settle(how, 1);\n    flush_stdout(); |     (void)0;\n    flush_stdout();
shim.c | open-gate-first-reversed | the pieces of the answer that opens the gate reach the wire in reverse order |     for (int i = 0; i < nfirst; i++)\n        write_whole(wire, first[i].iov_base, first[i].iov_len, 0); |     for (int i = nfirst - 1; i >= 0; i--)\n        write_whole(wire, first[i].iov_base, first[i].iov_len, 0);
shim.c | open-gate-first-dropped | the answer that opens the gate is not written at all |     for (int i = 0; i < nfirst; i++)\n        write_whole(wire, first[i].iov_base, first[i].iov_len, 0); |     for (int i = 0; i < nfirst && 0; i++)\n        write_whole(wire, first[i].iov_base, first[i].iov_len, 0);
shim.c | exit-work-in-destructor | the exit work runs in the destructor: what the program's own libraries write at exit, after it, is lost or unguarded |     if (in_vfork_child() \|\| !exit_after_destructors(stdiogate_exit)) |     if (1 \|\| !exit_after_destructors(stdiogate_exit))
shim.c | exit-work-not-strict | a process under the filter has no exit work: the pipe is never let go, the filter never reaped |     return gated() \|\| guarding() \|\| helper_pending() \|\| strict_pending(); |     return gated() \|\| guarding() \|\| helper_pending();
lib/failsafe.c | failsafe-rest-while-opening | a write that waited for the hold while another thread began to open the gate puts its rest (an answer) on the diversion |     if (taken < total && LOAD(g_core.state) == GATE_OPENING) { |     if (0) {
lib/iov.h | summary-lines-uncounted | the level-2 summaries count no lines |             lines++;\n            c++; |             c++;
# ---- detect.h: the first-message detector
protocol/detect.h | detect-cr-not-blank | a CR before the first message is not skipped (it starts a line) |     return c == ' ' || c == '\\t' || c == '\\r' || c == '\\n'; |     return c == ' ' || c == '\\t' || c == '\\n';
protocol/detect.h | detect-name-short | a header named "content-lengt" is taken for Content-Length, the real one is not |             d->length_line = d->name_len == sizeof name - 1; |             d->length_line = d->name_len == sizeof name - 2;
protocol/detect.h | detect-max-length-loose | a Content-Length of exactly 2^40 is garbage, not a promise (< for <=) |         if (!d->line_bad && d->value_digits && d->value <= SG_MAX_CONTENT_LENGTH) { |         if (!d->line_bad && d->value_digits && d->value < SG_MAX_CONTENT_LENGTH) {
protocol/detect.h | detect-body-strict | a body that ends exactly at the end of a read is not seen to end (> for >=) |             if ((unsigned long long)avail >= d->length) { |             if ((unsigned long long)avail > d->length) {
protocol/detect.h | detect-body-one-more | the message ends one byte after its body |                 i += (size_t)(d->length - 1); |                 i += (size_t)d->length;
protocol/detect.h | detect-empty-body | Content-Length: 0 waits for a body |     if (!d->has_length || d->bad_length || d->length == 0) |     if (!d->has_length || d->bad_length)
protocol/detect.h | detect-newline-in-string | a raw newline inside a JSON string does not end the line |     if (c == '\\n')\n        return 1;\n    if (d->in_string) { |     if (d->in_string) {
protocol/detect.h | detect-escape-ignored | an escaped quote ends the string |         else if (c == '\\\\')\n            d->escaped = 1; |         else if (0)\n            d->escaped = 1;
protocol/detect.h | detect-first-line-plain | a first line with no "name:" is read as a header block |     if (d->first_line && d->field == SG_NAME)\n        return 1; |     if (0)\n        return 1;
# Saturating at 2^64 - 1 levels takes 2^64 bytes of '[': no input can tell.
protocol/detect.h equivalent | detect-depth-unsaturated | JSON nesting is not saturated (wraps after 2^64 - 1 levels) |         if (d->depth != SG_DEPTH_CAP)\n            d->depth++; |         d->depth++;
# ---- detect.h: the stream classifier (strict mode, the fail-safe, --check)
protocol/detect.h | reply-no-dap | a DAP response's body (request_seq) is no proof of an answer |     return ((k & SGK_ID) && (k & (SGK_RESULT \| SGK_ERROR))) \|\| (k & SGK_REQUEST_SEQ); |     return ((k & SGK_ID) && (k & (SGK_RESULT \| SGK_ERROR)));
protocol/detect.h | reply-names-any-depth | a frame body's nested member names count as top-level ones |             r->want_name = r->depth == 1; |             r->want_name = 1;
protocol/detect.h | reply-escape-ignored | an escaped quote in a frame body's string ends it |     if (r->escaped \|\| c == '\\\\') { |     if (r->escaped) {
protocol/detect.h | reply-bound-method | at the bound, a frame body with "method" may still be an answer |     return r->where == SR_OBJECT && !(r->keys & (SGK_METHOD \| SGK_EVENT)); |     return r->where == SR_OBJECT;
protocol/detect.h | frame-auto-unread | the framing not fixed, a frame passes at its header, its body unread (a raw HTTP response fixes the session to frames) |                 if (s->protocol == SG_AUTO) { |                 if (0) {
protocol/detect.h | frame-body-any | the framing not fixed, a frame passes whatever its body |     return r->where == SR_CLOSED && ((k & (SGK_JSONRPC \| SGK_METHOD)) \|\| sg_reply_answer(r) \|\| |     return r->where == SR_CLOSED && (1 \|\| sg_reply_answer(r) \|\|
protocol/detect.h | frame-bound-doubt-junk | the framing not fixed, a frame whose body reaches the bound is junk even if it is an object |     return r->where == SR_OBJECT;\n} |     return r->where == SR_OBJECT && 0;\n}
protocol/detect.h | prefix-no-jsonrpc | a message that begins {"jsonrpc":"2.0", taken whole, has no "jsonrpc" (it fails at its close) |     s->has_jsonrpc = 1;\n    s->keys = SGK_JSONRPC; |     s->has_jsonrpc = 0;\n    s->keys = SGK_JSONRPC;
protocol/detect.h | prefix-then-value | after {"jsonrpc":"2.0", taken whole a value is expected, not a name |     s->json = SJ_NAME;\n    s->held = SG_RPC_PREFIX_LEN; |     s->json = SJ_VALUE;\n    s->held = SG_RPC_PREFIX_LEN;
protocol/detect.h | hold-max-plus-one | a candidate is decided at byte 65537, not 65536 |                 if (r == 2 \|\| ++held == SG_HOLD_MAX)\n |                 if (r == 2 \|\| ++held == SG_HOLD_MAX + 1)\n
protocol/detect.h | hold-string-past-bound | the runs of string bytes and digits go past the bound (a candidate held beyond SG_HOLD_MAX) |     unsigned long long room = SG_HOLD_MAX - 1 - held; |     unsigned long long room = SG_HOLD_MAX - held;
protocol/detect.h | header-max-plus-one | a header block of 4097 bytes passes (SG_HEADER_MAX off by one) |             if (++s->held == SG_HEADER_MAX) { |             if (++s->held == SG_HEADER_MAX + 1) {
protocol/detect.h | depth-max-plus-one | a candidate nested 4097 deep is not decided at the bound |     if (s->depth == SG_DEPTH_MAX)\n        return 2; |     if (s->depth == SG_DEPTH_MAX + 1)\n        return 2;
protocol/detect.h | bound-unnamed-passes | at the bound, a candidate with no member name at all is protocol |     if (!s->rpc_names || !s->named)\n        return 0; |     if (!s->rpc_names)\n        return 0;
protocol/detect.h | bound-name-prefix | at the bound, a name cut short ("i" of "id") is not taken as a JSON-RPC one |         return s->name_len != 0xff && sg_is_rpc_name(s->name, s->name_len, 1); |         return s->name_len != 0xff && sg_is_rpc_name(s->name, s->name_len, 0);
protocol/detect.h | no-jsonrpc-passes | an object without "jsonrpc" passes |     if (c == '}' && s->depth == sg_record_level(s) && !s->has_jsonrpc) |     if (0 && c == '}' && s->depth == sg_record_level(s) && !s->has_jsonrpc)
protocol/detect.h | empty-batch-passes | an empty batch [] passes |     if (c == ']' && s->batch && s->depth == 1 && !s->elements) |     if (0 && c == ']' && s->batch && s->depth == 1 && !s->elements)
protocol/detect.h | auto-not-decided-by-json | auto mode does not keep jsonl after a JSON line |     s->where = SW_OUTSIDE;\n    s->protocol = SG_JSONL;\n    s->held = 0; |     s->where = SW_OUTSIDE;\n    s->held = 0;
protocol/detect.h | end-drops-held | a candidate cut short by the end of the output is not junk (lost) |     enum sg_verdict v = s->held ? SG_JUNK : SG_UNDECIDED; |     enum sg_verdict v = SG_UNDECIDED;
protocol/detect.h | frame-start-mid-line | a header block starts at any name byte, also after junk on its line (glued junk before Content-Length is taken for a name) |             int frame = s->protocol != SG_JSONL && (c == 'C' \|\| c == 'c' \|\| (s->bol && sg_is_tchar(c))); |             int frame = s->protocol != SG_JSONL && (c == 'C' \|\| c == 'c' \|\| sg_is_tchar(c));
protocol/detect.h | header-name-no-underscore | a header name with an underscore (X_Request_Id) fails its frame |           (c != 0 && __builtin_strchr("!#$%&'*+-.^_`\|~", c) != 0); |           (c != 0 && __builtin_strchr("!#$%&'*+-.^`\|~", c) != 0);
protocol/detect.h | answer-without-id | a message with "result" but no "id" counts as an answer |     return (k & SGK_JSONRPC) && (k & SGK_ID) && (k & (SGK_RESULT \| SGK_ERROR)); |     return (k & SGK_JSONRPC) && (k & (SGK_RESULT \| SGK_ERROR));
protocol/detect.h | answer-request | a request (method, no result) counts as an answer |     return (k & SGK_JSONRPC) && (k & SGK_ID) && (k & (SGK_RESULT \| SGK_ERROR)); |     return (k & SGK_JSONRPC) && (k & SGK_ID);
protocol/detect.h | control-in-string | a raw control character inside a string passes |         if (c < 0x20)\n            return 0;           /* control characters must be escaped */ |         if (c < 0x1f)\n            return 0;           /* control characters must be escaped */
protocol/detect.h | trailing-cr-junk | a CR between a message and its newline fails it |     return c <= ' ' && ((1ULL << ' ' \| 1ULL << '\t' \| 1ULL << '\r') >> c) & 1; |     return c <= ' ' && ((1ULL << ' ' \| 1ULL << '\t') >> c) & 1;
protocol/detect.h | line-no-jsonrpc-passes | a line read at once (sg_json_line) passes an object without "jsonrpc" |     if (c == '}' && depth == record && !has_jsonrpc) |     if (0 && c == '}' && depth == record && !has_jsonrpc)
protocol/detect.h | line-error-no-answer | a line read at once (sg_json_line) with "error" is no answer (the fail-safe waits for a proof) |         found \|= key & ~SG_RPC_NAME; |         found \|= key & ~SG_RPC_NAME & ~SGK_ERROR;
protocol/detect.h | line-escaped-name | a line read at once (sg_json_line) compares a member name with an escape as written ("json\\u0072pc" is not "jsonrpc") |         if (p[i] != '\\\\' \|\| name) |         if (p[i] != '\\\\' \|\| (name && 0))
protocol/detect.h | line-prefix-no-jsonrpc | a line read at once that begins with the usual prefix ({\"jsonrpc\":\"2.0\",) is not seen to have \"jsonrpc\": no answer (the fail-safe waits for a proof) |         found = SGK_JSONRPC; |         found = 0;
protocol/detect.h | one-line-then-junk | a call that is one message, its newline and then more (junk after the answer in one write) is taken whole: the junk goes to the wire with the answer | sg_json_line_to(p, n - 1, NULL) == n; | sg_json_line(p, n, NULL) != 0;
protocol/detect.h | one-line-only | a newline before a message's close fails it: a pretty-printed answer goes to stderr line by line |     return sg_json_candidate_byte(s, sg_json_in_string(s) ? '\\n' : ' '); |     return sg_json_candidate_byte(s, '\\n');
protocol/detect.h | lines-swallow | a line that begins with '{' goes into a candidate over lines (a one-line answer after a junk line ending in '[' is lost) |                     else if (p[i] == '{' \|\| p[i] == '[')\n                        goto fail; |                     else if (0)\n                        goto fail;
protocol/detect.h | lines-swallow-across-calls | a line that begins with '{' in the next write goes into a candidate over lines |                 if (c == '{' \|\| c == '[')\n                    goto fail;\n            } |                 if (0)\n                    goto fail;\n            }
protocol/detect.h | lines-bound-one-line | a candidate over lines taken at the bound streams only through its next newline (the rest of the message to stderr) |     if (s->lines)\n        sg_value_commit(s, deep); |     if (0)\n        sg_value_commit(s, deep);
# (the one-line parse's shortcuts and the write path's, issue 43)
protocol/detect.h | perf-block-control-chars | a string with a raw control character (a tab, written unescaped by a careless JSON writer) in a one-line message of 16 bytes or more is taken as protocol after the gate: the client's JSON parser rejects the line | (sg_v16)((v == '"') \| (v == '\\\\') \| (v < 0x20)); | (sg_v16)((v == '"') \| (v == '\\\\'));
protocol/detect.h | perf-common-name-no-colon | a line whose top-level "id" is followed by anything but its colon ('{"jsonrpc":"2.0","id"=1}') is taken as protocol by the guard's one-line path and reaches the client | if (c != d \|\| p[4] != ':') | if (c != d)
protocol/detect.h | perf-common-name-result-unkeyed | an answer whose "result" is read by the one-line path is not known as an answer: the fail-safe does not open the gate at a server's first answer (the wire keeps its junk until the client's next message) | { "\"result\":", 9, SGK_RESULT }, | { "\"result\":", 9, 0 },
# ---- filter/*.c: stdiogate-filter (not its signal set-up, being rewritten)
filter/launcher.c | filter-127 | COMMAND not found exits 126, not 127 |     exit(e == ENOENT ? 127 : 126); |     exit(126);
filter/launcher.c | filter-usage-status | bad usage exits 1, not 125 |             what);\n    exit(125); |             what);\n    exit(1);
filter/launcher.c | filter-discard-env | STDIOGATE_DISCARD=1 is not honoured under --strict |     int discard = sg_env_discard(getenv(SG_ENV_DISCARD)), i; |     int discard = 0, i;
filter/junk.c | filter-stderr-is-wire | with 2>&1, junk goes to stderr, that is onto the wire |     if (fstat(WIRE, &wire) == 0 && err.st_dev == wire.st_dev && err.st_ino == wire.st_ino) { |     if (0 && fstat(WIRE, &wire) == 0 && err.st_dev == wire.st_dev && err.st_ino == wire.st_ino) {
filter/junk.c | filter-stderr-blocking | the filter's handle on a stderr pipe is blocking (a full stderr stalls the wire) |         int fd = open("/proc/self/fd/2", O_WRONLY \| O_NONBLOCK \| O_CLOEXEC \| O_NOCTTY); |         int fd = open("/proc/self/fd/2", O_WRONLY \| O_CLOEXEC \| O_NOCTTY);
# The filter process never calls exec (filter_run ends in _exit), so close-on-exec on its
# own handle of stderr changes nothing.
filter/junk.c equivalent | filter-stderr-cloexec | the filter's handle on stderr is not close-on-exec |         int fd = open("/proc/self/fd/2", O_WRONLY \| O_NONBLOCK \| O_CLOEXEC \| O_NOCTTY); |         int fd = open("/proc/self/fd/2", O_WRONLY \| O_NONBLOCK \| O_NOCTTY);
filter/junk.c | filter-socket-blocking | junk sent to a stderr socket may block the filter (MSG_DONTWAIT dropped) |         w = sendmsg(g_err.fd, &m, MSG_DONTWAIT \| MSG_NOSIGNAL); |         w = sendmsg(g_err.fd, &m, MSG_NOSIGNAL);
filter/relay.c | filter-held-forgotten | a candidate that goes on in the next read loses its first part |         memcpy(held + nheld, buf + undecided, (size_t)n - undecided);\n        nheld += (size_t)n - undecided; |         memcpy(held + nheld, buf + undecided, (size_t)n - undecided);
filter/relay.c | filter-end-held-lost | a candidate cut short by the server's exit is dropped, not junk |     if (sg_stream_end(&s) == SG_JUNK) { |     if (sg_stream_end(&s) == SG_WIRE) {
common/junk.h | filter-log-unprefixed | the log's lines are not prefixed with the server's name and pid |             if (!log->mid_line)\n                out[k++] = (struct iovec){ log->prefix, log->prefix_len }; |             if (0)\n                out[k++] = (struct iovec){ log->prefix, log->prefix_len };
filter/drain.c | filter-drain-lines-uncounted | the helper does not count the lines it took (level 2 says 0 lines) |     __atomic_add_fetch(&g_counters->lines, lines, __ATOMIC_RELEASE); |     (void)lines;
filter/relay.c | filter-partial-uncounted | the exit line does not count a junk line without its newline |     g_stats.partial = p[n - 1] != '\\n'; |     g_stats.partial = 0;
filter/relay.c | filter-pipe-never-grown | a message too large to hold does not grow the pipes |     if (now > 0 && now < BIG_PIPE) |     if (now > 0 && now > BIG_PIPE)
filter/relay.c | filter-keeps-fd4 | the filter keeps descriptor 4 it inherited |     close(0);\n    sg_close_from(4); |     close(0);\n    sg_close_from(5);
filter/launcher.c | strict-marker-unnamed | the filter is not named to COMMAND: nothing reaps it (a zombie where pid 1 does not reap) |         setenv(SG_ENV_WIRE, marker, 1); |         unsetenv(SG_ENV_WIRE);
lib/strict.c | strict-exit-unflushed | at exit the pipe is let go before the program's own streams on it are flushed (their last answer lost, or the filter left behind) |             fflush_unlocked(fp); |             (void)0;
lib/strict.c | strict-no-let-go | at exit the server keeps the filter's pipe open: the filter outlives it (a zombie) |         each_descriptor(let_go, null); |         each_descriptor(let_go, -1);
lib/strict.c | strict-exit-waits-for-holder | a server whose background child holds stdout waits at exit for the filter, which ends only after the child |         if (held_elsewhere(watch)) |         if (0 && held_elsewhere(watch))
lib/strict.c | strict-exit-hup-unseen | the server stops waiting for the filter at exit although no other process holds its pipe (the filter a zombie where pid 1 does not reap) |     return watch >= 0 && poll(&p, 1, 0) == 0 && |     return watch >= 0 && poll(&p, 1, 0) >= 0 &&
filter/relay.c | filter-hup-unseen | a client that hangs up (POLLHUP) is not seen until the next write |         if (pfd[0].revents & (POLLERR \| POLLHUP)) |         if (pfd[0].revents & POLLERR)
filter/launcher.c | filter-framed-is-auto | --protocol framed is taken as auto |          : strcmp(v, "framed") == 0 ? SG_FRAMED : -1; |          : strcmp(v, "framed") == 0 ? SG_AUTO : -1;
filter/launcher.c | filter-jsonl-is-auto | --protocol jsonl is taken as auto |     return !v ? -1 : strcmp(v, "auto") == 0 ? SG_AUTO : strcmp(v, "jsonl") == 0 ? SG_JSONL |     return !v ? -1 : strcmp(v, "auto") == 0 ? SG_AUTO : strcmp(v, "jsonl") == 0 ? SG_AUTO
# Not strictly equivalent, but no test can tell without a race: the backlog is
# only non-empty when stderr was full at the last write, and each loop drains
# the backlog (poll, backlog_drain) before it reads and writes new junk; after
# a drain either the backlog is empty or stderr is full again, so new junk is
# written first only if stderr's reader makes room between that drain and
# the next write, within one pass of the loop.  Not counted.
filter/junk.c equivalent | filter-junk-overtakes | new junk is written before the junk still queued for stderr |     if (g_backlog.len == 0) {   /* else the new junk queues behind the old */ |     if (1) {   /* else the new junk queues behind the old */
filter/relay.c | filter-client-gone-ignored | the filter goes on after the client closed the wire (EPIPE retried) |             if (errno == EINTR)\n                continue;\n            if (errno == EAGAIN) {  /* the client handed us a non-blocking wire */ |             if (errno == EINTR || errno == EPIPE)\n                continue;\n            if (errno == EAGAIN) {  /* the client handed us a non-blocking wire */
# ---- check/*.c: stdiogate-check (--inspect, --wrapper, --environment, --check)
check/wrapper.c | check-no-drop | a program whose loader cannot load the library still gets it (status 1, not 2) |     return sg_drop_library(r) ? 2 : 1; |     return 1;
check/wrapper.c | check-strict-warns | under --strict the step-aside warnings are still printed |     if (!quiet)\n        say("stdiogate: warning: %s\\n", line); |     if (!quiet || 1)\n        say("stdiogate: warning: %s\\n", line);
check/wrapper.c | check-warning-order | a static Go program is called a Go program, not a static one |     static const unsigned order[] = { SG_SETUID, SG_SETGID, SG_CAPABILITIES, SG_DOCKER,\n                                      SG_FOREIGN_LOADER, SG_STATIC, SG_GO, SG_BUN }; |     static const unsigned order[] = { SG_SETUID, SG_SETGID, SG_CAPABILITIES, SG_DOCKER,\n                                      SG_FOREIGN_LOADER, SG_GO, SG_STATIC, SG_BUN };
check/wrapper.c | check-debug-uncapped | -vvvv gives STDIOGATE_DEBUG=5 |         int wanted = verbosity + 1 > 4 ? 4 : verbosity + 1; |         int wanted = verbosity > 4 ? 4 : verbosity + 1;
common/env.h | check-debug-01 | STDIOGATE_DEBUG=01 (or +1) is taken without a warning |     return SG_LEVEL_INVALID;\n} |     return *level == value && !*p ? SG_LEVEL_VALID : SG_LEVEL_INVALID;\n}
check/wrapper.c | check-debug-lower | an explicit STDIOGATE_DEBUG higher than -v asks for is lowered |         level = level > wanted ? level : wanted; |         level = wanted;
check/wrapper.c | check-shell-unset-kept | a variable the wrapper's shell added (dash's PWD) reaches COMMAND |         if (was)\n            put_export(*e, n, was);\n        else\n            printf("unset %.*s\\n", (int)n, *e); |         if (was)\n            put_export(*e, n, was);
check/wrapper.c | check-lost-not-restored | a caller's variable the wrapper's shell dropped does not reach COMMAND |             if (n < sizeof name && !getenv(name))\n                put_export(e, n, eq + 1); |             if (n < sizeof name && !getenv(name) && 0)\n                put_export(e, n, eq + 1);
check/wrapper.c | check-digit-name | a caller's variable named with a leading digit is exported by the eval (a shell error) |     if (len == 0 || (e[0] >= '0' && e[0] <= '9')) |     if (len == 0)
check/wrapper.c | check-quote-unescaped | a ' in a restored value is not escaped (the eval breaks) |         if (*value == '\\'')\n            fputs("'\\\\''", stdout); |         if (0)\n            fputs("'\\\\''", stdout);
check/wrapper.c | check-bad-interpreter-unsaid | a #! script whose interpreter is missing ends with the shell's raw message |     if (known && bad_interpreter(path, &r))\n        return 1; |     if (0 && known && bad_interpreter(path, &r))\n        return 1;
check/wrapper.c | check-preload-replaced | the caller's LD_PRELOAD entries are dropped |     sprintf(value, "%s%s%s", library, preload && *preload ? " " : "", preload ? preload : ""); |     sprintf(value, "%s", library);
check/wrapper.c | check-wire-own-pipe | with stdout closed, the $(...) pipe is named as the wire |         if (stat(fd1, &st) != 0 \|\| (open1 && mine.st_dev == st.st_dev && mine.st_ino == st.st_ino)) |         if (stat(fd1, &st) != 0 \|\| (open1 && 0))
check/wrapper.c | answer-fd-left-open | the here-document's descriptor the checker answers on is handed to COMMAND |         printf("exec %d<&-\\n", answer_fd); |         (void)0;
check/wrapper.c | answer-any-file | the checker answers into whatever the descriptor is (a shell's /dev/null for an empty here-document) |     if (fstat(w, &st) != 0 \|\| !(S_ISFIFO(st.st_mode) \|\| S_ISREG(st.st_mode))) { |     if (fstat(w, &st) != 0) {
check/wrapper.c | check-say-blocking | the checker's own handle on stderr is opened blocking: a terminal poll() calls writable though a line does not fit holds the wrapper before it execs COMMAND |     int fd = open("/proc/self/fd/2", O_WRONLY \| O_NONBLOCK \| O_NOCTTY \| O_CLOEXEC); |     int fd = open("/proc/self/fd/2", O_WRONLY \| O_NOCTTY \| O_CLOEXEC);
# answer_fits makes room for the whole answer before its first byte is
# written (an answer is at most a few variables of 128 KiB each, a pipe grows
# to 1 MiB), so the write never finds the pipe full: O_NONBLOCK is a second
# guard only.
check/wrapper.c equivalent | answer-blocks | an answer larger than the pipe holds waits for a reader that waits for the checker |     int w = open(path, O_WRONLY \| O_TRUNC \| O_NONBLOCK \| O_CLOEXEC); |     int w = open(path, O_WRONLY \| O_TRUNC \| O_CLOEXEC);
check/wrapper.c | answer-unfitted | an answer larger than the pipe holds at first is not given room: the checker speaks twice (the second time through $(...)) |     return !answer_fits() \|\| fflush(stdout) != 0 \|\| ferror(stdout) ? 3 : 0; |     return (0 && !answer_fits()) \|\| fflush(stdout) != 0 \|\| ferror(stdout) ? 3 : 0;
stdiogate | answer-no-fallback | an answer the checker could not give on the descriptor is not asked for again |         set -- "$("$checker" --wrapper "$$" "$verbosity" "$library" "$resolved" ${strict:+--strict})" "$@" |         set -- : "$@"
stdiogate | answer-unchecked | the wrapper execs COMMAND without the answer having run whole |     [ "$1" = answered ] \|\| die 125 "lost the answer of stdiogate-check, beside the library" |     [ "$1" = answered ] \|\| true
check/main.c | check-usage-status | stdiogate-check with bad arguments exits 1, not 125 |                     "       stdiogate-check --check [OPTION]... [--] COMMAND [ARG]... (stdiogate --check)\\n");\n    return 125; |                     "       stdiogate-check --check [OPTION]... [--] COMMAND [ARG]... (stdiogate --check)\\n");\n    return 1;
check/report.c | check-gated-is-strict | a server fixed by the default mode is reported as needing --strict (status 2) |         v->status = 1;\n        snprintf(v->summary, sizeof v->summary, "%s; stdiogate's default mode keeps them off the wire", junk); |         v->status = 2;\n        snprintf(v->summary, sizeof v->summary, "%s; stdiogate's default mode keeps them off the wire", junk);
check/report.c | check-errors-clean | a run with wrong ids or missing answers counts as clean |     return !r->skipped && r->started && !died_before_answering(r) && junk_bytes(r) == 0 &&\n           protocol_errors(r) == 0; |     return !r->skipped && r->started && !died_before_answering(r) && junk_bytes(r) == 0;
check/report.c | check-exit-junk-unsaid | junk at exit is left out of the description |     for (int phase = PHASE_BEFORE; phase <= PHASE_EXIT && k < cap; phase++) { |     for (int phase = PHASE_BEFORE; phase < PHASE_EXIT && k < cap; phase++) {
check/report.c | check-timeout-is-errors | a run with no answer within --timeout gets a protocol-error verdict, not timed out |     if (runs[0].answer_timeout)\n        return 1; |     if (0)\n        return 1;
check/report.c | check-entry-relative | a relative script path stays relative in the printed entry |     return absolute(arg); |     return (char *)arg;
check/report.c | check-entry-bare-stdiogate | the printed entry names stdiogate as the wrapper was called |         scratch[k++] = realpath(o->wrapper, real) ? absolute(real) : absolute(o->wrapper); |         scratch[k++] = ((void)real, (char *)o->wrapper);
check/report.c | check-malformed-ok | a malformed answer is not a protocol error |         if (r->req[i].outcome == OUT_NONE || r->req[i].outcome == OUT_WRONG_ID ||\n            r->req[i].outcome == OUT_MALFORMED) |         if (r->req[i].outcome == OUT_NONE || r->req[i].outcome == OUT_WRONG_ID)
check/session.c | check-dap-seq-out-of-order | `stdiogate --check --protocol dap` numbers disconnect before it answers an adapter's request made during initialize: the adapter sees seq 1, 3, 2 (DAP wants each message one more than the one before; a strict adapter refuses the session) |         break;  /* disconnect once initialize is answered (plan_rest) */ |         add_dap_request(r, "disconnect", "{}");\n        r->planned = 1;\n        break;
# ---- common/inspect.c: what the wrapper can tell about a program before it runs it
check/wrapper.c | wrapper-never-chooses | a COMMAND the library cannot enter runs unguarded: the wrapper never picks the filter |     int chosen = known && !strict && choose_strict(pid, library, &r, level, filter, sizeof filter); |     int chosen = 0 && !strict && choose_strict(pid, library, &r, level, filter, sizeof filter);
check/wrapper.c | wrapper-ignores-opt-out | --gate-only still gets the filter for COMMAND |     if (!sg_env_auto_strict(getenv(SG_ENV_AUTO_STRICT)) \|\| !(finding = main_finding(r->findings))) |     if (0 \|\| !(finding = main_finding(r->findings)))
filter/launcher.c | filter-path-ignored | --path is ignored: argv[0] is searched in PATH instead of the file the library resolved |     if (path)\n        execv(path, argv); |     if (0)\n        execv(path, argv);
common/inspect.h | inspect-go-note-type | the Go build ID note (type 4) is not recognised |             if (sg_elf_word(p + 8, 4, e->big) == 4 && (namesz == 3 || namesz == 4) && |             if (sg_elf_word(p + 8, 4, e->big) == 3 && (namesz == 3 || namesz == 4) &&
common/inspect.c | inspect-bun-one-section | a .bun section alone (without .bun_builtins) makes a Bun program |     if ((names & (SG_SEC_BUN \| SG_SEC_BUN_BUILTINS)) == (SG_SEC_BUN \| SG_SEC_BUN_BUILTINS)) |     if (names & (SG_SEC_BUN \| SG_SEC_BUN_BUILTINS))
common/inspect.h | section-name-prefix | a section name that only begins with ".bun" counts as .bun |                 if (wlen < sizeof word && wlen == strlen(names[k]) && memcmp(word, names[k], wlen) == 0) |                 if (wlen < sizeof word && wlen >= strlen(names[k]) && memcmp(word, names[k], strlen(names[k])) == 0)
common/inspect.h | inspect-setuid-mine | a setuid program owned by the caller is warned about (ld.so keeps LD_PRELOAD for it) |     if ((st.st_mode & S_ISUID) && st.st_uid != uid) |     if (st.st_mode & S_ISUID)
common/inspect.h | inspect-setgid-noexec | a setgid bit without group execute (mandatory locking, not setgid) is warned about |     if ((st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP) && st.st_gid != (gid_t)syscall(SYS_getgid)) |     if ((st.st_mode & S_ISGID) && st.st_gid != (gid_t)syscall(SYS_getgid))
common/inspect.h | inspect-podman-unseen | podman is not known as a container CLI |     return strcmp(base, "docker") == 0 || strcmp(base, "podman") == 0 || |     return strcmp(base, "docker") == 0 ||
common/inspect.c | inspect-static-unseen | a program without PT_INTERP is not called static |     if (interp == 0)\n        found |= SG_STATIC; |     if (0)\n        found |= SG_STATIC;
common/inspect.c | inspect-env-assignment | #!/usr/bin/env VAR=x NAME inspects VAR=x, not NAME |         if (word[0] == '-' || strchr(word, '=')) |         if (word[0] == '-')
common/inspect.c | inspect-env-option-value | #!/usr/bin/env -u VAR NAME inspects VAR, not NAME |         if (strcmp(word, "-u") == 0 || strcmp(word, "-C") == 0 || strcmp(word, "-P") == 0) { |         if (strcmp(word, "-C") == 0 || strcmp(word, "-P") == 0) {
common/inspect.c | inspect-script-unseen | a #! script is judged as itself, not by its interpreter |     if (n >= 2 && line[0] == '#' && line[1] == '!') { |     if (0) {
common/inspect.c | inspect-env-unseen | #!/usr/bin/env NAME is judged by env, not NAME |     if (strcmp(base ? base + 1 : interp, "env") != 0) { |     if (1 || strcmp(base ? base + 1 : interp, "env") != 0) {
common/inspect.h | inspect-notes-first | only the first program header is looked at for a Go note |     for (unsigned i = 0; i < e->phnum && i < 4096; i++) {\n        if (!sg_elf_phdr(fd, e, i, &type, &off, &len) || type != PT_NOTE || off > (1ULL << 40)) |     for (unsigned i = 0; i < 1 && i < 4096; i++) {\n        if (!sg_elf_phdr(fd, e, i, &type, &off, &len) || type != PT_NOTE || off > (1ULL << 40))
# ---- stdiogate: the wrapper
stdiogate | wrapper-version-stderr | --version goes to stderr |         -V\|--version) echo "stdiogate $version"; exit 0 ;; |         -V\|--version) echo "stdiogate $version" >&2; exit 0 ;;
stdiogate | wrapper-empty-command | an empty COMMAND is searched for in PATH (a directory: 126) | [ -n "$1" ] \|\| die 127 "empty command" | :
stdiogate | wrapper-log-relative | a relative --log FILE is named from wherever the server goes |     *) export STDIOGATE_LOG="$PWD/$STDIOGATE_LOG" ;; |     *) ;;
stdiogate | wrapper-126-for-127 | a command not found exits 126 |     127) die 127 "$1: command not found" ;; |     127) die 126 "$1: command not found" ;;
stdiogate | wrapper-dir-unsaid | a directory as COMMAND is called not executable |     126) [ -d "$resolved" ] && die 126 "$1: is a directory"\n |     126) \n
stdiogate | wrapper-colon-ok | a library path with a colon is put in LD_PRELOAD (split there) |     *[\\ :]*) die 125 |     *[\\ ]*) die 125
stdiogate | wrapper-v-counts-once | -vvv counts as -v |         -v*) verbosity=$((verbosity + ${#1} - 1)) ;; |         -v*) verbosity=$((verbosity + 1)) ;;
stdiogate | wrapper-protocol-ignored | --protocol VALUE does not reach the library or the filter |             export STDIOGATE_PROTOCOL="$value" ;; |             : ;;
stdiogate | wrapper-path-nonexec | PATH search stops at a file that is not executable |         if [ -f "$resolved" ] && [ -x "$resolved" ]; then |         if [ -f "$resolved" ]; then
stdiogate | wrapper-discard-unset | --discard does nothing |         --discard) export STDIOGATE_DISCARD=1 ;; |         --discard) ;;
stdiogate | wrapper-relative-self | a wrapper called by a relative path preloads a relative library path |         *) self=$PWD/${0#./} ;; |         *) self=$0 ;;
stdiogate | wrapper-strict-warns | --strict is not passed to stdiogate-check (step-aside warnings under --strict) | "$resolved" ${strict:+--strict} --answer "$fd"; then | "$resolved" --answer "$fd"; then
stdiogate | wrapper-no-usage | no COMMAND: usage is not printed | echo "stdiogate: no COMMAND given" >&2\nusage >&2 | echo "stdiogate: no COMMAND given" >&2
stdiogate | wrapper-unknown-option-runs | an unknown option is taken as COMMAND |         -?*) die 125 "unknown option '$1' (try 'stdiogate --help')" ;; |         -?*) break ;;
# dash and bash set PATH to a default of their own when it is unset (measured:
# env -u PATH dash -c 'echo "${PATH-unset}"'), so the wrapper never sees it unset.
stdiogate equivalent | wrapper-path-default | PATH unset searches the current directory only |     resolve_rest=${PATH-/usr/local/bin:/usr/bin:/bin}: |     resolve_rest=${PATH-}:
stdiogate | wrapper-check-missing-ok | a missing stdiogate-check is not said (COMMAND runs unguarded) | [ -x "$checker" ] || die 125 "cannot run $checker" | true
# ---- independent set, round of 2026-12-06, written without reading the tests
# (a reviewer who had not read tests/ wrote these 30 plausible bugs; issue 45:
# a fresh blind set each round, kept here with the others).  All 30 applied as
# written when added; after env.h (one definition of the environment, #46)
# two were moved, their bug kept: ind-debug-level-4-rejected from shim.c's
# own test of STDIOGATE_DEBUG to env.h's sg_env_debug (the library, filter
# and checker share it now), ind-filter-discard-any-value from filter.c's
# strcmp(e, "1") to its call of sg_env_discard.
lib/say.c | ind-say-level-off-by-one | at the default level 1 every level-1 warning (e.g. 'the server answered before stdiogate saw the client's first message end', 'cannot start the helper') is silent; -v shows only level-1 lines | if (level > g_level \|\| !g_log_ok) | if (level >= g_level \|\| !g_log_ok)
shim.c | ind-divert-ignores-2to1 | a server run as `stdiogate cmd 2>&1` (stderr is the wire) has its startup banner diverted to stderr, i.e. straight onto the wire: the client reads junk before the first answer |     /* 2>&1 would put the junk right back on the wire. */\n    if (is(2, &g_core.wire_id))\n        return 0;\n | 
lib/reads.c | ind-recvmsg-peek-counted | a server that peeks stdin with recvmsg(MSG_PEEK) before reading has the gate opened by the peek: output written between the peek and the real read is no longer diverted (reaches the wire under --gate-only), and level 2 says 'gate opened by recvmsg' too early |     int watched = gated() && !(flags & MSG_PEEK) && watch(fd);\n    ssize_t r = REAL(recvmsg)(fd, msg, flags); |     int watched = gated() && watch(fd);\n    ssize_t r = REAL(recvmsg)(fd, msg, flags);
lib/reads.c | ind-zero-length-read-is-eof | a server that calls read(0, buf, 0) (a readiness probe) before the first message has the gate opened 'at end of input': its later startup banner is no longer diverted (on the wire with --gate-only; level 2 says the gate opened at end of input after 0 bytes) | if (r >= 0 && (r > 0 \|\| asked > 0) && shut()) | if (r >= 0 && (r >= 0 \|\| asked > 0) && shut())
lib/write.c | ind-write-whole-bounds-swapped | a server whose stderr is a pipe nobody reads hangs for ever at startup writing its banner (instead of dropping it after 5 s), and an answer put on a slow wire at the gate is cut after 5 s (the client hangs on a partial message) | int w = poll(&q, 1, bounded ? SG_STALL_MS : -1); | int w = poll(&q, 1, bounded ? -1 : SG_STALL_MS);
lib/failsafe.c | ind-failsafe-answer-pieces-swapped | an answer that opens the gate through the fail-safe and was written in two calls (a Content-Length header, then its body; or a JSON line in two writes) reaches the wire with the second piece first: the client gets a garbled frame and hangs | struct iovec answer[2] = { { g_hold.buf, g_hold.len }, { (void *)(p + off), k } }; | struct iovec answer[2] = { { (void *)(p + off), k }, { g_hold.buf, g_hold.len } };
common/env.h | ind-debug-level-4-rejected | STDIOGATE_DEBUG=4 (or -vvv) prints a spurious 'STDIOGATE_DEBUG=4 is not a level from 0 to 4: using 4' warning on stderr from every process | if (v[0] >= '0' && v[0] <= '4' && !v[1]) { | if (v[0] >= '0' && v[0] <= '3' && !v[1]) {
lib/fds.c | ind-high-dup-loses-cloexec | the private copy of the wire (and the other private descriptors) is inherited by every program the server starts: a background child that outlives the server keeps the client's stdout open, so the client never sees end of file after the server exits (hang) | int r = REAL(fcntl)(fd, F_DUPFD_CLOEXEC, (int)top); | int r = REAL(fcntl)(fd, F_DUPFD, (int)top);
# Not strictly equivalent, but no test can tell without a race: stderr_try
# polls the pipe before each fifo_write and gives up on POLLERR (its reader
# gone) without writing, so the write meets EPIPE only when the reader
# closes between that poll and the write (measured: a server writing junk
# after the gate with stderr's reader closed before it started answers both
# requests with this mutant applied).  Not counted.
lib/guard.c equivalent | ind-fifo-write-sigpipe-kept | after the gate, junk written when stderr's reader has gone (stderr a closed pipe) kills the server with SIGPIPE instead of being dropped: the client loses its server (exit by signal 13) | if (w < 0 && e == EPIPE && !was) { | if (w < 0 && e == EPIPE && was) {
lib/guard.c | ind-guard-settle-drops-held-line | a last line without a newline printed after the gate (e.g. printf("bye") before exit) vanishes: it never reaches stderr (nor the log), bytes lost |         junk_out(&v, 1, BY_OWNER);\n        g_hold.len = 0;\n        (void)sg_stream_end(&g_hold.s); |         (void)v;\n        g_hold.len = 0;\n        (void)sg_stream_end(&g_hold.s);
lib/guard.c | ind-guard-summary-partial-line | at level 2 the exit summary miscounts lines: junk without a final newline is reported as 'kept 5 bytes in 0 lines off the wire' | unsigned long long n = LOAD(g_junk.lines) + (unsigned)LOAD(g_junk.partial); | unsigned long long n = LOAD(g_junk.lines);
lib/stdout.c | ind-puts-drops-newline | after the gate, a server that answers with puts(json) sends its message without the newline: the client never sees the message end and hangs (and the next message is glued to it) | int r = stream_put(stdout, s, n, "puts") \|\| stream_put(stdout, "\\n", 1, "puts"); | int r = stream_put(stdout, s, n, "puts");
common/junk.h | ind-backlog-append-ignores-start | when stderr is slow and junk queues up (the guard's or the filter's backlog), later junk overwrites earlier waiting junk: stderr shows lines garbled, duplicated or out of order | __builtin_memcpy(b->buf + b->start + b->len, | __builtin_memcpy(b->buf + b->len,
common/quiet.h | ind-quiet-pid-sign | the middle reports the program's pid un-negated, so the starter takes it for an errno: --strict says 'cannot start the filter: running without it' (junk then reaches the wire) and the default mode's helper 'cannot start' (startup output lost to /dev/null) | int told = -(int)child; | int told = (int)child;
protocol/detect.h | ind-content-length-case-sensitive | the standard header 'Content-Length' (capitalised) is not recognised: an LSP/DAP client's first message opens the gate before its body is read, and every frame the server writes is classified junk and goes to stderr: the LSP client hangs | sg_lower(c) == (unsigned char)name[d->name_len] | c == (unsigned char)name[d->name_len]
protocol/detect.h | ind-error-answer-not-answer | a server that reads stdin in a way stdiogate cannot see and answers the first request with a JSON-RPC error: the error never opens the gate, it goes to stderr, and the client waits for ever | return (k & SGK_JSONRPC) && (k & SGK_ID) && (k & (SGK_RESULT \| SGK_ERROR)); | return (k & SGK_JSONRPC) && (k & SGK_ID) && (k & SGK_RESULT);
protocol/detect.h | ind-crlf-not-white | a server that ends its JSON lines with CRLF (or pretty-prints with CRs) has every message classified junk: answers go to stderr and the client hangs | (1ULL << ' ' \| 1ULL << '\\t' \| 1ULL << '\\r') >> c | (1ULL << ' ' \| 1ULL << '\\t') >> c
protocol/detect.h | ind-object-without-jsonrpc-passes | structured JSON log lines such as {"level":"info","msg":"ready"} written on stdout are taken for protocol and reach the client on the wire (guard, fail-safe and --strict alike) |     if (c == '}' && s->depth == sg_record_level(s) && !s->has_jsonrpc)\n        return 0;               /* an object without "jsonrpc" */\n | 
filter/launcher.c | ind-filter-exit-status-swapped | `stdiogate --strict nosuchcmd` (a COMMAND that is not there at exec) exits 126 instead of 127, and a non-executable one 127 instead of 126 | exit(e == ENOENT ? 127 : 126); | exit(e == ENOENT ? 126 : 127);
filter/relay.c | ind-filter-drops-held-candidate | under --strict, a message that spans two reads of the pipe (a large answer, or one written in two pieces) loses its first part: the client gets a truncated, invalid message and hangs; junk split across reads loses its start on stderr |             out_add(o, v, held, nheld);\n | 
filter/launcher.c | ind-filter-discard-any-value | with STDIOGATE_DISCARD=0 in the environment, --strict throws the junk away (nothing on stderr) instead of putting it on stderr as the library does | int discard = sg_env_discard(getenv(SG_ENV_DISCARD)), i; | int discard = getenv(SG_ENV_DISCARD) && *getenv(SG_ENV_DISCARD), i;
check/main.c | ind-check-timeout-zero-accepted | `stdiogate --check --timeout 0 CMD` is accepted instead of refused with status 125: the check times out at once (status 5, 'no answer') | (s == 0 && !zero_ok) | (s < 0 && !zero_ok)
check/main.c | ind-check-option-equals-off-by-one | `stdiogate --check --timeout=5 CMD` (any --opt=value form) fails with 'invalid number of seconds '=5'' and status 125; --protocol=lsp says unknown protocol '=lsp' | return argv[*i] + n + 1; | return argv[*i] + n;
check/protocol.c | ind-check-lsp-name-beats-mcp | `stdiogate --check mcp-language-server ...` is played as an LSP server (Content-Length frames) instead of MCP: wrong protocol, wrong verdict/exit status | { names_mcp, names_dap, names_lsp };\n    static const enum protocol named[] = { PROTO_MCP, PROTO_DAP, PROTO_LSP }; | { names_lsp, names_dap, names_mcp };\n    static const enum protocol named[] = { PROTO_LSP, PROTO_DAP, PROTO_MCP };
common/inspect.c | ind-inspect-env-u-value | a script starting '#!/usr/bin/env -u VAR goserver' is judged by 'VAR' (not found): no warning that its Go/static interpreter cannot be guarded, and it runs in default mode instead of under the filter, so its junk reaches the wire | if (strcmp(word, "-u") == 0 \|\| strcmp(word, "-C") == 0 | if (strcmp(word, "-C") == 0
stdiogate | ind-wrapper-verbosity-off-by-one | `stdiogate -v CMD` runs at level 3 instead of 2 (stderr floods with level-3 details), -vv at 4 | -v*) verbosity=$((verbosity + ${#1} - 1)) ;; | -v*) verbosity=$((verbosity + ${#1})) ;;
stdiogate | ind-wrapper-protocol-value-not-shifted | `stdiogate --protocol jsonl CMD` fails with 'stdiogate: jsonl: command not found' and status 127 (the value is taken for COMMAND); --protocol=jsonl still works |             [ "$1" = --protocol ] && shift\n | 
doctor/stdiogate-doctor | ind-doctor-lua-backslash-unescaped | `stdiogate --client neovim -- CMD 'C:\\dir'` (any argument with a backslash) prints a Lua entry with the backslash raw: Lua reads it as an escape, so the pasted config runs another path or fails to load |     for c in raw.decode("utf-8", "surrogateescape"):\n        if c.isprintable() and c not in "'\\\\": |     for c in raw.decode("utf-8", "surrogateescape"):\n        if c.isprintable() and c not in "'":
doctor/stdiogate-doctor | ind-doctor-backup-loop | `stdiogate --check --config --fix` hangs for ever once FILE.stdiogate-backup and FILE.stdiogate-backup.1 both exist (the third fix of the same file) |         backup = f"{target}{BACKUP_SUFFIX}.{n}"\n        n += 1\n |         backup = f"{target}{BACKUP_SUFFIX}.{n}"\n
doctor/stdiogate-doctor | ind-doctor-exit-status-before-fix | after `--config --fix` wrapped every server that needed it, the doctor still exits 1 or 2 (the status before the fix) instead of the fixed servers' status (0) | r = s.after if s.fix_status == "fixed" else s.result | r = s.result
# ---- independent set 2, round of 2026-12-06 (second), written without reading the tests
# (a second reviewer who had not read tests/ wrote these 30 plausible bugs; issue 45).
lib/guard.c | ind2-guard-stderr-socket-blocks | after the gate, a server whose stderr is a socket its reader has stopped reading (a full socketpair) hangs for good at its next junk line (a log line while serving) instead of keeping it for later or dropping it: the client waits for an answer that never comes | w = REAL(sendmsg)(2, &m, MSG_DONTWAIT \| MSG_NOSIGNAL); | w = REAL(sendmsg)(2, &m, MSG_NOSIGNAL);
lib/guard.c | ind2-guard-discard-ignored-after-gate | `stdiogate --discard CMD`: startup junk is thrown away, but junk written after the first message (log lines while serving, a child's output) still appears on stderr | g_junk_discard = sg_env_discard(env_value(SG_ENV_DISCARD)) \|\| is(2, &g_core.wire_id) \|\| | g_junk_discard = is(2, &g_core.wire_id) \|\|
lib/guard.c | ind2-guard-junk-overtakes-backlog | when stderr is read slowly and earlier junk waits in the guard's backlog, a new junk line is written to stderr at once, ahead of the older ones: stderr (and a terminal or log collector reading it) shows the server's lines out of order | ssize_t w = by == BY_OWNER && g_backlog.len ? 0 : stderr_try(v, n); | ssize_t w = stderr_try(v, n);
lib/guard.c | ind2-guard-owed-other-thread-gives-up | with a slow client, while the wire has taken only part of a large message, a message written by another thread (tokio, asyncio executors) or by a signal handler is put on the wire inside it instead of being queued: the client reads two messages spliced together (invalid JSON) and drops or chokes on both | if (g_hold.owed_by != this_thread() \|\| in_handler())\n        return 1; | if (g_hold.owed_by != this_thread() && in_handler())\n        return 1;
lib/guard.c | ind2-guard-held-then-drops-call-bytes | after the gate, a message written in two calls (an LSP server's Content-Length header, then its body; a JSON line in pieces) has only its first piece written by the call that completes it: the write returns -1 EAGAIN (or a short count) on a blocking stdout, Python's write raises BlockingIOError, and a server that gives up leaves the client with a header and no body | int n = 1 + iov_slice(f->iov, f->cnt, from, to, v + 1, BATCH - 1); | int n = iov_slice(f->iov, f->cnt, from, to, v + 1, BATCH - 1);
lib/write.c | ind2-write-scm-rights-inverted | a server that hands its stdout to a service over a socket before the gate (`flatpak-spawn --host`, `systemd-run --pipe`) passes the diversion instead of the wire: the service's answers go to stderr and the client hangs; the other descriptors in the same message (its stdin, stderr) are replaced by the wire |     if (passed_stdout(*slot))\n        *slot = wire; |     if (!passed_stdout(*slot))\n        *slot = wire;
lib/write.c | ind2-write-no-wait-while-opening | in a threaded server, an answer written by one thread while another thread is opening the gate (it has just read the first message) is written to fd 1 while fd 1 is still the diversion: the answer lands on stderr and the client waits for ever (intermittent) |     if (unlikely(LOAD(g_core.state) == GATE_OPENING) && !in_vfork_child() && is_diversion(fd))\n        wait_while_opening();\n    return shut() && is_diversion(fd) && !in_vfork_child(); |     return shut() && is_diversion(fd) && !in_vfork_child();
lib/fds.c | ind2-fds-dupfd-cloexec-untracked | a server that keeps a private copy of stdout made with fcntl(1, F_DUPFD_CLOEXEC, N) before reading stdin (the official Python SDK v2 does) keeps writing to the diversion after the gate: every answer goes to stderr and the client hangs at initialize | return cmd == F_DUPFD \|\| cmd == F_DUPFD_CLOEXEC; | return cmd == F_DUPFD;
lib/fds.c | ind2-fds-close-range-takes-private | a launcher that starts the server through CPython's subprocess (close_fds=True: close_range before exec; uv run, a Python wrapper script) closes the kept wire along with its own descriptors: the server gets the diversion as stdout, its answers go to stderr and the client hangs | r = REAL(close_range)(lo, skip[i] - 1, flags); | r = REAL(close_range)(lo, skip[i], flags);
shim.c | ind2-shim-handed-wire-unguarded | a program started on the wire after the gate (a tool's child process, `sh -c 'echo ...; exec srv'` after initialize) runs with no guard: what it prints reaches the client as junk lines; and with --gate-only such children are guarded instead | return LOAD(g_guard_wanted) ? GUARD_ONLY : AS_IT_IS; | return LOAD(g_guard_wanted) ? AS_IT_IS : GUARD_ONLY;
shim.c | ind2-shim-go-note-type | a dynamically linked (cgo) Go server run with --gate-only (or STDIOGATE_AUTO_STRICT=0) is no longer recognised: stdout is diverted and never given back (Go reads with raw system calls), so every answer goes to stderr and the client hangs; no 'Go program: not diverting' line at level 2 | if (nh->n_type == 4 && (nh->n_namesz == 3 \|\| nh->n_namesz == 4) && | if (nh->n_type == 3 && (nh->n_namesz == 3 \|\| nh->n_namesz == 4) &&
lib/stdout.c | ind2-stdout-fflush-null-unguarded | after the gate, a C server that printf()s a log line and then calls fflush(NULL) has the line written by glibc itself, past the guard: the log line reaches the client on the wire instead of stderr |     if (fp == NULL)\n        stdout_through_guard("fflush");\n    else if (flushed_on_wire(fp) && fp->_IO_read_ptr == fp->_IO_read_end) |     if (fp != NULL && flushed_on_wire(fp) && fp->_IO_read_ptr == fp->_IO_read_end)
common/junk.h | ind2-junk-log-not-appended | `stdiogate --log FILE`: each writer of the log starts at its beginning: a second session overwrites the first one's lines, and within one session the lines logged after the gate overwrite the startup lines the helper logged (the log loses lines, mixed fragments remain) | #define SG_LOG_OPEN_FLAGS (O_WRONLY \| O_APPEND \| O_CREAT \| O_CLOEXEC \| O_NONBLOCK \| O_NOCTTY) | #define SG_LOG_OPEN_FLAGS (O_WRONLY \| O_CREAT \| O_CLOEXEC \| O_NONBLOCK \| O_NOCTTY)
common/quiet.h | ind2-quiet-kept-fd-stays-cloexec | a server that marks its stderr close-on-exec (Node does) starts its helper (and a filter started from it) without a stderr: the startup banner diverted from stdout never appears on stderr (lost), and at level 1 nothing says why | long r = q->fd[i] == i ? (syscall(SYS_fcntl, i, F_SETFD, 0) < 0 && errno != EBADF ? -1 : 0) | long r = q->fd[i] == i ? 0
protocol/detect.h | ind2-detect-empty-batch-passes | after the gate (and under --strict), a line `[]` printed on stdout (Python's print([]) of an empty list, a debug dump) is taken for a JSON-RPC batch and reaches the client, which reports an invalid/empty batch |     if (c == ']' && s->batch && s->depth == 1 && !s->elements)\n        return 0;               /* an empty batch */\n    s->depth--; |     s->depth--;
protocol/detect.h | ind2-detect-params-not-rpc-at-bound | a JSON-RPC message over 64 KiB with a top-level "params" before the bound (a large server-to-client request or notification) is decided junk at its 65536th byte: it goes to stderr (cut in pieces) and the client never gets it | rpc = key \|\| sg_name_is(n, "params", 6); | rpc = key;
protocol/detect.h | ind2-detect-exponent-plus-sign | an answer holding a number with a '+' exponent (1e+21, 2.5e+30: how JavaScript and Python write large floats) is classified junk: after the gate and under --strict it goes to stderr and the client waits for that answer for ever |         if (c == '+' \|\| c == '-')\n            return sg_number_to(s, 1, SN_ESIGN); |         if (c == '-')\n            return sg_number_to(s, 1, SN_ESIGN);
protocol/detect.h | ind2-detect-body-end-one-late | an LSP/DAP client's first frame is seen to end only one byte after its body when the read ends exactly with the body (the usual case): the gate stays shut after the server has read initialize, its answer opens it through the fail-safe, and every such session prints the level-1 warning 'the server answered before stdiogate saw the client's first message end' | size_t avail = n - i + 1; | size_t avail = n - i;
filter/relay.c | ind2-filter-wire-out-spins | under --strict, once a write to the wire takes all of its last piece, the filter loops for ever writing 0 bytes (100% CPU): the first answer arrives, nothing after it does, and the client hangs | while (cnt > 0 && done >= iov[0].iov_len) { | while (cnt > 0 && done > iov[0].iov_len) {
filter/filter.h | ind2-filter-protocol-name-swapped | `stdiogate --strict --protocol jsonl CMD` (or mcp) filters as Content-Length frames, and --protocol framed as JSON lines: every answer goes to stderr and the client hangs; level 2 says 'strict: filtering, protocol framed' | return p == SG_JSONL ? "jsonl" : p == SG_FRAMED ? "framed" : "auto"; | return p == SG_JSONL ? "framed" : p == SG_FRAMED ? "jsonl" : "auto";
filter/launcher.c | ind2-filter-marker-to-unenterable | a program the library cannot enter (Go, static, Bun...) run under the filter finds STDIOGATE_WIRE=filter:PID:MIDDLE in its environment: the server's environment differs from unwrapped (and any program it starts inherits the marker) | if (middle > 0 && !g_unenterable) { | if (middle > 0) {
check/main.c | ind2-check-strict-run-wrong-framing | `stdiogate --check` runs an MCP server's --strict run with `--protocol framed` (and an LSP server's with jsonl): every answer of that run is filtered off, the report says --strict is not clean ('please report it' note), and a server that needs --strict gets status 2/3 with 'no other installed mode keeps them off the wire' | strict_extra[2] = o.protocol == PROTO_MCP ? "jsonl" : "framed"; | strict_extra[2] = o.protocol == PROTO_MCP ? "framed" : "jsonl";
check/report.c | ind2-report-exit-junk-not-described | a server whose only junk comes at exit gets the verdict '12 bytes of non-protocol output (); stdiogate's default mode keeps them off the wire' (the 'N at exit' part missing), and junk at exit is never listed beside the other phases | for (int phase = PHASE_BEFORE; phase <= PHASE_EXIT && k < cap; phase++) { | for (int phase = PHASE_BEFORE; phase < PHASE_EXIT && k < cap; phase++) {
common/inspect.c | ind2-inspect-static-not-found | `stdiogate ./static-server` (a statically linked COMMAND) gets no 'is statically linked' warning and is not run under the filter: its startup banner goes straight onto the wire; --check does not say why the default mode cannot help | if (interp < 0 \|\| !sg_elf_header(fd, &e)) | if (interp <= 0 \|\| !sg_elf_header(fd, &e))
common/inspect.c | ind2-inspect-script-judged-by-itself | a #! script whose interpreter the library cannot enter (`#!/usr/bin/env bun`, a static or Go interpreter) is judged by the script's own text: no warning, and it runs in default mode instead of under the filter, so Bun's raw writes put its banners on the wire | r->findings = file_findings(r->program, r); | r->findings = file_findings(path, r);
stdiogate | ind2-wrapper-strict-no-separator | `stdiogate --strict CMD ARGS` always fails: stdiogate-filter reads COMMAND as one of its own options and exits 125 with 'stdiogate-filter: unknown option' and its usage | --protocol "${STDIOGATE_PROTOCOL:-auto}" -- "$@" | --protocol "${STDIOGATE_PROTOCOL:-auto}" "$@"
stdiogate | ind2-wrapper-protocol-dap-refused | `stdiogate --protocol dap CMD` is refused with '--protocol takes auto, jsonl or framed, or the protocol: mcp, lsp or dap' and status 125 (lsp still works) |                 lsp\|dap) value=framed ;; |                 lsp) value=framed ;;
doctor/stdiogate-doctor | ind2-doctor-jsonc-escaped-quote | a VS Code/Zed settings.json with an escaped quote in a string ("--title=\\"x\\"") is misread: the string is taken to end at the escaped quote, a later '//' inside a string (a URL) is blanked as a comment, and the file is reported unreadable (exit 6) or its servers listed wrong | i += 2 if text[i] == "\\\\" else 1 | i += 1
doctor/stdiogate-doctor | ind2-doctor-client-args-made-absolute | `stdiogate --check --client cursor -- npx -y @modelcontextprotocol/server-filesystem /tmp` prints an entry whose package argument is turned into a path in the current directory ('/home/u/@modelcontextprotocol/server-filesystem'): pasted, npx cannot find the package and the server does not start | if not a.startswith("-") and ("/" in a or os.path.isfile(a)) and os.path.exists(a) | if not a.startswith("-") and ("/" in a or os.path.isfile(a))
doctor/stdiogate-doctor | ind2-doctor-sh-word-unquoted | `stdiogate --check --client claude-code -- node '/my dir/srv.js'` prints `claude mcp add ... node /my dir/srv.js` unquoted: pasted into a shell, the path is split (and $, ;, * in an argument are interpreted) |     if s.isprintable():\n        return shlex.quote(s) |     if s.isprintable():\n        return s
# ---- independent set 3, round of 2026-12-06 (third), written without reading the tests
# (a third reviewer who had not read tests/ wrote these 30 plausible bugs; issue 45).
# All 30 applied as written; 24 killed on the first run, the 6 survivors have tests
# since (docs/TESTING.md, "Mutation testing").
lib/guard.c | ind3-guard-stderr-wire-dev-only | after the gate, when the wire and stderr are both pipes (a Python or Rust client's subprocess pipes), every junk line the guard keeps off the wire is dropped instead of written to stderr (it takes any pipe for 2>&1): log lines while serving vanish, and at exit level 1 says 'N bytes of output kept off the wire were dropped: stderr was full (nobody read it)' | st.st_dev == g_core.wire_id.dev &&\n                               st.st_ino == g_core.wire_id.ino)) | st.st_dev == g_core.wire_id.dev))
lib/guard.c | ind3-guard-finish-spins | a server whose stderr reader has stopped reading (a full stderr pipe) and that has junk waiting in the guard's backlog never finishes exiting: at exit it spins at 100% CPU for ever instead of dropping the junk after 2 s (the process stays, its exit status never reaches the client) |         if (g_backlog.len == before) {\n            struct pollfd p = { .fd = 2, .events = POLLOUT }; |         if (g_backlog.len != before) {\n            struct pollfd p = { .fd = 2, .events = POLLOUT };
lib/guard.c | ind3-guard-whole-no-size-bound | a Node (non-blocking stdout) or other non-blocking server writing a large answer (bigger than the pipe or socket buffer) to a client that reads it slowly: the wire takes part of it, the program writes the rest in its next call, and that rest, classified from between messages, is junk: it goes to stderr and the client gets a truncated message and hangs | LOAD(g_queue.len) \|\| LOAD(g_backlog.len) \|\| iov_total(iov, cnt) > PIPE_BUF) | LOAD(g_queue.len) \|\| LOAD(g_backlog.len))
lib/guard.c | ind3-guard-let-go-at-exec | a server that execs another program after the gate while junk still waits for a slow stderr (e.g. `sh -c 'echo log; exec node srv.js'` with stderr read slowly) closes fd 1 before the exec: the new program starts without stdout, its answers fail with EBADF (or land in the first file it opens) and the client hangs | if (at == SETTLE_EXIT && g_backlog.len && !g_junk_discard) | if (at != SETTLE_SPAWN && g_backlog.len && !g_junk_discard)
lib/write.c | ind3-put-send-flags-dropped | after the gate, a server that sends its messages on a socket wire with send(1, buf, n, MSG_NOSIGNAL) (or MSG_DONTWAIT) loses those flags on every call the guard puts out itself (a message over 4 KiB, one sent in pieces, one with junk around it): when the client goes away it is killed by SIGPIPE instead of getting EPIPE (exit by signal 13 where unwrapped it exits cleanly), and a MSG_DONTWAIT send blocks on a full wire instead of returning EAGAIN | return REAL(sendto)(c->fd, p, n, c->flags, c->addr, c->alen); | return REAL(sendto)(c->fd, p, n, 0, c->addr, c->alen);
lib/fds.c | ind3-fds-dup-args-swapped | a server that saves its stdout with dup(1) before reading stdin (the common 'real_stdout = os.dup(1); os.dup2(2, 1)' trick to keep prints off the wire, Ruby's STDOUT.dup) makes the library believe fd 1 is the program's own: it lets the wire go at once, fd 1 and the copy stay on the diversion, every answer goes to stderr and the client hangs at initialize |     int r = REAL(dup)(fd);\n    if (minding() && r >= 0) {\n        fds_changed();\n        if (tracking())\n            note_copy(fd, r); |     int r = REAL(dup)(fd);\n    if (minding() && r >= 0) {\n        fds_changed();\n        if (tracking())\n            note_copy(r, fd);
lib/fds.c | ind3-fds-daemon-keeps-wire | a server that detaches with daemon(3) before the client's first message keeps the client's stdout open in the daemon (the kept wire is not let go): the client sees no end of file when the process it started exits (unwrapped it does at once) and waits for as long as the daemon lives |         STORE(g_core.fd1_ours, 0);\n        unlock_wire(held);\n        release_if_unused();\n    }\n    return r; |         STORE(g_core.fd1_ours, 0);\n        unlock_wire(held);\n    }\n    return r;
shim.c | ind3-shim-divert-onto-terminal | a Node server started by a client whose stderr is a terminal (the TypeScript SDK's default stderr 'inherit' in a terminal) gets fd 1 diverted onto the terminal: Node reopens /dev/pts/N for stdout and every answer, after the gate too, is printed on the terminal instead of the wire: the client hangs at initialize |     /* Node reopens a terminal on fd 1 by name: never give it one. */\n    if (isatty(2))\n        return 0;\n |     /* Node reopens a terminal on fd 1 by name: never give it one. */\n
shim.c | ind3-shim-exit-loses-hold | startup text that may still begin a message and has no final newline ('Loading...', a '{' log object cut short) written before the client's first message by a program that ends with _exit (dash's exit builtin, Python's os._exit) is written nowhere: it never reaches stderr (nor the log), bytes lost |     if (gated() && shut())\n        hold_settle("_exit", 0);\n    if (guarding())\n        guard_settle("_exit", SETTLE_EXIT); |     if (guarding())\n        guard_settle("_exit", SETTLE_EXIT);
lib/interpreters.c | ind3-getenv-prefix-match | every program under the wrapper gets wrong values from getenv for a name that begins another variable listed before it: with TERM_PROGRAM=vscode before TERM, getenv(TERM) returns 'PROGRAM=vscode'; HOMEBREW_PREFIX spoils HOME, USERNAME spoils USER: the server sees another environment than unwrapped (wrong home directory, config not found) |         if (!*b && *a == '=')\n            return (char *)a + 1; |         if (!*b)\n            return (char *)a + 1;
lib/interpreters.c | ind3-interpreters-guard-inverted | `stdiogate --gate-only python3 srv.py` (a server that print()s a banner before reading, stdout buffered into the pipe) puts the banner on the wire after the gate, glued in front of the first answer, because Python's stdout is no longer made unbuffered; in default mode every Python, Perl and Ruby server gets an unbuffered stdout instead (slower) | if (!shut() \|\| LOAD(g_guard_wanted) \|\| !slash \|\| | if (!shut() \|\| !LOAD(g_guard_wanted) \|\| !slash \|\|
common/env.h | ind3-env-guard-off-when-unset | without --gate-only and with STDIOGATE_GUARD unset (the normal case) there is no session guard: log lines and a child's output printed after the first message reach the client on the wire; only STDIOGATE_GUARD=1 turns the guard on | static inline int sg_env_guard(const char *v)\n{\n    return !(v && v[0] == '0' && !v[1]); | static inline int sg_env_guard(const char *v)\n{\n    return v && !(v[0] == '0' && !v[1]);
common/junk.h | ind3-log-midline-inverted | `stdiogate --log FILE`: the NAME[PID]: prefix is missing at the start of every line after the first and appears instead in the middle of lines written in pieces ('Loading srv[12]: done'); at the end the log gets a spurious empty line |             log->mid_line = nl == NULL; |             log->mid_line = nl != NULL;
lib/helper.c | ind3-helper-discard-inverted | in default mode the helper (which carries what a C server's stdio flushes by itself, a forked child's output, and everything when --log is given) is started with STDIOGATE_DISCARD=1: that startup output never appears on stderr (with --log it reaches only the log); and `--discard --log FILE` prints it on stderr instead of keeping it to the log |     if (!to_stderr)\n        g_helper_env[n++] = g_helper_discard; |     if (to_stderr)\n        g_helper_env[n++] = g_helper_discard;
protocol/detect.h | ind3-line-newline-left | every one-line JSON-RPC message (under 4 KiB, the usual case) reaches the client without its newline, which goes to stderr as junk: the client never sees a message end and hangs at initialize (after the gate and under --strict alike) |     *keys = (unsigned char)found;\n    return end + 1; |     *keys = (unsigned char)found;\n    return end;
protocol/detect.h | ind3-line-trailing-text-passes | a line made of a JSON-RPC message followed by text on the same line ('{"jsonrpc":"2.0","id":1,"result":{}} done', an answer printed without its newline and a log line after it) reaches the client whole instead of going to stderr: the client reads an invalid line (Go SDK clients disconnect) |     if (sg_line_white(p, i) != end)\n        return 0; |     if (sg_line_white(p, i) > end)\n        return 0;
protocol/detect.h | ind3-line-nested-jsonrpc-counts | a structured log line that embeds a message in a nested object ('{"event":"recv","msg":{"jsonrpc":"2.0","id":1}}' on stdout) is taken for protocol and reaches the client, which gets an object without jsonrpc/id/result at its top level (after the gate and under --strict) |     if (depth == record) {\n        unsigned key = sg_name_key(p + at, i - 1 - at); |     if (depth >= record) {\n        unsigned key = sg_name_key(p + at, i - 1 - at);
protocol/detect.h | ind3-line-keys-last-only | a server whose stdin reads stdiogate cannot see (raw system calls, io_uring, a child reading stdin) and that answers initialize with one JSON line: the answer no longer opens the gate (only the last top-level name is remembered, so it has no jsonrpc/id), it goes to stderr and the client waits for ever instead of getting it with the level-1 warning |         found \|= key & ~SG_RPC_NAME; |         found = key & ~SG_RPC_NAME;
filter/drain.c | ind3-drain-eof-spins | in default mode, once the server exits (the helper's pipe at its end) the helper `stdiogate-filter --drain` never exits: it loops reading 0 bytes at 100% CPU for ever, the server's exit is delayed by the library's bounded wait for it, and a process is left behind per server start |         if (n <= 0)\n            break;\n        count_lines(buf, (size_t)n); |         if (n < 0)\n            break;\n        count_lines(buf, (size_t)n);
filter/relay.c | ind3-relay-splice-line-newline-left | under --strict, the first message larger than 64 KiB (a big tool result) reaches the client without its newline and the filter then spins at 100% CPU for ever: nothing after it reaches the wire and the client hangs |     size_t line = nl ? (size_t)(nl - buf) + 1 : got; |     size_t line = nl ? (size_t)(nl - buf) : got;
filter/junk.c | ind3-filter-stderr-full-is-gone | under --strict and in default mode's helper, the first moment stderr is full (a slow reader, a terminal scrolled back) makes the filter give stderr up for good: all later junk is dropped instead of queued, and at exit level 1 says 'N bytes ... were dropped: stderr was full (nobody read it)' |     if (w >= 0 \|\| errno == EAGAIN)\n        return w < 0 ? 0 : w; |     if (w >= 0)\n        return w;
check/report.c | ind3-report-gate-only-reason-inverted | `stdiogate --check` on a server whose junk while serving passes the default mode (raw writes, a child) says '...; with --gate-only (STDIOGATE_GUARD=0) the default mode guards only what comes before the first message; --strict keeps them off the wire' although no --gate-only was used (and with STDIOGATE_GUARD=0 it blames raw system calls) | && !sg_env_guard(getenv(SG_ENV_GUARD))) | && sg_env_guard(getenv(SG_ENV_GUARD)))
check/output.c | ind3-check-stderr-tail-is-head | when a failing server writes a large block of stderr at once (64 KiB of log then the error), `stdiogate --check --json`'s stderr tail, and the doctor's last stderr lines shown for a server that cannot start, are the block's first bytes instead of its end: the actual error message is not shown |         memcpy(r->err_tail, p + n - ERR_TAIL_MAX, ERR_TAIL_MAX); |         memcpy(r->err_tail, p, ERR_TAIL_MAX);
common/inspect.c | ind3-inspect-go-buildinfo-ignored | a Go server built without a build ID note (Bazel's rules_go, -ldflags=-buildid=) is not recognised as Go: no 'is a Go program' warning and no filter; a cgo (dynamically linked) one is diverted at start and never given back, so its answers go to stderr and the client hangs | if (sg_elf_go_note(fd, e) \|\| (names & SG_SEC_GO_BUILDINFO)) | if (sg_elf_go_note(fd, e))
common/inspect.h | ind3-inspect-glibc-loader-exact | every dynamically linked program on x86-64 or arm64 (loader ld-linux-x86-64.so.2) is taken for one with a foreign loader: `stdiogate CMD` warns 'uses the loader /lib64/ld-linux-x86-64.so.2, which cannot load libstdiogate.so' and runs every server (and every child it execs) under the filter without the library | return strncmp(base, "ld-linux", 8) == 0 \|\| | return strcmp(base, "ld-linux") == 0 \|\|
stdiogate | ind3-wrapper-empty-path-entry | with an empty PATH entry (PATH=:/usr/bin, or a trailing ':'), `stdiogate mysrv` for a program in the current directory fails with 'stdiogate: mysrv: command not found' and status 127, where the unwrapped command runs (execvp searches the current directory for an empty entry) |         resolved=${resolve_dir:-.}/$1 |         resolved=$resolve_dir/$1
stdiogate | ind3-wrapper-denied-not-remembered | `stdiogate srv` where srv is found in PATH but not executable fails with 'stdiogate: srv: command not found' and status 127 instead of 'permission denied (not executable)' and status 126 | [ -e "$resolved" ] && [ -z "$resolve_denied" ] && resolve_denied=$resolved | [ -e "$resolved" ] && [ -n "$resolve_denied" ] && resolve_denied=$resolved
doctor/stdiogate-doctor | ind3-doctor-toml-key-dot-bare | `stdiogate --check --client codex -- node my.server.js` prints '[mcp_servers.my.server]' with the name unquoted: TOML reads it as a table 'server' inside a table 'my', so the pasted entry defines no server named my.server and Codex reports a bad or missing server (same for helix's [language-server.NAME]) | return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else toml_string(k) | return k if re.fullmatch(r"[A-Za-z0-9_.-]+", k) else toml_string(k)
doctor/stdiogate-doctor | ind3-doctor-versioned-wrapper-unseen | an entry already run through a pinned stdiogate ('npx -y stdiogate@0.2.0 node srv.js') is listed as not wrapped, checked as if bare, and `--config --fix` wraps it a second time (stdiogate around npx -y stdiogate@0.2.0 ...) | and re.sub(r"@[^@/]*$", "", words[0]) == "stdiogate") | and words[0] == "stdiogate")
doctor/stdiogate-doctor | ind3-doctor-fix-loses-file-mode | after `stdiogate --check --config --fix`, the fixed configuration file has mode 0600 (the temporary file's) instead of its own (e.g. 0644): group and other users (or a service reading a shared .vscode/mcp.json) can no longer read it, and git shows a mode change |         os.fchmod(fd, st.st_mode & 0o7777)\n        try:\n            os.fchown(fd, st.st_uid, st.st_gid) |         try:\n            os.fchown(fd, st.st_uid, st.st_gid)
# ---- independent set 4, round of 2026-12-07 (fourth), written without reading the tests
# (a fourth reviewer who had not read tests/ wrote these 30 plausible bugs; issue 45).
# All 30 applied as written; the first run (from a copy frozen at 733a84b) and the
# survivors' tests since: docs/TESTING.md, "Mutation testing".
lib/guard.c | ind4-guard-step-short-goes-on | after the gate, a message over 64 KiB written in one call on a non-blocking stdout (Node, libuv, tokio) to a client that reads slowly: when a 64 KiB step comes back short the guard goes on with the next step, so the call's return skips the bytes the wire did not take; the client gets the message with a hole in it (invalid JSON) and waits for its answer for ever |                     run_out(&f);\n                    if (f.stop)\n                        break;\n                }\n            } else { |                     run_out(&f);\n                }\n            } else {
lib/guard.c | ind4-guard-owed-sig-stale | after the gate, a large message that a slow client takes in three or more pieces (a non-blocking writer retrying its rest: Node, asyncio, tokio): after the second short write the rest is no longer recognised as the rest, it is classified from between messages and goes to stderr as junk; the client gets a truncated message and hangs |         if ((size_t)w < k) {\n            size_t sig = g_hold.owed < sizeof g_hold.owed_sig ? g_hold.owed : sizeof g_hold.owed_sig;\n            g_hold.owed_sig_len = iov_copy(iov, cnt, (size_t)w, (size_t)w + sig, g_hold.owed_sig);\n            return w;\n        } |         if ((size_t)w < k)\n            return w;
lib/guard.c | ind4-guard-write-all-restarts | after the gate, a C stdio server (printf/fwrite/puts) whose stdout is non-blocking (inherited from a Node parent) writing a message larger than the pipe to a slow client: after a partial write the guard starts the buffer again from its first byte, so the client reads the start of the message twice and never a valid line |         if (done \|\| cnt > BATCH) { |         if (cnt > BATCH) {
lib/write.c | ind4-write-scm-last-fd-skipped | a server that, before the client's first message, passes its stdout alone (or as the last descriptor) to another process over a socket (SCM_RIGHTS: flatpak-spawn --host, systemd-run --pipe, a fd-passing helper) passes the diversion instead of the wire: what that process answers goes to stderr and the client hangs; no level-2 'stdout passed to another process' line |         for (size_t at = 0; at + sizeof(int) <= len; at += sizeof(int)) { |         for (size_t at = 0; at + sizeof(int) < len; at += sizeof(int)) {
lib/write.c | ind4-write-guard-fd1-only | after the gate, junk written with write/writev/send through a copy of stdout (os.dup(1), a shell's exec 3>&1 then echo >&3, the Python SDK v2's private stdout) is no longer classified: log lines written that way reach the client on the wire instead of stderr |     return guarding() && guard_fd(fd) && !guard_whole(iov, cnt) ? GUARD : AS_IS; |     return guarding() && fd == 1 && !guard_whole(iov, cnt) ? GUARD : AS_IS;
lib/fds.c | ind4-fds-fcntl-dup-no-epoch | a server that reads stdin through a copy made with fcntl(0, F_DUPFD[_CLOEXEC], 3) on a number it read a file from before (the official Python SDK v2, after CPython read its modules on fd 3) is never seen reading its first message: the gate opens only at its first answer, with the level-1 warning 'the server answered before stdiogate saw the client's first message end', and what it prints between its read and its answer is diverted |     if (minding() && r >= 0 && fcntl_arg_dups(cmd)) {\n        fds_changed();\n |     if (minding() && r >= 0 && fcntl_arg_dups(cmd)) {\n
lib/fds.c | ind4-fds-close-range-unsigned-skip | before the first message, a process that closes its descriptors with close_range(N, ~0U) or closefrom (CPython's subprocess child with close_fds=True, a daemonising launcher) while one private descriptor slot is unused (-1: stderr not a pipe, or the helper started) closes everything, stdin, stdout and stderr included: a Python server's subprocess.run() before initialize gets no output, a Python launcher's server starts without stdio and the client hangs |         if (mine[i] < 0 \|\| skip[i] < lo \|\| skip[i] > last) |         if (skip[i] < lo \|\| skip[i] > last)
shim.c | ind4-shim-log-without-drain | `stdiogate --log FILE` run from a terminal (stderr a tty), with 2>/dev/null, or with --discard: the startup output (banners before the first message) never reaches the log (no helper is started to write it); only what the guard catches after the gate is logged |     if ((to_stderr && stderr_needs_drain()) \|\| logging) { |     if (to_stderr && stderr_needs_drain()) {
lib/exec.c | ind4-spawn-wire-action-last | before the first message, a server that posix_spawns a child with its stdout redirected by file actions (Rust's Command::output(), CPython posix_spawn with stdout=PIPE) has the child's stdout put on the wire after its own redirection: the server captures nothing (e.g. an empty `git --version`), and the child's output goes to the wire (diverted to stderr by the child's library) instead |     memset(&c->acts[0], 0, sizeof c->acts[0]);\n    c->acts[0].tag = g_spawn_dup2_tag;\n    c->acts[0].action.dup2_action.fd = c->wire;\n    c->acts[0].action.dup2_action.newfd = 1;\n    if (used)\n        memcpy(&c->acts[1], fa->__actions, (size_t)used * sizeof c->acts[0]); |     if (used)\n        memcpy(&c->acts[0], fa->__actions, (size_t)used * sizeof c->acts[0]);\n    memset(&c->acts[used], 0, sizeof c->acts[used]);\n    c->acts[used].tag = g_spawn_dup2_tag;\n    c->acts[used].action.dup2_action.fd = c->wire;\n    c->acts[used].action.dup2_action.newfd = 1;
lib/exec.c | ind4-exec-saved-fd1-inherited | a program exec'd before the gate (`sh -c 'exec node srv.js'`, npx, pyenv shims) inherits an extra descriptor (3, or the lowest free) open on the diversion: the server has a descriptor it never opened (ls /proc/PID/fd), its children inherit it, and with a lazy helper the helper stays alive for the whole session and at exit is left behind (a stdiogate-filter --drain and its middle outlive the server) |     x->saved = REAL(fcntl)(1, F_DUPFD_CLOEXEC, 3); |     x->saved = REAL(fcntl)(1, F_DUPFD, 3);
lib/transfer.c | ind4-transfer-offset-not-advanced | after the gate, a server that sends a file to stdout with sendfile(1, fd, &offset, n) or splice with an input offset, in a loop, sends the file's first 4 KiB over and over (the offset never advances): the client gets the first piece repeated instead of the file, a garbled message |     if (off)\n        *off += n;\n    return n; |     return n;
lib/system.c | ind4-system-sigint-stays-ignored | after the gate, a command a tool runs with system() (the shell and everything it starts) ignores SIGINT: Ctrl-C in an interactive tool, `timeout -s INT`, or the server's own kill(pid, SIGINT) no longer stops it, where unwrapped glibc's system gives the shell SIGINT's default back |     if (g_intr.sa_handler != SIG_IGN)\n        sigaddset(&reset, SIGINT);\n | 
common/quiet.h | ind4-quiet-middle-keeps-stdio | the middle process of every quiet child keeps the server's descriptors 0 to 4 open while it waits: with --log the helper is started while fd 1 is still the wire, so after the server exits the client sees no end of file on stdout and waits for ever; in default mode the lazy helper never sees the end of its pipe, so a stdiogate-wait and a stdiogate-filter --drain process are left behind after every server that printed a banner, and its exit is 0.5 s slower |     sg_close_from(0);\n    while (syscall(SYS_wait4, child, &st, 0, NULL) < 0 && errno == EINTR) |     sg_close_from(SG_QUIET_STATUS + 1);\n    while (syscall(SYS_wait4, child, &st, 0, NULL) < 0 && errno == EINTR)
common/junk.h | ind4-backlog-compact-keeps-start | when stderr is read slowly and more than the backlog's free tail of junk waits (about 1 MiB queued, partly drained), the backlog is moved to its front but its start is not reset: new junk is dropped although there is room (counted, and at exit level 1 says 'N bytes ... were dropped: stderr was full') or, where the moved bytes overlap, stderr shows garbled repeated lines; same in the filter and the guard |         __builtin_memmove(b->buf, b->buf + b->start, b->len);\n        b->start = 0; |         __builtin_memmove(b->buf, b->buf + b->start, b->len);
protocol/detect.h | ind4-line-number-leading-zero | a one-line JSON-RPC message with a number that has a leading zero ('"id":007', '"code":-0123') is taken whole by the one-pass line parser and reaches the client (guard, filter, fail-safe), where the byte-by-byte classifier calls it junk: a strict JSON client rejects the line (Go SDK clients disconnect) |     if (p[i++] != '0')\n        while (sg_line_digit(p[i]))\n            i++; |     i++;\n    while (sg_line_digit(p[i]))\n        i++;
protocol/detect.h | ind4-one-line-prefix-only | after the gate, one write of at most 4 KiB holding a JSON-RPC line and then anything else (an answer and a 'Server ready' log line in one printf, flush or write) goes to the wire whole: the text after the message reaches the client instead of stderr | p[n - 1] == '\\n' && sg_json_opens(protocol, p[0]) &&\n           sg_json_line_to(p, n - 1, NULL) == n; | sg_json_opens(protocol, p[0]) &&\n           sg_json_line(p, n, NULL) != 0;
protocol/detect.h | ind4-opens-no-batch | a JSON-RPC batch ('[{"jsonrpc":"2.0","id":1,"result":{}},...]') is never a candidate: batch answers go to stderr as junk in default mode and under --strict, and a client that sent a batch waits for ever |     return protocol != SG_FRAMED && (c == '{' \|\| c == '['); |     return protocol != SG_FRAMED && c == '{';
protocol/detect.h | ind4-one-line-ignores-framing | after the gate in an LSP/DAP session (Content-Length frames), a bare JSON-RPC line the server writes without a header (a JSON log in JSON-RPC shape, a library that speaks JSON lines) is taken as protocol by the guard's one-line fast path and reaches the client raw, breaking its framing (the LSP client reports a bad header and drops the connection) instead of going to stderr | p[n - 1] == '\\n' && sg_json_opens(protocol, p[0]) && | p[n - 1] == '\\n' && ((void)protocol, p[0] == '{' \|\| p[0] == '[') &&
filter/relay.c | ind4-relay-splice-body-untold | under --strict, after the first LSP/DAP frame with a body of 64 KiB or more (a large completion list, a big document), the classifier is not told the body went by splice: it keeps taking everything that follows for the rest of that body, so every later junk line (logs, a child's output) reaches the client raw for the rest of the session |         wire_splice(in, len, buf);\n        sg_stream_body_taken(s, len);\n        return 1; |         wire_splice(in, len, buf);\n        return 1;
filter/launcher.c | ind4-launcher-marker-left-for-unenterable | a program the library cannot enter (a static or Go COMMAND, a Bun script: run under the filter by default, or by --path from the library's exec) keeps STDIOGATE_WIRE=DEV:INO in its environment: the server sees a variable it would not have unwrapped (env, os.environ), and passes it to everything it starts |     } else {\n        unsetenv(SG_ENV_WIRE);\n    }\n    return 1; |     }\n    return 1;
filter/junk.c | ind4-filter-discard-counted-dropped | with --discard, junk thrown away as asked is counted as dropped: `stdiogate --discard --log FILE srv` prints 'stdiogate[PID]: N bytes of startup output were dropped: stderr was full (nobody read it)' on stderr, and --strict --discard -v reports them as dropped in its exit line |     if (dropped && !g_discard)\n        g_stats.dropped += n; |     if (dropped)\n        g_stats.dropped += n;
check/report.c | ind4-report-text-quote-unescaped | `stdiogate --check` text report: an argument holding a single quote (--name "it's", a JSON argument) is printed as 'it's' in the command lines shown (the runs, the configuration to use): pasted into a shell the quoting is broken (unterminated quote or a different command) |                 *c == '\\'' ? fputs("'\\\\''", stdout) : putchar(*c); |                 putchar(*c);
check/report.c | ind4-check-exit-junk-not-counted | `stdiogate --check` on a server whose only junk comes at exit (a 'bye' or a summary printed after stdin closes) judges it clean: status 0 and 'no change needed', although the client receives that junk |     return r->junk[0] + r->junk[1] + r->junk[2]; |     return r->junk[0] + r->junk[1];
check/output.c | ind4-check-dap-success-inverted | `stdiogate --check --protocol dap` reports every successful DAP response ("success":true) as an error and every failed one as a result: the text and JSON reports show initialize answered with 'error' for a working debug adapter |     take_answer(r, obj, id, json_kind(success, 'f'), message); |     take_answer(r, obj, id, json_kind(success, 't'), message);
common/inspect.h | ind4-inspect-setuid-own-file | a set-user-ID program owned by the user who runs it (where the dynamic linker keeps LD_PRELOAD) is taken for secure execution: `stdiogate ./srv` warns 'is setuid, so the dynamic linker drops LD_PRELOAD' and runs it under the filter, and the library's exec path starts such a child under the filter too |     if ((st.st_mode & S_ISUID) && st.st_uid != uid) |     if (st.st_mode & S_ISUID)
stdiogate | ind4-wrapper-log-equals-longest | `stdiogate --log=/tmp/run=1/srv.log CMD` (a log path with '=' in it, given as --log=FILE) logs to $PWD/1/srv.log or another wrong file: the value is cut at the last '=' instead of the first |         --log=?*) export STDIOGATE_LOG="${1#*=}" ;; |         --log=?*) export STDIOGATE_LOG="${1##*=}" ;;
stdiogate | ind4-wrapper-symlink-not-followed | stdiogate run through a symlink to it (ln -s /opt/stdiogate/bin/stdiogate ~/bin/stdiogate) fails with 'stdiogate: cannot find libstdiogate.so beside ... or in ../lib/stdiogate' and status 125, for servers and for --check alike |     if [ -L "$self" ]; then\n        self=$(readlink -f -- "$self") \|\| return 1\n    fi\n | 
doctor/stdiogate-doctor | ind4-doctor-block-comment-end | a VS Code or Zed settings.json with a /* block comment */ is reported unreadable ('cannot parse: ...', exit 6) by --check --config and --list, and its servers are neither listed nor fixed: the comment's closing '/' is left in the text |             end = n if end < 0 else end + (0 if text[i + 1] == "/" else 2) |             end = n if end < 0 else end + (0 if text[i + 1] == "/" else 1)
doctor/stdiogate-doctor | ind4-doctor-enabled-false-runs | an entry turned off with "enabled": false (Codex's enabled = false, clients that use enabled rather than disabled) is run by `--check --config` (its server started) and wrapped by --fix, instead of being listed as skipped: disabled |         if self.entry.get("disabled") is True or self.entry.get("enabled") is False: |         if self.entry.get("disabled") is True:
doctor/stdiogate-doctor | ind4-doctor-dry-run-shows-secrets | `stdiogate --check --config --fix --dry-run` prints the diff with the servers' env values (API keys, tokens next to the edited command and args) in clear on the terminal instead of *** |             lines.append(mask_secrets("".join(diff), cf.servers).rstrip("\\n")) |             lines.append("".join(diff).rstrip("\\n"))
# ---- independent set 5, round of 2026-12-07 (fifth), written without reading the tests
# (a fifth reviewer who had not read tests/ wrote these 30 plausible bugs; issue 45).
# All 30 applied as written; the first run (from a copy frozen at eeb24e1: 21 of 27 run
# killed) and the survivors' tests since: docs/TESTING.md, "Mutation testing".
lib/guard.c | ind5-guard-fifo-poll-waits | after the gate, a server whose stderr is a pipe its reader has stopped reading (full, reader alive) hangs for good at its next junk line (a log line, a child's output): the guard waits for room on stderr instead of keeping the junk for later or dropping it; the client gets no more answers |             if (poll(&p, 1, 0) != 1 \|\| !(p.revents & POLLOUT))\n                return (ssize_t)done; |             if (poll(&p, 1, -1) != 1 \|\| !(p.revents & POLLOUT))\n                return (ssize_t)done;
lib/guard.c | ind5-guard-stall-forgotten | after the gate, once stderr has taken nothing for 5 s (its reader stopped) and the backlog is full, every later junk write waits 5 s more instead of being dropped at once: a server that logs to stdout while serving answers each request 5 s late per log line, and stderr gets the 'stderr took nothing for 5 s' line again and again at -v |         if (g_junk_stalled)\n            break;\n        struct pollfd p = { .fd = 2, .events = POLLOUT };\n        int r = poll(&p, 1, SG_STALL_MS); |         struct pollfd p = { .fd = 2, .events = POLLOUT };\n        int r = poll(&p, 1, SG_STALL_MS);
lib/guard.c | ind5-guard-owed-done-queue-stuck | after the gate, while a slow client takes a large message in pieces, a message another thread or a signal handler wrote meanwhile (queued until the large one is whole) is not sent when the retry finishes the large one: it waits for the server's next write or its exit; a progress notification or another thread's answer arrives late or never (the client hangs waiting for it) |         if ((size_t)w == total) {\n            queue_between(c->fd);\n            return w;\n        } |         if ((size_t)w == total)\n            return w;
lib/write.c | ind5-write-pwritev2-current-position | after the gate, a server that writes stdout with pwritev2(1, iov, n, -1, 0) (offset -1: at the current position, as writev) has every call the guard must split (junk beside a message, a message in pieces) fail with ESPIPE: the guard puts the bytes with pwrite at offset -1; its answer never reaches the client | IOV_WRITER(pwritev2, (int fd, const struct iovec *iov, int cnt, off_t off, int fl),\n           (fd, iov, cnt, off, fl), off == -1 ? PUT_WRITE : PUT_PWRITE, off) | IOV_WRITER(pwritev2, (int fd, const struct iovec *iov, int cnt, off_t off, int fl),\n           (fd, iov, cnt, off, fl), PUT_PWRITE, off)
lib/fds.c | ind5-fds-close-range-drain-missed | before the first message, a server that closes every descriptor from 3 up (closefrom(3) or close_range(3, ~0U, 0), as daemons and some C servers do at start) closes the kept read end of the diversion pipe: a later fork or a full stderr starts the helper on a closed descriptor ('cannot start the helper' on stderr) and startup output written to the pipe kills the writer with SIGPIPE or is lost |     int mine[4] = { LOAD(g_core.wire), LOAD(g_core.div), LOAD(g_core.err), LOAD(g_drain_in) }, r = 0; |     int mine[4] = { LOAD(g_core.wire), LOAD(g_core.div), LOAD(g_core.err), -1 }, r = 0;
lib/fds.c | ind5-fds-dup3-flags-lost | a server that makes a close-on-exec copy of a descriptor with dup3(old, new, O_CLOEXEC) (Python's os.dup2(fd, n, inheritable=False)) gets an inheritable one: every program it starts inherits that copy (of stdout, of the wire); a background child that outlives the server keeps the client's stdout open and the client never sees the end of file |     int r = three ? REAL(dup3)(old, new, flags) : REAL(dup2)(old, new); |     (void)flags;\n    int r = three ? REAL(dup3)(old, new, 0) : REAL(dup2)(old, new);
lib/fds.c | ind5-fds-daemon-args-swapped | a server that detaches with daemon(0, 1) (change to /, keep stdio) runs as daemon(1, 0): its stdio is pointed at /dev/null, so everything it answers after detaching is lost (and its directory is not changed); daemon(1, 0) keeps the client's stdout in the daemon |     int r = REAL(daemon)(nochdir, noclose); |     int r = REAL(daemon)(noclose, nochdir);
lib/transfer.c | ind5-transfer-piece-ignores-count | after the gate, sendfile(1, fd, &off, N) or splice with N under 4 KiB (a message kept in a larger file, a record at a time) puts up to 4 KiB on the wire: the bytes after the requested range reach the client, and the call returns more than was asked |     size_t want = len < sizeof buf ? len : sizeof buf; |     size_t want = sizeof buf;\n    (void)len;
common/quiet.h | ind5-quiet-closed-fd-inherited | the helper (stdiogate-filter --drain, started lazily when a server forks or its startup output fills stderr) inherits the server's fd 1, the write end of its own input pipe: it never sees the end of its input and outlives the server holding stderr open; a client or script that reads stderr to its end (subprocess communicate, a CI capture) hangs after the server exits |                : (syscall(SYS_close, i), 0); |                : 0;
common/junk.h | ind5-log-prefix-pid-reversed | `stdiogate --log FILE`: every line in the log is prefixed with the pid's digits reversed ('srv[4321]: ' for pid 1234), so lines cannot be matched to processes |     while (k)\n        log->prefix[n++] = digits[--k]; |     for (size_t d = 0; d < k; d++)\n        log->prefix[n++] = digits[d];
lib/reads.c | ind5-reads-readv-first-iovec-only | a server that reads stdin with readv/preadv2 into several buffers (a small header buffer then a large one, Rust's read_vectored) has only the first buffer shown to the detector: when the first message's newline lands in a later buffer the gate stays shut; a notification written before the answer goes to stderr, and the answer opens the gate only through the fail-safe with the warning that the server answered before stdiogate saw the message end |     for (int i = 0; i < cnt && r > 0 && shut(); i++) { |     for (int i = 0; i < 1 && r > 0 && shut(); i++) {
shim.c | ind5-shim-discard-startup-to-stderr | `stdiogate --discard CMD` (STDIOGATE_DISCARD=1): the startup banner printed before the first message appears on stderr instead of being thrown away |     if (sg_env_discard(env_value(SG_ENV_DISCARD)))\n        return 0;\n    if (fl < 0 \|\| (fl & O_ACCMODE) == O_RDONLY) |     if (fl < 0 \|\| (fl & O_ACCMODE) == O_RDONLY)
lib/system.c | ind5-system-sigmask-kept | after the gate, a command a tool runs with system() starts with SIGCHLD blocked (the mask system() holds while it waits): a Node program or anything else that learns of its children's end through SIGCHLD never does, and the tool call hangs; unwrapped it runs with the caller's normal mask |     posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF \| POSIX_SPAWN_SETSIGMASK); |     posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
common/env.h | ind5-env-debug-sign-dropped | STDIOGATE_DEBUG=-1 (meant: silent, level 0) runs at level 1, and -3 at level 3: warnings or level-3 details appear on stderr where the user asked for none, with 'using 1' / 'using 3' in the invalid-level warning |     if (*p == '-' \|\| *p == '+')\n        negative = *p++ == '-'; |     if (*p == '-' \|\| *p == '+')\n        p++;
protocol/detect.h | ind5-line-closer-unmatched | a one-line JSON-RPC-shaped text whose brackets do not match ('{"jsonrpc":"2.0","method":"log","params":[1}}', a garbled or cut log line) is taken whole by the one-pass line parser and reaches the client (after the gate and under --strict) instead of stderr: the client fails to parse it |     c = p[i];\n    if (((arrays >> (depth - 1)) & 1) != (c == ']'))\n        return 0;\n    if (c == '}' && depth == record && !has_jsonrpc) |     c = p[i];\n    if (c == '}' && depth == record && !has_jsonrpc)
protocol/detect.h | ind5-stream-col0-not-kept | a junk line that ends in '[', ',' or ':' (a JSON dump's first line, 'items: [') written in one call, then a one-line answer written in the next call: the answer is taken as the dump's continuation and, when the candidate fails, goes to stderr with it; the client never gets the answer (after the gate, under --strict, and before the gate) |                     if (i == n)\n                        s->col0 = 1;\n                    else if (p[i] == '{' \|\| p[i] == '[')\n                        goto fail; |                     if (i < n && (p[i] == '{' \|\| p[i] == '['))\n                        goto fail;
protocol/detect.h | ind5-line-escape-unchecked | a one-line JSON-RPC-shaped text with an invalid escape in a string ('{"jsonrpc":"2.0","method":"log","params":{"path":"C:\\dir"}}', Windows paths printed raw) is taken whole by the one-pass parser and reaches the client, which fails to parse it; a line whose string ends in a backslash before the newline is read past its end |         if (p[i + 1] != 'u') {\n            if (sg_unescape(p[i + 1]) < 0)\n                return 0;\n            i += 2;\n            continue;\n        } |         if (p[i + 1] != 'u') {\n            i += 2;\n            continue;\n        }
protocol/detect.h | ind5-line-prefix-keys-lost | a server whose stdin reads stdiogate cannot see (raw system calls, io_uring, a child reading stdin) answers the first request with the usual one-line '{"jsonrpc":"2.0","id":1,"result":...}': the one-pass parser forgets the "jsonrpc" it matched as a prefix, so the answer is no proof of a read: it goes to stderr and the client waits for ever |         has_jsonrpc = elements = 1;\n        found = SGK_JSONRPC; |         has_jsonrpc = elements = 1;\n        found = 0;
filter/relay.c | ind5-relay-wire-out-partial-repeats | under --strict, when the wire takes part of a write (a large answer to a client that reads slowly, a non-blocking socket) the rest is written again from the start of its piece: the client receives a stretch of the message twice and the message's tail cut, and fails to parse it |         if (cnt > 0) {\n            iov[0].iov_base = (char *)iov[0].iov_base + done;\n            iov[0].iov_len -= done;\n        } |         if (cnt > 0)\n            iov[0].iov_len -= done;
filter/relay.c | ind5-filter-sigpipe-not-ignored | under --strict (and the default mode's helper) started from a shell with SIGPIPE at its default: when stderr's reader has gone, the filter's first junk write kills it with SIGPIPE, and the server then dies of SIGPIPE at its next write to stdout (unwrapped it would go on serving); the filter's exit line at -v is never printed |         case SIGTRAP: case SIGSYS: case SIGABRT: case SIGCONT: case SIGCHLD: |         case SIGTRAP: case SIGSYS: case SIGABRT: case SIGCONT: case SIGCHLD: case SIGPIPE:
filter/junk.c | ind5-filter-stderr-pipe-blocking | under --strict and in default mode's helper, with stderr a pipe nobody reads (or a slow reader), the filter writes junk on the blocking stderr: past 64 KiB of junk it blocks for good, stops relaying, and the client gets no more answers (the server then blocks on its own stdout) |     } else if (S_ISFIFO(err.st_mode) \|\| S_ISCHR(err.st_mode)) { |     } else if (S_ISCHR(err.st_mode)) {
check/json.c | ind5-json-backslash-raw | `stdiogate --check --json` on a server whose command line, stderr tail or junk excerpt holds a backslash (a Windows-style path, a regex, the \\n of an escaped excerpt) prints the backslash raw: invalid JSON or a changed string; the doctor then cannot read the check's result |         if (c == '"' \|\| c == '\\\\') {\n            printf("\\\\%c", c); |         if (c == '"') {\n            printf("\\\\%c", c);
check/report.c | ind5-report-fixed-by-last | `stdiogate --check` on a server that is clean unwrapped, or clean under the default mode, reports the last clean run as the fix: verdict 'run it under stdiogate --strict' with exit status 2 instead of 'clean' (0) or 'run it under stdiogate' (1) |         if (run_clean(&runs[i])) {\n            v->fixed_by = &runs[i];\n            break;\n        } |         if (run_clean(&runs[i]))\n            v->fixed_by = &runs[i];
check/main.c | ind5-check-linger-zero-refused | `stdiogate --check --linger 0 CMD` (no wait after the last answer) is refused with "invalid number of seconds '0'" and exit status 125 | seconds_option("--linger", option_value(argv, &i, "--linger"), 1) | seconds_option("--linger", option_value(argv, &i, "--linger"), 0)
common/inspect.c | ind5-inspect-env-assignment-as-program | a script starting '#!/usr/bin/env -S GODEBUG=x mygoserver' (or -S BUN_ENV=1 bun) is judged by the assignment 'GODEBUG=x' (not found): no 'is a Go program' / 'is a Bun program' warning and it is not run under the filter: its startup banner and its answers are not guarded |         if (word[0] == '-' \|\| strchr(word, '='))\n            continue; |         if (word[0] == '-')\n            continue;
stdiogate | ind5-wrapper-dir-path-accepted | `stdiogate ./srvdir` (a directory given as COMMAND with a slash) is not refused with 'stdiogate: ./srvdir: is a directory' and status 126: the wrapper runs the checker on it and its exec fails with the shell's own 'Permission denied' message |             { [ -f "$1" ] && [ -x "$1" ]; } \|\| return 126 |             [ -x "$1" ] \|\| return 126
stdiogate | ind5-wrapper-log-slash-taken-absolute | `stdiogate --log logs/srv.log CMD` (a relative path with a directory in it) is not made absolute: a server that changes its directory logs into another place or not at all ('cannot open the log logs/srv.log' on stderr) |         ''\|/*) ;;\n        *) export STDIOGATE_LOG="$PWD/$STDIOGATE_LOG" ;; |         ''\|*/*) ;;\n        *) export STDIOGATE_LOG="$PWD/$STDIOGATE_LOG" ;;
doctor/stdiogate-doctor | ind5-doctor-uvx-wrapper-unseen | an entry already run through uv's fetch ('uvx stdiogate node srv.js', as the doctor itself writes when stdiogate runs from uv's cache) is listed as not wrapped, checked as if bare, and --fix wraps it a second time | FETCHERS = ("npx", "bunx", "pnpx", "uvx", "pipx", "uv", "npm", "pnpm", "yarn", "bun") | FETCHERS = ("npx", "bunx", "pnpx", "pipx", "uv", "npm", "pnpm", "yarn", "bun")
doctor/stdiogate-doctor | ind5-doctor-exit-status-last-server | `stdiogate --check --config` exits with the status of the last server checked instead of the worst: a leaking or broken server followed by a clean one gives exit status 0 |                 worst = max(worst, r["status"]) |                 worst = r["status"]
doctor/stdiogate-doctor | ind5-doctor-toml-quote-unescaped | `stdiogate --check --client codex -- node srv.js --title 'say "hi"'` (any argument, name or env value with a double quote) prints a TOML entry with the quote raw, and --fix writes one into Codex's config.toml: Codex cannot read its configuration | _toml_escapes = {"\\\\": "\\\\\\\\", '"': '\\\\"', "\\b": "\\\\b", | _toml_escapes = {"\\\\": "\\\\\\\\", "\\b": "\\\\b",
doctor/stdiogate-doctor | doctor-name-last-word | `stdiogate --check --client cursor -- npx -y @modelcontextprotocol/server-filesystem /tmp` prints an entry named 'tmp' (the server's last argument) instead of 'server-filesystem'; 'node srv.js --port 80' is named '80' |             return argv[i:]\n    return [] |             return argv[-1:]\n    return []
doctor/stdiogate-doctor | doctor-name-option-value | `stdiogate --check --client cursor -- docker run -i --rm -e KEY=VAL mcp/x` names the entry 'KEY-VAL' (a launcher option's value) instead of 'x'; 'node -r dotenv/config srv.js' is named 'config' |             i += 2 if takes_value(kind, a) else 1 |             i += 1
doctor/stdiogate-doctor | doctor-subcommand-as-package | `stdiogate --check --client cursor -- uv tool run mcp-server-time` names the entry 'tool' (the launcher's subcommand), and an entry 'pipx run stdiogate CMD' is listed as not wrapped and wrapped again by --fix |         elif a in LAUNCHERS[kind][1].split() or (kind == "env" and "=" in a): |         elif kind == "env" and "=" in a:
# ---- coverage round of 2026-12-07: lines that a coverage run of the suite
# (gcov) showed no test executing, each killed by the test written for it
# (docs/TESTING.md, "Mutation testing": the coverage run).
lib/transfer.c | cov-transfer-sendfile64-unguarded | after the gate, a server that moves bytes onto stdout with sendfile64 (a C program built with _FILE_OFFSET_BITS=64 on 32-bit, a runtime calling the 64 name) puts junk from the file straight on the wire: the client gets a log line inside the protocol stream | return move_piece(in, offset, out, count, "sendfile"); | return REAL(sendfile64)(out, in, offset, count);
lib/transfer.c | cov-transfer-splice-nonblock-waits | after the gate, splice(pipe, NULL, 1, NULL, n, SPLICE_F_NONBLOCK) from an empty pipe blocks instead of failing with EAGAIN: an event-loop server that polls its pipes hangs in the call and answers nothing more | if (poll(&q, 1, 0) == 0) { | if (poll(&q, 1, 0) < 0) {
lib/stdout.c | cov-stdout-format-boundary | after the gate, a printf (or dprintf) whose output is exactly 1024 bytes puts 1023 of them and a NUL byte in place of the last: a message loses its newline (the client waits for its end), a junk line reaches stderr with a NUL | if (n >= (int)sizeof small) { | if (n > (int)sizeof small) {
lib/stdout.c | cov-stdout-format-map-short | after the gate, a printf (or dprintf) longer than 1 KiB puts a NUL byte in place of its last character: every long message loses its newline and the client never sees it end | mapped = (size_t)n + 1; | mapped = (size_t)n;
lib/stdout.c | cov-stdout-putchar-unguarded | after the gate, a C server that writes stdout with putchar() called as a function (no inlining: another compiler, -O0, an FFI) has every buffer glibc writes itself from inside the call go straight to the wire: a log line longer than stdio's buffer reaches the client | return on_wire_n(stdout, 1) ? putc(c, stdout) : REAL(putchar)(c); | return REAL(putchar)(c);
lib/stdout.c | cov-stdout-putchar-unlocked-unguarded | as cov-stdout-putchar-unguarded, with putchar_unlocked() | return on_wire_n(stdout, 1) ? putc_unlocked(c, stdout) : REAL(putchar_unlocked)(c); | return REAL(putchar_unlocked)(c);
lib/stdout.c | cov-stdout-io-putc-dropped | as cov-stdout-putchar-unguarded, with _IO_putc() (what putc is in binaries built against old glibc headers) | PUTTER_C_FP(_IO_putc, 1)\nPUTTER_C_FP(fputc_unlocked, 0) | PUTTER_C_FP(fputc_unlocked, 0)
lib/stdout.c | cov-stdout-fputc-unlocked-dropped | as cov-stdout-putchar-unguarded, with fputc_unlocked() | PUTTER_C_FP(fputc_unlocked, 0)\nPUTTER_C_FP(putc_unlocked, 0) | PUTTER_C_FP(putc_unlocked, 0)
lib/stdout.c | cov-stdout-fflush-unlocked-real | after the gate, a C server that fills stdout's buffer (inline putc_unlocked, fwrite_unlocked) and flushes it with fflush_unlocked has glibc write the buffer itself: the junk in it reaches the wire |         return flush_on_wire(fp, 0);\n    if (flushed_on_wire(fp) && flush_on_wire(fp, 0) != 0) |         return REAL(fflush_unlocked)(fp);\n    if (flushed_on_wire(fp) && flush_on_wire(fp, 0) != 0)
filter/junk.c | cov-filter-log-given-up-kept | `stdiogate --strict --log FILE` whose log fails a write (a full disk, /dev/full, a log on a removed mount): the log is closed but not given up: every later batch of junk writes to the closed descriptor (or to whatever the filter opens there next) and prints 'cannot write the log' again, a line per batch on stderr |         close(log->fd);\n        log->fd = -1; |         close(log->fd);
common/junk.h | cov-log-junk-given-up-goes-on | `stdiogate --strict --log FILE` whose log fails a write in the middle of a batch of junk lines: the rest of the batch is written to descriptor -1 and 'cannot write the log: Bad file descriptor' follows the first warning on stderr | k = 0;\n                if (log->fd < 0)\n                    return;     /* given up */ | k = 0;
filter/launcher.c | cov-launcher-closed-stdout-filtered | `stdiogate --strict CMD >&-` (stdout closed): the filter is started anyway on a pipe: COMMAND's writes to stdout succeed where unwrapped they fail with EBADF, and what it writes lands on stderr as junk; a server that checks its stdout behaves differently wrapped |         say(1, "strict: stdout is closed: running without the filter");\n        return 0; |         say(1, "strict: stdout is closed: running without the filter");
check/json.c | cov-json-solidus-escape-refused | `stdiogate --check` on a server whose answers escape a slash ("https:\\/\\/example.com", as PHP's json_encode and many Java encoders write URLs) calls every such answer malformed: verdict 'answers that are not JSON-RPC', exit status 3, for a server that works | !strchr("\\"\\\\/bfnrt", *p) | !strchr("\\"\\\\bfnrt", *p)
check/json.c | cov-json-hex-lower-wrong | `stdiogate --check --json` (and the text report) shows an error message or a name written with lower-case \\u escapes (\\u00e9) as the wrong characters | return c - 'a' + 10; | return c - 'a';
check/json.c | cov-json-exponent-minus-refused | `stdiogate --check` on a server whose answers hold a number with a negative exponent (2E-2, 1e-06: Python's json.dumps of small floats) calls them malformed: exit status 3 for a server that works |         if (p < e && (*p == '+' \|\| *p == '-')) |         if (p < e && *p == '+')
check/json.c | cov-json-utf8-last-char-cut | `stdiogate --check --json`: a text that ends in a two-, three- or four-byte UTF-8 character (a command-line argument, an error message ending in 'É') has that character replaced by U+FFFD |     if (len == 0 \|\| len > n) |     if (len == 0 \|\| len >= n)
check/json.c | cov-json-invalid-utf8-raw | `stdiogate --check --json` on a command line (or message) with a byte that is not UTF-8 (a Latin-1 file name) writes the byte raw: the document is not valid JSON, and jq or the doctor (which reads it) rejects or alters it | fputs("\\\\ufffd", stdout); | putchar(p[i]);
check/json.c | cov-json-control-1f-raw | `stdiogate --check --json` writes the control byte 0x1f raw when a command line or message holds one: the document is not valid JSON (jq: 'Invalid string: control characters ... must be escaped') |         } else if (c < 0x20 \|\| c == 0x7f) { |         } else if (c < 0x1f) {
lib/guard.c | cov-guard-alone-junk-to-wire-too | after the gate, a signal handler (or a vfork child) that writes a log line and a message in one call while the server is inside a write of its own (a large answer on its way): the log line goes to stderr and to the wire as well; the client gets a line that is not JSON-RPC |                 from = pos + k; |                 from = pos;
protocol/detect.h | cov-detect-hex-f-refused | a message with a \\u escape whose hex digits hold an 'f' or 'F' (\\uFFFD, \\u00ff: any text a JSON encoder escapes) is taken for junk by the byte-by-byte classifier: written in pieces after the gate or under --strict, the message goes to stderr and the client waits for its answer for ever |     if (c >= 'a' && c <= 'f')\n        return c - 'a' + 10; |     if (c >= 'a' && c < 'f')\n        return c - 'a' + 10;
protocol/detect.h | cov-detect-dot-takes-anything | a JSON-shaped log line with a number like '1.e5' or '1.x' (not JSON: a digit must follow the dot), written in pieces after the gate or under --strict, is taken for a message and reaches the client, which fails to parse it |         return sg_number_to(s, digit, SN_FRAC); |         return sg_number_to(s, 1, SN_FRAC);
protocol/detect.h | cov-detect-exp-takes-anything | a message with a number in exponent form ([6E+2,7e2], -2.25e-3: Python's json.dumps of small floats), written in pieces after the gate or under --strict: the classifier takes the comma or bracket after the exponent as part of the number, the message for junk: it goes to stderr and the client waits for its answer for ever |     default:                    /* SN_EXP */\n        return digit ? 1 : 0; |     default:                    /* SN_EXP */\n        return 1;
protocol/detect.h | cov-detect-byte-escape-unchecked | a JSON-shaped log line with an invalid escape in a string ('"C:\\dir"', a Windows path printed raw), written in pieces after the gate or under --strict, is taken for a message and reaches the client, which fails to parse it |             int u = sg_unescape(c);\n            if (u < 0)\n                return 0; |             int u = sg_unescape(c);
protocol/detect.h | cov-line-hex-unchecked | a one-line JSON-shaped log line with a bad \\u escape ('"\\u00g0"') written in one call is taken whole by the one-pass line parser and reaches the client (after the gate and under --strict), which fails to parse it |         for (size_t h = i + 2; h < i + 6; h++)\n            if (sg_hex_digit(p[h]) < 0)\n                return 0;\n        i += 6; |         i += 6;
lib/write.c | cov-write-cmsg-other-stops | a server (a launcher such as flatpak-spawn, systemd-run) that, before the client's first message, passes its stdout over a socket in a message whose first control entry is another kind (SCM_CREDENTIALS first, then SCM_RIGHTS) passes the diversion instead of the wire: what the receiving process answers goes to stderr and the client hangs | c->cmsg_len < CMSG_LEN(0))\n            continue; | c->cmsg_len < CMSG_LEN(0))\n            break;
doctor/stdiogate-doctor | cov-doctor-args-string-split | a configuration entry whose args is a string ("args": "--stdio", a common hand-written mistake) is run with each character as an argument ('-', '-', 's', ...) instead of being listed as not run with 'args is not a list'; --fix would wrap the split command |         if not isinstance(args, list): |         if isinstance(args, dict):
doctor/stdiogate-doctor | cov-doctor-env-list-taken | a configuration entry whose env has a list for a value ("env": {"PATHS": ["a", "b"]}) is run with the list's Python text as the variable's value instead of being listed as not run with 'env is not a table of strings' |         if any(isinstance(v, (list, dict)) for v in self.env.values()): |         if any(isinstance(v, dict) for v in self.env.values()):
doctor/stdiogate-doctor | cov-doctor-array-file-crash | `stdiogate --check --config FILE` on a JSON file that is an array (or a number, a string) is not named unreadable with 'not an object' and exit status 6: it says no server is configured, or ends in a Python traceback |     if not isinstance(cf.doc, dict): |     if cf.doc is None:
doctor/stdiogate-doctor | cov-doctor-entry-scalar-crash | a configuration whose servers table holds a value that is not an object ("mcpServers": {"old": 5}) makes --check --config, --list and --fix end in a Python traceback instead of listing it as not run ('not an object') and going on with the others |         if not isinstance(e, dict): |         if e is None:
doctor/stdiogate-doctor | cov-doctor-oserror-narrowed | `stdiogate --check --config PATH` where PATH is a directory (or a file it may not read) ends in a Python traceback instead of 'stdiogate: PATH: Is a directory' and exit status 6 |     except OSError as e:\n        cf.error = e.strerror |     except FileNotFoundError as e:\n        cf.error = e.strerror
lib/reopen.c | cov-reopen-openat64-dirfd-dropped | a server that opens a file relative to a directory descriptor with openat64 (a C program built with _FILE_OFFSET_BITS=64, Rust's std, Python's os.open(dir_fd=)) before its first message or after the gate opens the name in its current directory instead: ENOENT or the wrong file | case OP_OPENAT64: return REAL(openat64)(dirfd, path, flags, mode); | case OP_OPENAT64: return REAL(openat64)(AT_FDCWD, path, flags, mode);
lib/reopen.c | cov-reopen-openat-2-dirfd-dropped | as cov-reopen-openat64-dirfd-dropped, with the fortified __openat_2 (openat in a program built with -D_FORTIFY_SOURCE and flags not known at compile time) | case OP_OPENAT_2: return REAL(__openat_2)(dirfd, path, flags); | case OP_OPENAT_2: return REAL(__openat_2)(AT_FDCWD, path, flags);
lib/reopen.c | cov-reopen-openat64-2-as-open | as cov-reopen-openat64-dirfd-dropped, with the fortified __openat64_2 | default: return REAL(__openat64_2)(dirfd, path, flags); | default: return REAL(__open_2)(path, flags);
lib/reopen.c | cov-reopen-open64-2-flags-lost | a program built with -D_FORTIFY_SOURCE and large-file offsets that opens a file with flags not known at compile time (__open64_2) gets it read-only, without O_APPEND or O_CLOEXEC, before its first message and after the gate: its writes fail with EBADF | case OP_OPEN64_2: return REAL(__open64_2)(path, flags); | case OP_OPEN64_2: return REAL(__open64_2)(path, O_RDONLY);
protocol/detect.h | cov-detect-header-blank-after-value-bad | an LSP client whose first message's header has blanks after the Content-Length value ('Content-Length: 52 \\r\\n', allowed white space) is not seen to end: the gate opens only when the server answers (with the level-1 warning that the server answered before stdiogate saw the message end), and what the server writes before its answer (a notification, a log message) goes to stderr |     case SG_AFTER_VALUE:\n        if (!sg_is_blank(c)) { |     case SG_AFTER_VALUE:\n        if (sg_is_blank(c)) {
protocol/detect.h | cov-detect-header-tab-after-value-bad | as cov-detect-header-blank-after-value-bad, with a tab right after the Content-Length value |         } else if (sg_is_blank(c) && d->value_digits) {\n            d->field = SG_AFTER_VALUE; |         } else if (c == ' ' && d->value_digits) {\n            d->field = SG_AFTER_VALUE;
# ---- coverage round 2 of 2026-12-07: the lines the first round's "Left"
# list named and others no test executed (docs/TESTING.md, "Mutation
# testing"), each killed by the test written for it.
protocol/detect.h | c2-detect-line-never-ends | a client whose first message does not begin with '{', '[' or a letter (a UTF-8 byte order mark before the JSON, as a Windows tool or a pipe through PowerShell sends it) is never seen to end: the gate opens only when the server answers, with the level-1 warning that the server answered first, and what the server writes before its answer goes to stderr |         case SG_LINE:\n            if (c == '\\n') |         case SG_LINE:\n            if (c == '\\r')
lib/reopen.c | c2-reopen-fopen-append-unknown | a server that opens its stdout by name in append mode before its first message (fopen("/dev/stdout", "a"), as a logging setup or curl -o does) gets a stream on the diversion: every answer it writes through it after the gate goes to stderr and the client waits for ever |     case 'a': flags = O_WRONLY \| O_CREAT \| O_APPEND; break;\n    default: return -1; |     default: return -1;
lib/reopen.c | c2-reopen-fopen-plus-or | fopen("/dev/stdout", "w+") or "a+" before the first message fails (EINVAL: a descriptor opened with both O_WRONLY and O_RDWR): the server exits at start where unwrapped it serves | flags = (flags & ~O_ACCMODE) \| O_RDWR; | flags \|= O_RDWR;
lib/reopen.c | c2-reopen-fopen-e-ignored | fopen("/dev/stdout", "we") before the first message gives a descriptor that is not close-on-exec: every program the server starts inherits the wire (a child holds the client's pipe open after the server exits) | else if (*m == 'e') | else if (*m == 'c')
lib/guard.c | c2-guard-log-open-quiet | `stdiogate --log FILE` where FILE cannot be opened (a directory, a missing directory, a read-only mount): the library logs nothing and says nothing at the default level: the user finds an empty log and no reason | say(1, "cannot open the log ", path, | say(3, "cannot open the log ", path,
filter/junk.c | c2-filter-log-open-failure-kept | `stdiogate --strict --log FILE` (or the default mode's helper) where FILE cannot be opened: no 'cannot open the log' warning; the filter writes the log to descriptor -1 and says 'cannot write the log: Bad file descriptor' instead, which names the wrong cause |     if (fd < 0) {\n        say(1, "cannot open the log %s: %s" |     if (fd < -1) {\n        say(1, "cannot open the log %s: %s"
check/report.c | c2-check-signal-not-named | `stdiogate --check` on a server that dies of a signal (a crash: SIGSEGV, SIGABRT; the OOM killer) says it 'ended' instead of 'killed by signal 11 (Segmentation fault)': the user is not told it crashed |     else if (WIFSIGNALED(r->status))\n        snprintf(out, cap, "killed by signal |     else if (WIFSTOPPED(r->status))\n        snprintf(out, cap, "killed by signal
check/report.c | c2-check-signal-json-exitstatus | `stdiogate --check --json` on a server that dies of a signal gives "signal": 0 instead of its number: a script (the doctor, CI) that reads the document cannot tell a crash from an exit |     if (r->exited && WIFSIGNALED(r->status))\n        printf("%d", WTERMSIG(r->status)); |     if (r->exited && WIFSIGNALED(r->status))\n        printf("%d", WEXITSTATUS(r->status));
check/output.c | c2-check-lsp-request-mcp-answer | `stdiogate --check --protocol lsp` answers an LSP server's request (window/workDoneProgress/create, client/registerCapability) with an MCP 'method not found' error: a server that treats the error as fatal fails the check, and the verdict blames the server |     else if (r->opt->protocol == PROTO_LSP)\n        body = xasprintf |     else if (r->opt->protocol == PROTO_DAP)\n        body = xasprintf
check/output.c | c2-check-dap-request-unanswered | `stdiogate --check --protocol dap` leaves a debug adapter's request (runInTerminal, startDebugging) unanswered: an adapter that waits for the answer never answers the next request and the check times out (status 5) for an adapter that works |         answer_server_request(r, seq, command);\n        return 1; |         return 1;
check/output.c | c2-check-batch-loop-bracket | `stdiogate --check` on a server that answers in a JSON-RPC batch ([{...}], MCP 2025-03-26) takes none of the batch's members: no answer seen, status 5 (timed out) for a server that works |         for (p = json_ws(p + 1, end); p < end && *p == '{';) { |         for (p = json_ws(p + 1, end); p < end && *p == '[';) {
check/output.c | c2-check-batch-comma-blank | `stdiogate --check` on a server whose batch has a blank after a comma ('[ {...}, {...} ]', as pretty printers and Python's json.dumps write it) takes only the first member: the answer after it is not seen, status 5 |             if (p < end && *p == ',')\n                p = json_ws(p + 1, end); |             if (p < end && *p == ',')\n                p = p + 1;
check/output.c | c2-check-batch-as-object | `stdiogate --check` on a server that answers in a JSON-RPC batch takes the array for one object and finds no answer in it: status 5 for a server that works |     if (p < e && *p == '[') { |     if (p < e && *p == '{') {
lib/epoll.c | c2-epoll-detach-one-short | a server (tokio, an event loop) that registers fd 1 with 16 epoll instances before the first message: the 16th registration is not moved to the wire when the gate opens: a writer that waits on that instance after a full pipe never hears it has room and hangs |     for (int i = 0; i < EPOLL_NOTED && LOAD(g_nnoted) > 0; i++) {\n        struct noted *n = &g_noted[i];\n        n->detached |     for (int i = 0; i < EPOLL_NOTED - 1 && LOAD(g_nnoted) > 0; i++) {\n        struct noted *n = &g_noted[i];\n        n->detached
lib/epoll.c | c2-epoll-del-not-forgotten | a server that deletes an epoll registration of fd 1 before the first message (a probe, an event loop restarted) leaves its slot taken: the table fills sooner, and a later registration is neither remembered nor moved to the wire: the writer waiting on it hangs |         if (n) {\n            n->epfd = n->fd = -1;\n            __atomic_fetch_sub(&g_nnoted, 1, __ATOMIC_ACQ_REL); |         if (n) {\n            __atomic_fetch_sub(&g_nnoted, 1, __ATOMIC_ACQ_REL);
check/output.c | c2-check-stray-uncounted | `stdiogate --check` on a server that answers a request twice (a retry bug, a duplicated write) calls it clean (status 0): a client that rejects answers to nothing asked (the Go SDK) fails with it |         r->stray++;  /* an answer to nothing asked */\n        return; |         return;
check/report.c | c2-check-stray-not-an-error | `stdiogate --check` counts a stray answer (a request answered twice) but does not call it a protocol error: status 0 and 'clean' for a server that sends answers to nothing asked |     int n = (int)(r->stray + r->malformed); |     int n = (int)r->malformed;
lib/epoll.c | c2-epoll-reattach-stops-at-hole | a server that registers fd 1 with epoll in several places before the first message and deletes an earlier registration (a probe instance, a loop restarted) leaves a hole in the table: when the gate opens, no registration after the hole is moved to the wire, and a writer waiting on one after a full pipe hangs |         if (n->epfd < 0)\n            continue;\n        if (n->detached && is( |         if (n->epfd < 0)\n            break;\n        if (n->detached && is(
doctor/stdiogate-doctor | c2-doctor-value-last-option-crash | `stdiogate --check --config --timeout` (an option without its value at the end) ends in a Python traceback (IndexError) instead of "option '--timeout' needs a value" and status 125 |             if i + 1 >= len(argv): |             if i + 1 > len(argv):
doctor/stdiogate-doctor | c2-doctor-number-valueerror-crash | `stdiogate --check --config --jobs x` (or --timeout x) ends in a Python traceback instead of "--jobs needs a number, not 'x'" and status 125 |     except (TypeError, ValueError):\n        usage_error(f"{name} needs a number |     except TypeError:\n        usage_error(f"{name} needs a number
doctor/stdiogate-doctor | c2-doctor-config-equals-name | `stdiogate --check --list=FILE` (or --config=FILE) reads the file named '--list=FILE' instead of FILE: 'no such file' and status 125 |             if eq:\n                o.config = val |             if eq:\n                o.config = a
doctor/stdiogate-doctor | c2-doctor-config-command-ignored | `stdiogate --check --config FILE COMMAND` (a COMMAND where none belongs, as when --client was forgotten) ignores COMMAND and checks every server of FILE instead of saying '--config takes no COMMAND' |         if rest:\n            usage_error(f"--config takes no COMMAND |         if rest is None:\n            usage_error(f"--config takes no COMMAND
doctor/stdiogate-doctor | c2-doctor-client-no-command | `stdiogate --check --client cursor` without a COMMAND ends in a traceback or an entry with no command instead of '--client needs a COMMAND' and status 125 |         if not rest:\n            usage_error("--client needs a COMMAND |         if rest is None:\n            usage_error("--client needs a COMMAND
doctor/stdiogate-doctor | c2-doctor-hoisted-platform-missed | an npm install where npm hoisted @stdiogate/linux-CPU beside the stdiogate package (the usual layout of a project's node_modules): --fix and --client write the path inside the platform package, which the next npm install may move, instead of node_modules/.bin/stdiogate | else os.path.join(m.group(1), "node_modules", | else os.path.join(m.group(1),
doctor/stdiogate-doctor | c2-doctor-no-launcher-named | the platform package installed alone (no stdiogate package, so no launcher): --fix and --client write the launcher's path, which does not exist: the client cannot start the server |     if not os.path.isfile(launcher):\n        return [wrapper] |     if not os.path.isfile(launcher):\n        return [launcher]
doctor/stdiogate-doctor | c2-doctor-no-bin-link-platform-path | an npm install without bin links (npm --no-bin-links, some monorepo tools): --fix and --client write the path inside the platform package instead of the package's launcher |             return [link]\n    return [launcher] |             return [link]\n    return [wrapper]
doctor/stdiogate-doctor | c2-doctor-uv-cache-dir-ignored | stdiogate run by uvx with UV_CACHE_DIR set (a CI cache, a custom cache): --fix and --client write the path inside uv's cache, which uv may clear at any time, instead of 'uvx stdiogate' | uv_cache = os.environ.get("UV_CACHE_DIR") or os.path.join( | uv_cache = os.path.join(
doctor/stdiogate-doctor | c2-doctor-cwd-test-inverted | an entry with a cwd that exists is listed 'cannot start' (and one whose cwd is gone is started): every server configured with a working directory fails the doctor's check |     if cwd and not os.path.isdir(cwd): |     if cwd and os.path.isdir(cwd):
doctor/stdiogate-doctor | c2-doctor-cwd-dropped | an entry's cwd is ignored: its server runs in the doctor's directory, so a relative command or file ('./server.sh', 'node dist/index.js') is not found: 'cannot start' for a server the client runs fine | env=server.run_env(), cwd=cwd or None) | env=server.run_env(), cwd=None)
# ---- independent set 6, round of 2026-12-07 (sixth), written without reading the tests
# (a sixth reviewer who had not read tests/ wrote these 30 plausible bugs; issue 45).
# All 30 applied as written (at 9e9b59e, and after main's merge at baa78a1); the first run
# (21 run, 15 killed) and the survivors' tests since: docs/TESTING.md, "Mutation testing".
lib/guard.c | ind6-guard-queue-out-inside-line | after the gate, while a message over 64 KiB is still being written in several calls (a committed line: the guard between calls inside it), what a signal handler or another thread wrote meanwhile and was queued goes out at the end of the next call, in the middle of that message: the client gets a large answer with another message spliced into it and cannot parse either | if (LOAD(g_queue.len) && g_hold.s.where == SW_OUTSIDE && !open_message()) | if (LOAD(g_queue.len) && !open_message())
lib/guard.c | ind6-guard-whole-first-iovec-only | after the gate, a writev (or sendmsg) whose first buffer is one whole JSON-RPC line and whose next buffers hold anything else (a log line, the start of a pretty-printed dump) goes to the client as it is: the fast path looked at the first buffer only, so junk reaches the wire and nothing reaches stderr | if (cnt == 1 && sg_stream_one_line(protocol, iov[0].iov_base, iov[0].iov_len)) | if (sg_stream_one_line(protocol, iov[0].iov_base, iov[0].iov_len))
lib/guard.c | ind6-guard-stderr-socket-full-is-gone | after the gate, with stderr a socket (systemd's journal stream, a socketpair a supervisor reads) that is full for a moment, the junk of that moment and everything waiting in the backlog are dropped as if nobody read stderr: lines missing on stderr and a level-1 'N bytes of output kept off the wire were dropped: stderr was full' at exit, where they should have waited and arrived | return w < 0 && errno == EAGAIN ? 0 : w;    /* full, not gone: it takes nothing now */ | return w;
lib/guard.c | ind6-guard-pend-dropped-on-eagain | after the gate, on a non-blocking stdout (Node, libuv, asyncio) with a slow client: held bytes of a message (its first bytes, written in a call of their own, e.g. an LSP header or a lone '{') that the full wire took only in part are thrown away at the next call's EAGAIN instead of retried: the client gets a message without its beginning (a body without its header, broken JSON) and hangs | if (w < 0 && errno != EAGAIN && errno != EINTR)\n                g_hold.pend = 0;    /* the client is gone: the program sees why */ | if (w < 0 && errno != EINTR)\n                g_hold.pend = 0;    /* the client is gone: the program sees why */
lib/fds.c | ind6-fds-close-range-cloexec-forgets | before the first message, a server that kept a copy of stdout (out = dup(1)) and then marks its descriptors close-on-exec with close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) (done before spawning helpers; the copy stays open) has the copy forgotten: at the gate it is not pointed at the wire, so every answer it writes through the copy goes to stderr and the client waits for ever | if (r == 0 && !(flags & CLOSE_RANGE_CLOEXEC) && tracking()) | if (r == 0 && tracking())
lib/fds.c | ind6-fds-each-copy-last-excluded | before the first message, a server that saved stdout as descriptor N (dup(1)) and later closes a range ending exactly at N (close_range(3, N, 0)) still has N taken for a copy of stdout: a file it then opens on N has its writes diverted to stderr, and at the gate N is pointed at the wire, so that file's contents go to the client | if (fd >= first && fd <= last)\n                fn((int)fd, arg); | if (fd >= first && fd < last)\n                fn((int)fd, arg);
lib/write.c | ind6-write-scm-passes-diversion | a server that hands its stdout over a socket (SCM_RIGHTS) before the gate (flatpak-spawn --host, systemd-run --pipe) gives the other process the diversion instead of the wire: everything that service answers goes to stderr (or nowhere) and the client waits for ever, while -vv still says 'it gets the wire' | int wire = shut() ? high_dup(LOAD(g_core.wire)) : -1; | int wire = shut() ? high_dup(LOAD(g_core.div)) : -1;
lib/exec.c | ind6-exec-empty-preload-left | a program the library cannot load into (a musl-linked or other foreign-loader program the server execs or spawns), when LD_PRELOAD held nothing but our entry, starts with an empty 'LD_PRELOAD=' in its environment instead of none: `env` run from it prints LD_PRELOAD=, a program that tests whether LD_PRELOAD is set sees it set, unlike unwrapped | return k > 11 ? out : NULL; | return out;
lib/reads.c | ind6-reads-fread-items-not-bytes | a C server that reads stdin with fread(buf, SIZE, n, stdin) with SIZE over 1 (fread(hdr, sizeof hdr, 1, stdin), records) shows the detector the item count, not the bytes: the end of the client's first message is never seen, startup output after it stays diverted, and the gate opens only at the server's answer, with the level-1 warning 'the server answered before stdiogate saw the client's first message end' | stdio_end(&c_, p, r * size, #name); | stdio_end(&c_, p, r, #name);
common/junk.h | ind6-log-open-blocking | `stdiogate --log FIFO` (the log a named pipe, e.g. a log viewer's) with no reader yet: the server blocks in open at the gate (the helper at start) instead of logging nothing: the client gets no answer and hangs; with a slow reader every junk line blocks the server | #define SG_LOG_OPEN_FLAGS (O_WRONLY \| O_APPEND \| O_CREAT \| O_CLOEXEC \| O_NONBLOCK \| O_NOCTTY) | #define SG_LOG_OPEN_FLAGS (O_WRONLY \| O_APPEND \| O_CREAT \| O_CLOEXEC \| O_NOCTTY)
common/quiet.h | ind6-quiet-status-pipe-inherited | every quiet child (the strict filter, the default mode's helper stdiogate-filter --drain) keeps the status pipe open across its exec, so its starter, waiting for the pipe's end, waits until that child exits: `stdiogate --strict CMD` never starts CMD (the client hangs with no answer), and a server that needs the helper blocks at its first startup output | if (!e && syscall(SYS_dup3, q->status, SG_QUIET_STATUS, O_CLOEXEC) < 0) | if (!e && syscall(SYS_dup3, q->status, SG_QUIET_STATUS, 0) < 0)
lib/handshake.c | ind6-handshake-putenv-name-only | a server that says it is ready with putenv("STDIOGATE_OPEN=1") (not setenv) never opens the gate by it: the value is read as '=1': what it writes next, before reading stdin (a notification, a greeting message), goes to stderr instead of the client | (value = sg_env_after(s, HANDSHAKE "=")) | (value = sg_env_after(s, HANDSHAKE))
shim.c | ind6-shim-open-at-start-unguarded | a server started with STDIOGATE_OPEN=1 already in its environment (it says it is ready from the start: no gate) runs with no session guard at all: log lines and banners it prints while serving reach the client, where only the gate should have been skipped | return LOAD(g_guard_wanted) ? GUARD_ONLY : AS_IT_IS; | return open && LOAD(g_guard_wanted) ? GUARD_ONLY : AS_IT_IS;
common/env.h | ind6-env-debug-trailing-ignored | STDIOGATE_DEBUG=2x (or '3 ', '0,', '4;') is read as level 2 (3, 0, 4) instead of the documented 1 for a value that is not a number: the warning says 'using 2', -level 3 details flood stderr, or with '0,' every warning is silenced | *level = !digits \|\| *p ? 1 : negative ? 0 : value > 4 ? 4 : value; | *level = !digits ? 1 : negative ? 0 : value > 4 ? 4 : value;
protocol/detect.h | ind6-line-batch-members-unchecked | after the gate (and under --strict), a one-line JSON array of objects without "jsonrpc" (a tool printing json.dumps(rows): '[{"name":"a"},{"name":"b"}]') is taken as a JSON-RPC batch and sent to the client, which rejects it, instead of going to stderr | if (c == '}' && depth == record && !has_jsonrpc) | if (c == '}' && depth == 1 && !has_jsonrpc)
protocol/detect.h | ind6-value-bytes-array-uncounted | a pretty-printed JSON-RPC answer over 64 KiB (json.dumps(indent=2) of a large tool result holding arrays) is cut where the first array closes: the rest of its lines ('    }', '  ]', '}') are judged junk and go to stderr, the client gets truncated JSON and hangs | else if (c == '{' \|\| c == '[')\n            s->depth++; | else if (c == '{')\n            s->depth++;
protocol/detect.h | ind6-stream-open-line-joins-candidate | a junk line that is an unfinished JSON text ('[' or '{"items": [' printed alone) followed in the same write by a one-line JSON-RPC message: the message is read as part of that junk (the array goes on over lines) and goes to stderr with it, the client never gets the answer | if (i == n)\n                        s->col0 = 1;\n                    else if (p[i] == '{' \|\| p[i] == '[')\n                        goto fail; | if (i == n)\n                        s->col0 = 1;
protocol/detect.h | ind6-stream-rpc-prefix-one-short | every JSON-RPC message that begins '{"jsonrpc":"2.0",' and is not one whole line in one write of at most 4 KiB (answers over 4 KiB, a message written in pieces, one pretty-printed over lines) fails at its 17th byte and goes to stderr as junk: the client never gets large answers (under --strict too) | i += SG_RPC_PREFIX_LEN;\n                    break; | i += SG_RPC_PREFIX_LEN - 1;\n                    break;
filter/junk.c | ind6-filter-discard-skips-log | `stdiogate --strict --discard --log FILE CMD` (the help: '--discard: FILE only'): nothing is written to FILE, the junk is thrown away unlogged; the same with stderr closed (2>&-) under the filter or the helper |     if (g_log.fd >= 0)\n        log_junk(iov, cnt);\n    for (int i = 0; i < cnt; i++)\n        total += iov[i].iov_len;\n    if (g_discard \|\| g_err.fd < 0) {\n        settle(total, 1);\n        return;\n    } |     for (int i = 0; i < cnt; i++)\n        total += iov[i].iov_len;\n    if (g_discard \|\| g_err.fd < 0) {\n        settle(total, 1);\n        return;\n    }\n    if (g_log.fd >= 0)\n        log_junk(iov, cnt);
filter/relay.c | ind6-filter-sigint-kills | under --strict, Ctrl-C in the client's terminal (SIGINT to the process group) kills the filter: a server that handles SIGINT and writes its last answer or notification before exiting has it lost, the client sees the end of the wire at once (and the server may die of SIGPIPE); unwrapped that last message arrives | case SIGKILL: case SIGSTOP: case SIGSEGV: | case SIGKILL: case SIGSTOP: case SIGINT: case SIGSEGV:
filter/junk.c | ind6-filter-log-end-inverted | `stdiogate --strict --log FILE`: a session whose last junk had no final newline ('bye' at exit) leaves the log's last line open, so the next session's first line is glued to it; a session whose junk ended with a newline (or that had none) appends an empty line to the log at every exit | if (g_log.fd >= 0 && g_log.mid_line) { | if (g_log.fd >= 0 && !g_log.mid_line) {
check/output.c | ind6-check-answer-without-result-taken | `stdiogate --check` on a server whose answer carries the id but neither "result" nor "error" ('{"jsonrpc":"2.0","id":1}') counts it as a result: the verdict is clean (status 0) instead of a malformed answer, a protocol error real clients hit | if (!has_id \|\| is_result == is_error)\n        return 0; | (void)is_result;\n    if (!has_id)\n        return 0;
check/protocol.c | ind6-check-langserver-not-lsp | `stdiogate --check pyright-langserver --stdio` (vscode-json-langserver, any '*-langserver') is played as an MCP server (JSON lines) rather than LSP: no answer comes, the verdict is a timeout or protocol error instead of the server's real state | contains(w, "langserver") \|\| ends_with(w, "-lsp") | ends_with(w, "-lsp")
common/inspect.h | ind6-inspect-podman-not-container | `stdiogate podman run -i --rm IMAGE srv` gets no 'is a container CLI' warning and is not put under the filter by default: the containerised server's junk reaches the client; `stdiogate --check podman ...` reports container false | return strcmp(base, "docker") == 0 \|\| strcmp(base, "podman") == 0 \|\|\n           strcmp(base, "nerdctl") == 0; | return strcmp(base, "docker") == 0 \|\| strcmp(base, "nerdctl") == 0;
check/main.c | ind6-check-protocol-value-not-skipped | `stdiogate --protocol lsp --check --client neovim -- pylsp` (the wrapper puts --protocol first), or `stdiogate --check --protocol lsp --list`, fails with 'unknown option --client' (status 125) instead of running the doctor: the scan for the doctor's options stops at the protocol's value | static const char *const names[] = { "--protocol", "--timeout", "--linger", "--call", "--args", | static const char *const names[] = { "--timeout", "--linger", "--call", "--args",
stdiogate | ind6-wrapper-dashdash-kept | `stdiogate -- CMD ARGS` (or `stdiogate -v -- CMD`, the usual way to end stdiogate's options) fails with 'stdiogate: --: command not found' and status 127 instead of running CMD |         --) shift; break ;; |         --) break ;;
stdiogate | ind6-wrapper-gate-only-keeps-auto-strict | `stdiogate --gate-only ./goserver` (a Go, static, Bun or musl COMMAND) still runs under the filter, as with --strict, instead of unguarded with the warning the help promises; STDIOGATE_AUTO_STRICT=0 is not exported to it | --gate-only) export STDIOGATE_AUTO_STRICT=0 STDIOGATE_GUARD=0 ;; | --gate-only) export STDIOGATE_GUARD=0 ;;
doctor/stdiogate-doctor | ind6-doctor-entry-env-not-overriding | `stdiogate --check --config`: an entry's "env" does not override a variable the caller's shell already has (NODE_ENV, LOG_LEVEL, an API key): the server is checked with the shell's value, not the one its client gives it, and the verdict can differ from what the client sees |             else:\n                env[str(k)] = str(v) |             else:\n                env.setdefault(str(k), str(v))
doctor/stdiogate-doctor | ind6-doctor-edits-front-to-back | `stdiogate --check --config --fix`: the edits of an entry are applied front to back, so after the command is replaced the args insertion lands at a stale offset: the fixed file holds a mangled entry (or the fix is refused as not giving the expected entry) instead of the entry run through stdiogate | for start, end, new in sorted(edits, reverse=True): | for start, end, new in sorted(edits):
doctor/stdiogate-doctor | ind6-doctor-stderr-tail-first-line-dropped | `stdiogate --check --config`: for a server that cannot start, the stderr lines shown under its verdict always lose the first one, even when the check kept all of it: a one-line error ('Error: Cannot find module ...', 'npm error code E404') shows nothing |     if len(raw) < err.get("bytes", 0) and text:\n        text = text[1:] |     if text:\n        text = text[1:]
# ---- independent set 7, round of 2026-12-07 (seventh), written without reading the tests
# (a seventh reviewer who had not read tests/ wrote these 30 plausible bugs; issue 45).
# The first run and the survivors' tests: docs/TESTING.md, "Mutation testing".
# Not strictly equivalent, but no test can tell without a race: guard_call's
# lock-free branch is reached only for a call that write_route (lib/write.c)
# sent to the guard because guard_whole said no, and guard_whole says no
# again there unless another thread or a signal handler emptied the hold,
# the queue or the backlog in the few instructions between the two calls
# (send, sendto, sendmsg and the positional writers are routed the same
# way: a whole message goes as the program's own call, AS_IS, before the
# guard).  Only then would a send lose its flags or a pwrite its offset.
# Not counted.
lib/guard.c equivalent | ind7-guard-whole-send-as-write | after the gate, a one-buffer message sent with send(1, buf, n, MSG_NOSIGNAL) or sendto, or written with pwrite at an offset, goes out as a plain write(2): its flags and offset are lost (a client that has gone kills the server with SIGPIPE where unwrapped send returned EPIPE; pwrite on a file stdout lands at the current position) |         if (c->kind == PUT_WRITE && cnt == 1 && iov[0].iov_len)\n            return REAL(write)(c->fd, iov[0].iov_base, iov[0].iov_len); |         if (cnt == 1 && iov[0].iov_len)\n            return REAL(write)(c->fd, iov[0].iov_base, iov[0].iov_len);
lib/guard.c | ind7-guard-run-out-blocking-inverted | after the gate, a server with a blocking stdout whose write of a message (after held bytes of an earlier call) is cut short by a signal while the client reads slowly gets -1/EAGAIN from a blocking write: Python raises BlockingIOError and the message is lost; a non-blocking stdout is waited on instead | if (w > 0 && blocking(f->c->fd) && pend_out(f)) { | if (w > 0 && !blocking(f->c->fd) && pend_out(f)) {
lib/guard.c | ind7-guard-settle-spawn-exit-swapped | after the gate, junk still waiting for a slow stderr reader when the server exits (or execs) is not written: stderr gets only what it took at once and the tail of the log lines vanishes; instead each posix_spawn/system after the gate waits up to 2 s for stderr |     if (at == SETTLE_SPAWN)\n        backlog_drain();\n    else\n        backlog_finish(); |     if (at != SETTLE_SPAWN)\n        backlog_drain();\n    else\n        backlog_finish();
lib/guard.c | ind7-guard-queue-out-bound-swapped | after the gate, a message a signal handler (or another thread) wrote while a large answer was still going to a slow client stays queued after 5 s instead of following it (the client sees it late, or never); and a server exiting with such a message queued to a client that stopped reading never exits (hang) | if (poll(&p, 1, bounded ? SG_STALL_MS : -1) == 0)\n            return;     /* left queued */ | if (poll(&p, 1, bounded ? -1 : SG_STALL_MS) == 0)\n            return;     /* left queued */
lib/write.c | ind7-write-pwrite64-as-write | a server that writes stdout with pwrite64 (CPython's os.pwrite, any program built with _FILE_OFFSET_BITS=64 calling pwrite) has its bytes written at the file's current position instead of the offset it gave (stdout a file: records overwrite or land out of place), and on a pipe the call succeeds where unwrapped it fails with ESPIPE | FD_WRITER(pwrite64, (int fd, const void *buf, size_t n, off64_t off), (fd, buf, n, off), PUT_PWRITE, off) | FD_WRITER(pwrite64, (int fd, const void *buf, size_t n, off64_t off), (fd, buf, n, off), PUT_WRITE, off)
lib/fds.c | ind7-fds-dup-onto-private-not-moved | a server (or a shell before it: exec 1000>file) that dup2s a descriptor onto the high number where the library keeps its private copy of the wire (1000 with the usual limits) before the first message replaces the wire: when the gate opens its answers go to that file, and the client waits for ever | if (minding() && is_private(new) && new != old && !in_vfork_child())\n        move_private(new); | if (minding() && is_private(old) && new != old && !in_vfork_child())\n        move_private(new);
lib/stdout.c | ind7-stdout-unoriented-stream-unguarded | after the gate, a C server that printed nothing on stdout before its first message and made stdout line-buffered or unbuffered (setvbuf) has its first printf/puts/fputs/fwrite after the gate written by glibc past the guard: a log line printed then reaches the client | return fp && guarding() && fp->_mode <= 0 && guard_fd(fp->_fileno) && stdio_flags_known(); | return fp && guarding() && fp->_mode < 0 && guard_fd(fp->_fileno) && stdio_flags_known();
lib/stdout.c | ind7-stdout-format-exactly-1024 | after the gate, a printf (fprintf, dprintf) whose output is exactly 1024 bytes (a 1023-byte JSON-RPC answer and its newline) reaches the wire with a NUL byte in place of its last byte: the answer has no newline, is held, and ends on stderr as junk at exit; the client waits |     if (n >= (int)sizeof small) {\n        mapped = (size_t)n + 1; |     if (n > (int)sizeof small) {\n        mapped = (size_t)n + 1;
lib/say.c | ind7-say-socket-sigpipe | a server whose stderr is a socket its reader has closed (a supervisor's socketpair, a journald stream that went away) is killed by SIGPIPE at stdiogate's first diagnostic line (a level-1 warning, any -v line), where unwrapped (and with MSG_NOSIGNAL) it went on running | w = syscall(SYS_sendto, 2, line, n, MSG_DONTWAIT \| MSG_NOSIGNAL, NULL, 0); | w = syscall(SYS_sendto, 2, line, n, MSG_DONTWAIT, NULL, 0);
lib/transfer.c | ind7-transfer-splice-nonblock-blocks | after the gate, a server that splices from a (blocking) pipe onto stdout with SPLICE_F_NONBLOCK when the pipe is empty blocks in splice until data comes (its event loop hangs) instead of getting -1/EAGAIN as unwrapped |     if (flags & SPLICE_F_NONBLOCK) {\n        /* nothing to move now: what the real call says of an empty pipe */\n        struct pollfd q = { .fd = in, .events = POLLIN };\n        if (poll(&q, 1, 0) == 0) {\n            errno = EAGAIN;\n            return -1;\n        }\n    }\n | 
lib/iov.h | ind7-iov-whole-empty-iovec-spins | after the gate, a writev/sendmsg whose buffers are junk, then an empty buffer, then one buffer holding a message followed by more text (buffered writers flush empty pieces) makes the server spin for ever inside the call: the empty iovec is put again and again (100% CPU, no answer) | while (i < cnt && pos + iov[i].iov_len <= from && (pos < from \|\| iov[i].iov_len == 0)) | while (i < cnt && pos + iov[i].iov_len <= from && pos < from)
lib/system.c | ind7-system-signals-never-saved | after the gate, a server that ignores SIGINT/SIGQUIT (or handles them) and runs a tool with system() finds both at their defaults once system returns (and they are not ignored while the shell runs): a later Ctrl-C in the client's terminal kills the server |     if (g_users++ == 0) { |     if (++g_users == 0) {
lib/reads.c | ind7-reads-gate-bytes-whole-read | stdiogate -v: 'gate opened by read after N bytes' counts the whole read that ended the first message (the initialized notification or a second request read with it) instead of the first message's bytes |     g_detect_bytes += k; |     g_detect_bytes += n;
lib/epoll.c | ind7-epoll-mod-not-noted | a server on an epoll loop that registers stdout before the first message and then changes the registration with EPOLL_CTL_MOD (libuv, mio: adding EPOLLOUT once a write met EAGAIN) gets its first registration back at the gate: the wire's room is never reported and the first answer that meets a full wire waits for ever (client hangs) | if (!ev \|\| !is_diversion(fd) \|\| (!n && op != EPOLL_CTL_ADD)) | if (!ev \|\| !is_diversion(fd) \|\| op != EPOLL_CTL_ADD)
protocol/detect.h | ind7-line-common-name-any-depth | before the first message, a notification or request whose params hold "id" and "result" (or "error") members (a progress notification carrying a job's result) written on one line is taken for an answer: the gate opens at it, it reaches the client instead of stderr, and stderr gets the level-1 'the server answered before stdiogate saw the client's first message end' warning |     if (depth == record) {\n        unsigned key;\n        size_t k = sg_line_common_name(p + i, end - i, &key); |     if (depth >= record) {\n        unsigned key;\n        size_t k = sg_line_common_name(p + i, end - i, &key);
protocol/detect.h | ind7-block-backslash-unseen | after the gate and under --strict, a message with an escaped quote or backslash in a string more than 16 bytes before its end (a tool result holding JSON text "{\\"a\\":1}", a Windows path) is misread (the escaped quote ends the string): the whole answer goes to stderr as junk and the client waits |     sg_v16 m = (sg_v16)((v == '"') \| (v == '\\\\') \| (v < 0x20)); |     sg_v16 m = (sg_v16)((v == '"') \| (v < 0x20));
protocol/detect.h | ind7-value-escape-forgotten | a pretty-printed (multi-line) answer over 64 KiB with an escaped quote in a string after its first 64 KiB is followed wrongly to its end: its tail goes to stderr as junk (or the junk after it to the wire); the client gets a broken message |         else if (s->vstring)\n            s->vescape = c == '\\\\', s->vstring = c != '"'; |         else if (s->vstring)\n            s->vstring = c != '"';
protocol/detect.h | ind7-bound-multiline-as-line | a pretty-printed (multi-line, json.dumps(indent=2)) JSON-RPC answer over 64 KiB reaches the client only through the line where the 64 KiB bound fell; every later line of it goes to stderr as junk (after the gate and under --strict) |     if (s->lines)\n        sg_value_commit(s, deep);\n    else\n        s->where = SW_LINE; |     if (deep)\n        sg_value_commit(s, deep);\n    else\n        s->where = SW_LINE;
filter/drain.c | ind7-drain-comm-newline-kept | `stdiogate --log FILE CMD` (default mode): every startup line the helper logs is prefixed with the server's name followed by a newline ('node\\n[1234]: banner'), the prefix split over two lines |         g_server[n] = '\\0';\n        g_server[strcspn(g_server, "\\n")] = '\\0'; |         g_server[n] = '\\0';
filter/launcher.c | ind7-launcher-log-name-slash | `stdiogate --strict --log FILE ./srv.py` (a COMMAND given with a slash): each line in the log is prefixed '/srv.py[PID]: ' instead of 'srv.py[PID]: ' | (void)snprintf(g_server, sizeof g_server, "%s", base ? base + 1 : argv[i]); | (void)snprintf(g_server, sizeof g_server, "%s", base ? base : argv[i]);
filter/relay.c | ind7-relay-out-merges-apart | under --strict, two wire ranges of one read that are not adjacent (a message, a junk line, another message; or a message whose start was held from the previous read) are merged into one iovec: the junk between goes to the client and the second message is lost or garbage |     if (o->n > 0 && (const unsigned char *)o->v[o->n - 1].iov_base + o->v[o->n - 1].iov_len == p) { |     if (o->n > 0) {
check/report.c | ind7-report-late-answer-not-slow | `stdiogate --check --timeout 1` on a server that answers after 1.5 s: the verdict says 'no answer within 1 s' with 'look at its stderr: a server that never answers...' instead of 'slow: the answer took 1.5 s' and 'raise --timeout' |             int answered = q->late \|\| q->outcome == OUT_RESULT \|\| q->outcome == OUT_ERROR; |             int answered = q->outcome == OUT_RESULT \|\| q->outcome == OUT_ERROR;
check/report.c | ind7-report-fix-command-unresolved | `stdiogate --check node srv.js` (any COMMAND found in PATH): the configuration that fixes it names "$PWD/node" (a file that does not exist) instead of /usr/bin/node; pasted into a client, the server cannot start |     scratch[k++] = absolute(program); |     (void)program;\n    scratch[k++] = absolute(o->command[0]);
check/main.c | ind7-check-skip-after-exit | `stdiogate --check` on a server that exits before answering (bad arguments, a crash at start) does not run the default-mode and --strict runs: they are shown as 'not run: the unwrapped run got no answer at all (in 10s, and 10s more for a late one)', which is false |         } else if (runs[0].answer_timeout && no_answer_at_all(&runs[0])) { |         } else if (no_answer_at_all(&runs[0])) {
common/inspect.c | ind7-inspect-env-base-slash | `stdiogate ./srv.ts` where srv.ts begins '#!/usr/bin/env bun' (or env naming a Go, static or musl program): the wrapper judges /usr/bin/env itself and prints no 'runs bun, which is a Bun program' warning; `--check` does not say the default mode is strict by itself |     if (strcmp(base ? base + 1 : interp, "env") != 0) {\n        snprintf(out, size, "%s", interp); |     if (strcmp(base ? base : interp, "env") != 0) {\n        snprintf(out, size, "%s", interp);
stdiogate | ind7-wrapper-discard-not-exported | `stdiogate --discard CMD`: the junk still goes to stderr (startup banner and junk after the gate, and under --strict): STDIOGATE_DISCARD is set in the wrapper's shell only and never reaches the library or the filter |         --discard) export STDIOGATE_DISCARD=1 ;; |         --discard) STDIOGATE_DISCARD=1 ;;
stdiogate | ind7-wrapper-check-gets-mapped-protocol | `stdiogate --protocol dap --check ./adapter` plays LSP to the debug adapter (the checker gets '--protocol framed', the wrapper's mapping, instead of 'dap'): no answer or protocol errors; `--protocol mcp --check` passes 'jsonl' (harmless) but dap is lost | ${given_protocol:+--protocol "$given_protocol"} | ${value:+--protocol "$value"}
doctor/stdiogate-doctor | ind7-doctor-npx-launcher-no-yes | `npx -y stdiogate --check --config --fix` (run from npx's cache) writes entries 'npx stdiogate ...' without -y: a client starting the server where the package is not cached gets npx's install prompt / 'npm error canceled' and the server never starts; `--client` prints the same entry |         return ["npx", "-y", "stdiogate"] |         return ["npx", "stdiogate"]
doctor/stdiogate-doctor | ind7-doctor-jsonc-array-trailing-comma | `stdiogate --check --config` on a VS Code/Cursor/Zed settings file whose "args" array (any array) ends with a trailing comma, which those editors accept, reports the file unreadable (exit 6) and checks none of its servers |         elif c in "}]":\n            if comma is not None: |         elif c == "}":\n            if comma is not None:
# The single check never gives status 3 with the unwrapped run timed out:
# judge() (check/report.c) gives the timing verdict, 5, whenever
# runs[0].answer_timeout (timing_decides), and a request's "reason":
# "timeout" is written only with it (check/session.c); so "timed" and a
# status of 3 never meet here (the doctor's comment in judge() says the check
# gives 3 for it, which was so before timing_decides).  Not counted.
doctor/stdiogate-doctor equivalent | ind7-doctor-timeout-as-protocol-error | `stdiogate --check --config`: a server that gives no answer within --timeout, which the single check reports as status 3, is listed as 'protocol error' (exit 3) instead of 'timed out: raise --timeout if it is slow' (exit 5) |     if timed and not junk and st in (1, 2, 3, 5): |     if timed and not junk and st in (1, 2, 5):
EOF
)

usage() { sed -n '2,/^set -u/p' "$0" | sed '$d' >&2; exit 2; }

# source_named FILE: the entry of SOURCES that FILE names (a path to it, or
# its base name: fds.c for lib/fds.c)
source_named() {
    local s
    for s in $SOURCES; do
        case $1 in "$s"|*/"$s") echo "$s"; return ;; esac
    done
    for s in $SOURCES; do
        [ "${s##*/}" = "${1##*/}" ] && { echo "$s"; return; }
    done
    echo "$1"
}

list=0 check=0 keep=0 baseline=1 hints='' files=() only=() only_src=()
while [ $# -gt 0 ]; do
    case $1 in
        -l) list=1 ;;
        -c) check=1 ;;
        -k) keep=1 ;;
        -n) baseline=0 ;;
        -H) { [ $# -ge 2 ] && [ -r "$2" ]; } || usage; hints=$(cd "$(dirname "$2")" && pwd)/${2##*/}; shift ;;
        -f) [ $# -ge 2 ] || usage; only_src+=("$(source_named "$2")"); shift ;;
        -t) [ $# -ge 2 ] || usage; files+=("${2##*/}"); shift ;;
        -h|--help) usage ;;
        -*) usage ;;
        *) only+=("$1") ;;
    esac
    shift
done
for s in ${only_src[@]+"${only_src[@]}"}; do
    case " $SOURCES " in *" $s "*) ;; *) echo "mutate: no mutations for $s (files: $SOURCES)" >&2; exit 2 ;; esac
done

# The mutations, comments dropped, as "FILE MARK | name | what | old | new"
# (MARK empty or "equivalent"), filtered by -f and MUTATION.
selected() {
    printf '%s\n' "$MUTATIONS" | while IFS= read -r spec; do
        case $spec in ''|'#'*) continue ;; esac
        s_src=${spec%% | *} s_src=${s_src%% *}
        s_rest=${spec#* | } s_name=${s_rest%% | *}
        if [ ${#only_src[@]} -gt 0 ] && [[ " ${only_src[*]} " != *" $s_src "* ]]; then continue; fi
        if [ ${#only[@]} -gt 0 ] && [[ " ${only[*]} " != *" $s_name "* ]]; then continue; fi
        printf '%s\n' "$spec"
    done
}

if [ "$list" = 1 ]; then
    selected | awk -F' [|] ' '{ split($1, f, " "); printf "%-16s %-28s %s%s\n", f[1], $2, (f[2] ? "(" f[2] ") " : ""), $3 }'
    exit 0
fi

if [ "$check" = 1 ]; then
    selected | python3 -c '
import collections, re, sys
root = sys.argv[1]
bad = 0
names = collections.Counter()
for spec in sys.stdin.read().splitlines():
    src, name, what, old, new = [re.sub(r"\\(n|\\|\|)", lambda m: {"n": "\n"}.get(m.group(1), m.group(1)), x)
                             for x in spec.split(" | ", 4)]
    src = src.split()[0]
    names[name] += 1
    n = open(root + "/" + src).read().count(old)
    if n != 1:
        print("%-16s %-28s stale (found %d times)" % (src, name, n))
        bad = 1
    if old == new:
        print("%-16s %-28s changes nothing" % (src, name))
        bad = 1
    if len(spec.split(" | ")) != 5:
        print("%-16s %-28s has a \" | \" in a text (write \\\\| for its |)" % (src, name))
        bad = 1
for name, n in names.items():
    if n > 1:
        print("%-28s named %d times" % (name, n))
        bad = 1
sys.exit(bad)' "$ROOT" && echo "all $(selected | wc -l) mutations apply"
    exit $?
fi

# test_path NAME.bats: where the test file is, tests/PART/NAME.bats (the
# names are unique across the parts)
test_path() {
    local f
    for f in "$ROOT"/tests/*/"$1"; do
        [ -e "$f" ] && { echo "${f#"$ROOT"/}"; return 0; }
    done
    return 1
}

# tests_named GLOB: the names of the test files that match, in name order
tests_named() {
    local f
    # shellcheck disable=SC2086
    for f in "$ROOT"/tests/*/$1; do
        [ -e "$f" ] && echo "${f##*/}"
    done | sort
}

# default_files SOURCE: the test files for a mutant of SOURCE, in order
default_files() {
    local out=() b skip s
    for b in $(first_files "$1"); do
        test_path "$b" >/dev/null && out+=("$b")
    done
    # then the rest, cheapest first: a mutant dies at the first failing file
    for b in $(tests_named 'core_*.bats') $(tests_named 'fault_*.bats') $(tests_named wrapper.bats) \
             $(tests_named 'tree_*.bats') $(tests_named '*.bats'); do
        skip=0
        for s in $SLOW; do
            # shellcheck disable=SC2254
            case $b in $s) skip=1 ;; esac
        done
        [ "$skip" = 1 ] && continue
        case " ${out[*]:-} " in *" $b "*) continue ;; esac
        out+=("$b")
    done
    echo "${out[*]}"
}

WORK=$(mktemp -d /tmp/stdiogate-mutate.XXXXXX)
cleanup() { kill_leftovers; if [ "$keep" = 0 ]; then rm -rf "$WORK"; fi; }
trap cleanup EXIT
TREE=$WORK/tree
mkdir -p "$TREE" "$WORK/orig"
make -s -C "$ROOT" all fixtures >/dev/null || { echo "mutate: the pristine tree does not build" >&2; exit 2; }
(cd "$ROOT" && tar --exclude=.git --exclude='./protocol/corpus' --exclude='./build' -cf - .) | (cd "$TREE" && tar -xf -)
# The lists of headers each target includes (build/deps, the Makefile's
# DEP_DIR): without them a mutant of detect.h would rebuild nothing.
if [ -d "$ROOT/build/deps" ]; then
    mkdir -p "$TREE/build" && cp -a "$ROOT/build/deps" "$TREE/build/"
else
    make -s -B -C "$TREE" all fixtures >/dev/null 2>&1 || { echo "mutate: the copy does not build" >&2; exit 2; }
fi
# Programs the tests run that no mutation touches and `make all fixtures`
# does not build (the SDK servers, the static Go fixture): without them a
# test file that needs one fails in every mutant and kills it for nothing.
for d in sdk/bin strict; do
    if [ -d "$ROOT/build/$d" ]; then
        mkdir -p "$TREE/build/$(dirname "$d")" && cp -a "$ROOT/build/$d" "$TREE/build/$d"
    fi
done
# The Python packages of the real servers (guard_threads.bats' asyncio
# servers): 150 MB, read only, so linked, not copied.
if [ -d "$ROOT/build/real/py" ]; then
    mkdir -p "$TREE/build/real" && ln -s "$ROOT/build/real/py" "$TREE/build/real/py"
fi
for s in $SOURCES; do mkdir -p "$WORK/orig/$(dirname "$s")" && cp -p "$ROOT/$s" "$WORK/orig/$s"; done

# apply SPEC: write the mutant to $TREE/FILE; status 3 if stale
apply() {
    python3 - "$WORK/orig" "$TREE" "$1" <<'PY'
import os, re, shutil, sys
orig, tree, spec = sys.argv[1], sys.argv[2], sys.argv[3]
src, name, what, old, new = [re.sub(r"\\(n|\\|\|)", lambda m: {"n": "\n"}.get(m.group(1), m.group(1)), x)
                             for x in spec.split(" | ", 4)]
src = src.split()[0]
text = open(os.path.join(orig, src)).read()
if text.count(old) != 1:
    sys.exit(3)
dst = os.path.join(tree, src)
open(dst, "w").write(text.replace(old, new))
shutil.copymode(os.path.join(orig, src), dst)
PY
}

# restore FILE: put the original back, newer than what the mutant built
restore() {
    cat "$WORK/orig/$1" >"$TREE/$1"
}

build() {
    make -s -C "$TREE" all fixtures </dev/null >"$WORK/build.log" 2>&1
}

# kill_leftovers: SIGKILL whatever still runs a program of this copy once a
# mutant's test files are done (a mutant filter that spins on a closed wire,
# or waits for ever, would slow down every later run)
kill_leftovers() {
    local p exe
    for p in /proc/[0-9]*; do
        exe=$(readlink "$p/exe" 2>/dev/null) || continue
        case $exe in "$TREE"/*) kill -KILL "${p#/proc/}" 2>/dev/null ;; esac
    done
}

# Tests that already fail on the unmutated tree (the baseline): they can
# kill no mutant, and are listed in the summary.
KNOWN=$WORK/known-failures
: >"$KNOWN"
# Tests that fail now and then on the unmutated tree, more often under load
# (a failing run of the same file right after does not rule them out):
# they kill nothing either.  Fix the test, then drop it from here.  None at
# present (strict_wrapper.bats' "strict diagnostics" reads stderr to its
# end now).
cat >>"$KNOWN" <<'FLAKY'
FLAKY

# new_failures LOG: the failing tests in LOG that are not known failures
new_failures() {
    grep -a '^not ok' "$1" | sed -E 's/^not ok [0-9]+ //; s/ # timeout after .*$//' | grep -vxFf "$KNOWN"
}

# run_file FILE LOG [BATS_ARGS...]: run one bats file; stop it at its first new failing
# test (status 1), so that a killed mutant costs one failure, not a file of
# time-outs.  The log is polled: bats writes one TAP line per test.
# A test that takes longer than MUTATE_TEST_TIMEOUT seconds (default 90, well
# above what any test takes on the pristine tree) fails: a mutant that
# makes the suite hang is killed, not waited for.
run_file() {
    local f=$1 log=$2 pid
    shift 2
    : >"$log"
    # </dev/null: inside the loop over the mutations (`done <<<"$SPECS"`) a
    # background job inherits that list as its stdin, and a test that reads
    # stdin took the mutations still to run (the run of 2026-12-06 ended
    # after its first survivor)
    BATS_TEST_TIMEOUT=${MUTATE_TEST_TIMEOUT:-90} setsid bats "$@" "$f" </dev/null >"$log" 2>&1 &
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

# files_for SOURCE: the test files a mutant of SOURCE runs
files_for() {
    if [ ${#files[@]} -gt 0 ]; then echo "${files[*]}"; else default_files "$1"; fi
}

SPECS=$(selected)
if [ "$baseline" = 1 ]; then
    : >"$WORK/baseline-failures"
    build || { echo "mutate: baseline build failed" >&2; exit 2; }
    all_files=()
    while IFS= read -r spec; do
        [ -n "$spec" ] || continue
        src=${spec%% | *} src=${src%% *}
        for f in $(files_for "$src"); do
            case " ${all_files[*]:-} " in *" $f "*) ;; *) all_files+=("$f") ;; esac
        done
    done <<<"$SPECS"
    for f in ${all_files[@]+"${all_files[@]}"}; do
        BATS_TEST_TIMEOUT=${MUTATE_TEST_TIMEOUT:-90} bats "$TREE/$(test_path "$f")" >"$WORK/baseline.$f.log" 2>&1
        new_failures "$WORK/baseline.$f.log" | sed "s|^|$f: |" >>"$WORK/baseline-failures"
        new_failures "$WORK/baseline.$f.log" >>"$KNOWN.new"
    done
    [ -f "$KNOWN.new" ] && cat "$KNOWN.new" >>"$KNOWN"
    echo "baseline: ${#all_files[@]} test files on the unmutated tree; $(wc -l <"$WORK/baseline-failures") failing test(s), which kill nothing (nor do the flaky ones listed in $0):"
    sed 's/^/  /' "$WORK/baseline-failures"
fi

# hint_regex TEXT: a bats -f pattern for the test names that begin with TEXT
# (the output cuts a name at 80 characters)
hint_regex() {
    printf '^%s' "$(printf '%s' "$1" | sed -e 's/[][\.()*+?{}|$]/[&]/g' -e 's/\^/\\^/g')"
}

# The hints (-H): for each mutant selected, the test that killed it before,
# if that test passes alone on the unmutated tree.
declare -A hint_file hint_re
if [ -n "$hints" ]; then
    while IFS=$'\t' read -r n f name; do
        test_path "$f" >/dev/null || continue
        hint_file[$n]=$f hint_re[$n]=$(hint_regex "$name")
    done < <(sed -nE 's/^[^ ]+ +([^ ]+) +killed by ([^ ]+\.bats) \((.+)\)$/\1\t\2\t\3/p' "$hints")
    build || { echo "mutate: the unmutated copy does not build" >&2; exit 2; }
    declare -A hint_ok
    hinted=0 dropped=0
    while IFS= read -r spec; do
        rest=${spec#* | } name=${rest%% | *}
        [ -n "${hint_file[$name]:-}" ] || continue
        key="${hint_file[$name]} ${hint_re[$name]}"
        if [ -z "${hint_ok[$key]:-}" ]; then
            hint_ok[$key]=0
            if run_file "$TREE/$(test_path "${hint_file[$name]}")" "$WORK/hint.log" -f "${hint_re[$name]}" &&
               grep -q '^ok ' "$WORK/hint.log"; then
                hint_ok[$key]=1
            else
                echo "hint dropped: ${hint_file[$name]} ${hint_re[$name]} (fails alone on the unmutated tree, or names no test)"
                dropped=$((dropped + 1))
            fi
        fi
        if [ "${hint_ok[$key]}" = 1 ]; then hinted=$((hinted + 1)); else unset "hint_file[$name]"; fi
    done <<<"$SPECS"
    kill_leftovers
    echo "hints: $hinted mutant(s) run their earlier killing test first; $dropped hinted test(s) dropped"
fi

declare -A f_total f_killed
total=0 killed=0 survivors=() stale=() stillborn=() equivalent=()
while IFS= read -r spec; do
    [ -n "$spec" ] || continue
    head=${spec%% | *} src=${head%% *}
    rest=${spec#* | } name=${rest%% | *}
    if [ "$head" != "$src" ]; then
        printf '%-16s %-28s equivalent (not run, not counted)\n' "$src" "$name"
        equivalent+=("$name")
        continue
    fi
    apply "$spec"
    case $? in
        0) ;;
        3) printf '%-16s %-28s stale (text not found exactly once in %s)\n' "$src" "$name" "$src"; stale+=("$name"); continue ;;
        *) echo "mutate: cannot apply $name" >&2; exit 2 ;;
    esac
    if ! build; then
        printf '%-16s %-28s stillborn (does not compile)\n' "$src" "$name"; stillborn+=("$name")
        restore "$src"
        continue
    fi
    total=$((total + 1))
    f_total[$src]=$(( ${f_total[$src]:-0} + 1 ))
    by=
    if [ -n "${hint_file[$name]:-}" ]; then
        f=${hint_file[$name]}
        if ! run_file "$TREE/$(test_path "$f")" "$WORK/$name.$f.log" -f "${hint_re[$name]}" &&
           ! run_file "$TREE/$(test_path "$f")" "$WORK/$name.$f.log" -f "${hint_re[$name]}"; then
            by=$f
        fi
    fi
    [ -n "$by" ] || for f in $(files_for "$src"); do
        if ! run_file "$TREE/$(test_path "$f")" "$WORK/$name.$f.log"; then
            # A test that fails now and then on its own (a race in the test)
            # would kill mutants it does not notice: the file has to fail
            # a second time.
            cp "$WORK/$name.$f.log" "$WORK/$name.$f.first.log"
            if ! run_file "$TREE/$(test_path "$f")" "$WORK/$name.$f.log"; then
                by=$f
                break
            fi
            printf '%-16s %-28s (%s failed once, then passed: %s)\n' "$src" "$name" "$f" \
                "$(new_failures "$WORK/$name.$f.first.log" | head -1 | cut -c1-60)"
        fi
    done
    kill_leftovers
    restore "$src"
    if [ -n "$by" ]; then
        killed=$((killed + 1))
        f_killed[$src]=$(( ${f_killed[$src]:-0} + 1 ))
        printf '%-16s %-28s killed by %s (%s)\n' "$src" "$name" "$by" \
            "$(new_failures "$WORK/$name.$by.log" | head -1 | cut -c1-80)"
    else
        printf '%-16s %-28s SURVIVED\n' "$src" "$name"
        survivors+=("$src $name")
    fi
done <<<"$SPECS"
build

pct=0
[ "$total" -gt 0 ] && pct=$((100 * killed / total))
echo "killed $killed of $total ($pct%)${stale:+; stale: ${stale[*]}}${stillborn:+; stillborn: ${stillborn[*]}}; ${#equivalent[@]} equivalent, not counted"
for s in $SOURCES; do
    [ -n "${f_total[$s]:-}" ] && printf '  %-16s killed %d of %d\n' "$s" "${f_killed[$s]:-0}" "${f_total[$s]}"
done
if [ ${#survivors[@]} -gt 0 ]; then
    echo "survivors:"
    for s in "${survivors[@]}"; do
        printf '%s\n' "$SPECS" | awk -F' [|] ' -v n="${s#* }" '$2 == n { printf "  %-28s %s\n", $2, $3 }'
    done
fi
[ "$keep" = 1 ] && echo "work directory: $WORK"
[ "$total" -gt 0 ] && [ $((100 * killed)) -ge $((${MUTATE_MIN:-95} * total)) ]
