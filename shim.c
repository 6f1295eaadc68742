/* SPDX-License-Identifier: MIT */
/* shim.c - libstdiogate.so: keep a stdio server's startup output off its
 * protocol stream.
 *
 * Loaded with LD_PRELOAD by the stdiogate wrapper.  If this process's fd 1
 * is the wire (the identity in STDIOGATE_WIRE), the constructor keeps the
 * wire at a private close-on-exec descriptor and points fd 1 at stderr (or
 * /dev/null).  The gate opens, and fd 1 goes back to the wire, when the
 * program has read the client's first complete message from stdin, or when
 * it sets STDIOGATE_OPEN=1.  A diverted process that execs or spawns hands
 * the wire to the new program as its fd 1, together with the marker.
 *
 * Every interposer may run in a signal handler, a vfork child or many
 * threads at once: no heap, no stdio on our own behalf, no locks; shared
 * state is atomic, and a vfork child writes none of it.  Once the gate is
 * open (or was never shut) each interposer is its real function plus one
 * predictable branch.
 */

/* The rest is one file per mechanism under lib/, which share lib/internal.h:
 * docs/ARCHITECTURE.md ("The library, file by file") is their map. */

#include "lib/internal.h"

/* ------------------------------------------------------------------ */
/* State.  Written by the constructor before any other thread exists, then
 * only with atomics, and never by a vfork child. */

struct core g_core = { .wire = -1, .div = -1, .err = -1, .div_name = "stderr" };

char g_marker[80];           /* MARKER=dev:ino[:pid] as this process got it */
static char g_hand[80];      /* ... and as it hands it on: ":pid" names a helper to reap */
static char g_hand_guarded[88];             /* ... to a program started after the gate: ",open" */
char *g_marker_out = g_marker;
char *g_marker_guarded = g_hand_guarded;

/* The library is linked without the C runtime's startup files
 * (-nostartfiles, Makefile): they serve transactional memory, profiling
 * and C++ destructors, none of which it has, and cost every process that
 * loads it four symbol lookups at load (three for names no process
 * defines) and a __cxa_finalize at exit: about 2,700 instructions, a sixth
 * of what loading the library costs (issue 43).  Of what they define,
 * pthread_atfork needs __dso_handle, which names the object its handlers
 * belong to; weak, so that a build with the startup files uses theirs.
 * The library is never unloaded (-z nodelete), so no handler outlives it. */
__attribute__((weak, visibility("hidden"))) void *__dso_handle = &__dso_handle;

/* A child that may write to the diversion finds its helper running: one
 * reader of the pipe, whichever process writes. */
static void atfork_prepare(void)
{
    if (LOAD(g_drain_in) >= 0 && shut())
        drain_now("fork");
}

/* The child has one thread: no lock of ours is held in it. */
static void atfork_child(void)
{
    STORE(g_core.pid, getpid());
    wire_lock_after_fork();
    hold_forget();
    scratch_after_fork();
}

/* ------------------------------------------------------------------ */
/* Opening the gate. */

/* Startup bytes still in C stdio's stdout buffer belong on stderr.  Not if
 * this thread holds stdout's lock already: ftrylockfile would succeed (the
 * lock is recursive) and flush a buffer the interrupted code is in the
 * middle of changing.  Those bytes then reach the wire with the rest. */
void flush_stdout(void)
{
    if (stdout_locked_here()) {
        say(3, "stdout is in use by the code this call interrupted: not flushed");
        return;
    }
    for (int tries = 0; tries < 100; tries++) {
        if (ftrylockfile(stdout) == 0) {
            fflush_unlocked(stdout);
            funlockfile(stdout);
            return;
        }
        sched_yield();
    }
    say(3, "stdout is locked by another thread: not flushed");
}

/* Node marks its stdout O_NONBLOCK when it starts: that belongs to the
 * wire, and stderr gets its own mode back. */
static void carry_nonblock(int wire)
{
    int now = REAL(fcntl)(1, F_GETFL);
    if (now < 0 || !(now & O_NONBLOCK) || (g_core.div_flags & O_NONBLOCK))
        return;
    int wf = REAL(fcntl)(wire, F_GETFL);
    if (wf >= 0)
        REAL(fcntl)(wire, F_SETFL, wf | O_NONBLOCK);
    REAL(fcntl)(1, F_SETFL, now & ~O_NONBLOCK);
}

/* A copy of the diversion becomes a copy of the wire; it stays in the
 * bookkeeping when the guard is to watch it. */
static void point_copy_at_wire(int fd, int wire)
{
    char numbuf[24];
    set_copy(fd, 0);
    if (!on_diversion(fd))
        return;   /* closed behind our back and reused */
    if (repoint(wire, fd) < 0) {
        say(1, "cannot put descriptor ", NUM(fd), " on the wire: ", err_name(errno));
        return;
    }
    if (LOAD(g_guard_wanted))
        set_copy(fd, 1);
    say(3, "descriptor ", NUM(fd), " follows stdout onto the wire");
}

static void point_copies_at_wire(int wire)
{
    each_copy(0, ~0U, point_copy_at_wire, wire);
}

/* One line, as the gate opens, sums up what the diversion took: exactly,
 * from the helper's count, when it went through the helper. */
static void diverted_summary(void)
{
    char numbuf[24], lines[24];
    unsigned long long bytes = LOAD(g_div_bytes), n = LOAD(g_div_lines);
    int exact = drained_count(&bytes, &n);
    if (!exact && bytes == 0) {
        say(2, "diverted to ", g_core.div_name, ": nothing that went through write (C stdio's own "
               "flushes are not counted)");
        return;
    }
    say(2, "diverted to ", g_core.div_name, exact ? ": " : ": at least ", NUM(bytes), bytes == 1 ? " byte in " : " bytes in ",
        NUM_IN(lines, n), n == 1 ? " line" : " lines");
}

static pid_t g_opener;       /* the thread opening the gate (its tid) */

/* From the gate on, the session's framing is the client's (its first
 * message, as the detector saw it), not whatever the server wrote first:
 * a JSON-lines server that prints an HTTP response would otherwise fix the
 * session to frames.  STDIOGATE_PROTOCOL wins; a gate opened otherwise
 * (the fail-safe, the handshake, end of input) leaves it to the output. */
static void take_client_framing(void)
{
    int framing = LOAD(g_client_framing);
    if (g_protocol == SG_AUTO && framing != SG_AUTO)
        __atomic_store_n(&g_hold.s.protocol, (unsigned char)framing, __ATOMIC_RELAXED);
}

/* The races around it, and why each is closed:
 *  - a dup2() onto the wire's number in another thread: dup_onto moves the
 *    wire under the wire lock, also while the gate is opening; open_gate
 *    reads g_core.wire only once it holds the lock;
 *  - the wire's number reused by the program right after it is closed:
 *    drop_privates clears it first, close() of a private number looks
 *    again under the lock;
 *  - exec_begin in one thread, then open_gate, then a failed exec:
 *    open_gate leaves an fd 1 that is already the wire alone, and
 *    exec_failed does not divert it again once the gate is open;
 *  - release_if_unused against a new copy (set_copy): both under the lock;
 *  - a write to the diversion in another thread while the gate opens: it
 *    waits until fd 1 is the wire (wait_while_opening).
 * The CAS makes one caller the opener; the others return at once.
 * first[0..nfirst): the answer that opens the gate (GATE_BY_ANSWER), put
 * on the wire before fd 1 is, so that no other thread's write can come
 * between its pieces.  Returns whether this call opened the gate. */
int open_gate_with(const char *how, unsigned long long bytes, int eof,
                   const struct iovec *first, int nfirst)
{
    char numbuf[24];
    int expected = GATE_SHUT, saved = errno;

    if (in_vfork_child())
        return 0;
    /* Startup bytes in C stdio's buffer leave through the hold, as the
     * program's other writes do (straight to stderr where it takes them),
     * rather than through glibc's own write into a lazy helper's pipe.  (An
     * answer among them opens the gate itself.)  Not when this thread holds
     * stdout's lock (a signal handler interrupted stdio): see flush_stdout. */
    if (nfirst == 0 && LOAD(g_drain_in) >= 0 && shut() && !stdout_locked_here())
        stdout_through_hold(how ? how : "the gate");
    if (!__atomic_compare_exchange_n(&g_core.state, &expected, GATE_OPENING, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return 0;
    STORE(g_opener, (pid_t)syscall(SYS_gettid));
    hold_settle(how, 1);
    flush_stdout();
    drain_if_needed("the gate", 0, 0);
    wait_drained();
    int held = lock_wire();
    int wire = LOAD(g_core.wire);
    int fd1 = LOAD(g_core.fd1_ours) && on_diversion(1);
    epoll_detach();
    if (fd1)
        carry_nonblock(wire);
    for (int i = 0; i < nfirst; i++)
        write_whole(wire, first[i].iov_base, first[i].iov_len, 0);
    if (fd1) {
        if (repoint(wire, 1) < 0) {
            say(1, "cannot put stdout back on the wire: ", err_name(errno));
            _exit(1);
        }
    }
    unmark_reopened();
    point_copies_at_wire(wire);
    point_reopened_at_wire();
    epoll_reattach();
    int guard = LOAD(g_guard_wanted);
    drop_privates();
    STORE(g_core.fd1_ours, guard && fd1);
    take_client_framing();
    if (guard)
        guard_start("from the gate on");
    STORE(g_opener, 0);
    STORE(g_core.state, GATE_OPEN);
    unlock_wire(held);
    if (!how) {
        say(2, "gate opened by handshake");
    } else if (eof == GATE_BY_ANSWER) {
        say(1, "the server answered before stdiogate saw the client's first message end "
               "(stdin was read in a way stdiogate cannot see, or by another process): gate "
               "opened at the answer; to guard startup output without that, have the server set "
               HANDSHAKE "=1 when it is ready, or use --strict");
        say(2, "gate opened by ", how, ": the server answered");
    } else if (eof) {
        say(2, "gate opened by ", how, " at end of input");
    } else {
        say(2, "gate opened by ", how, " after ", NUM(bytes), " bytes");
    }
    diverted_summary();
    errno = saved;
    return 1;
}

void open_gate(const char *how, unsigned long long bytes, int eof)
{
    (void)open_gate_with(how, bytes, eof, NULL, 0);
}

/* A write to the diversion while another thread opens the gate waits until
 * fd 1 is the wire: it would go to stderr, and an answer would be lost.
 * Not the opener itself (a signal handler interrupting it). */
void wait_while_opening(void)
{
    struct timespec ms = { 0, 1000000 };
    if (LOAD(g_opener) == (pid_t)syscall(SYS_gettid))
        return;
    for (int spins = 0; LOAD(g_core.state) == GATE_OPENING; spins++)
        if (spins < 100)
            sched_yield();
        else
            nanosleep(&ms, NULL);   /* the opener may wait for stderr */
}

/* Nothing points at the diversion any more (fd 1 is the program's, no copy
 * is left): the wire can never be needed here.  Let it go, so that a
 * daemon forked from here does not hold the client's stdout open. */
void release_if_unused(void)
{
    int expected = GATE_SHUT;
    if (LOAD(g_core.fd1_ours) || LOAD(g_ncopies) > 0)
        return;
    /* Under the wire lock, which set_copy's callers hold too: no copy can
     * appear between this test and the wire's closing. */
    int held = lock_wire();
    if (!LOAD(g_core.fd1_ours) && LOAD(g_ncopies) == 0 &&
        __atomic_compare_exchange_n(&g_core.state, &expected, GATE_OPENING, 0,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        drop_privates();
        STORE(g_core.state, GATE_OPEN);
        say(3, "nothing points at the diversion any more: the kept wire is closed");
    }
    unlock_wire(held);
}

/* ------------------------------------------------------------------ */
/* The constructor. */

/* The marker's wire form (env.h) as the constructor uses it: the identity,
 * the helper to reap, ",open", ",seen".  0 for any other form. */
static int wire_marker(const struct sg_marker *m, enum sg_marker_form form, struct identity *id,
                       pid_t *helper, int *open, int *seen)
{
    *open = m->open;
    *seen = m->seen;
    if (form != SG_MARKER_WIRE_FORM)
        return 0;
    id->dev = (dev_t)m->dev;
    id->ino = (ino_t)m->ino;
    *helper = (pid_t)m->helper;
    return id->valid = 1;
}

/* Go reads and writes with raw syscalls: a diversion would never be lifted.
 * The Go linker leaves a note named "Go" of type 4 (its build ID). */
static int go_note_in(const char *p, size_t len)
{
    while (len >= sizeof(ElfW(Nhdr))) {
        const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
        size_t name = (nh->n_namesz + 3) & ~3UL, desc = (nh->n_descsz + 3) & ~3UL;
        size_t size = sizeof *nh + name + desc;
        if (size > len)
            return 0;
        if (nh->n_type == 4 && (nh->n_namesz == 3 || nh->n_namesz == 4) &&
            memcmp(p + sizeof *nh, "Go", 3) == 0)
            return 1;
        p += size;
        len -= size;
    }
    return 0;
}

static int main_program_is_go(struct dl_phdr_info *info, size_t size, void *found)
{
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_NOTE &&
            go_note_in((const char *)(info->dlpi_addr + ph->p_vaddr), ph->p_memsz))
            *(int *)found = 1;
    }
    return 1;   /* the first object is the program itself */
}

static int is_go_program(void)
{
    int found = 0;
    dl_iterate_phdr(main_program_is_go, &found);
    return found;
}

/* Bun reads a stdin pipe with a raw preadv2 and writes stdout with raw
 * system calls: neither trigger would ever fire.  Its executables, `bun
 * build --compile` ones included, carry the sections .bun and
 * .bun_builtins.  Section headers are not mapped: they are read from the
 * file, a few hundred bytes. */
static int is_bun_program(void)
{
    const unsigned both = SG_SEC_BUN | SG_SEC_BUN_BUILTINS;
    struct sg_elf e;
    int saved = errno, fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC), found = 0;
    if (fd < 0)
        return 0;
    found = sg_elf_header(fd, &e) && (sg_elf_section_names(fd, &e) & both) == both;
    REAL(close)(fd);
    errno = saved;
    return found;
}

static int stderr_takes_diversion(void)
{
    int fl = REAL(fcntl)(2, F_GETFL);
    if (sg_env_discard(env_value(SG_ENV_DISCARD)))
        return 0;
    if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY)
        return 0;
    /* Node reopens a terminal on fd 1 by name: never give it one. */
    if (isatty(2))
        return 0;
    /* 2>&1 would put the junk right back on the wire. */
    if (is(2, &g_core.wire_id))
        return 0;
    /* A pipe nobody reads any more would kill the server with SIGPIPE over
     * a banner that unwrapped went to the client. */
    struct pollfd p = { .fd = 2, .events = POLLOUT };
    return !(poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)));
}

/* The marker handed on at exec: the wire's identity and the helper that
 * the next program (the same process) reaps.  Made again when a lazy
 * helper starts (drain_now). */
void hand_marker(void)
{
    char dev[24], ino[24], pid[24];
    pid_t h = LOAD(g_helper) ? LOAD(g_helper) : LOAD(g_helper_inherited);
    const char *parts[] = { MARKER, "=", NUM_IN(dev, g_core.wire_id.dev), ":", NUM_IN(ino, g_core.wire_id.ino),
                            h ? ":" : "", h ? NUM_IN(pid, h) : "" };
    size_t n = 0;
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
        size_t len = strlen(parts[i]);
        if (n + len >= sizeof g_hand)
            return;
        memcpy(g_hand + n, parts[i], len + 1);
        n += len;
    }
    g_marker_out = g_hand;
    memcpy(g_hand_guarded, g_hand, n);
    memcpy(g_hand_guarded + n, SG_MARKER_OPEN, sizeof SG_MARKER_OPEN);
}

static int stderr_is_not_a_file(void)
{
    struct stat st;
    return sg_fstat(2, &st) == 0 && !S_ISREG(st.st_mode);
}

static void divert(void)
{
    char numbuf[24];
    int to_stderr = stderr_takes_diversion(), asked_stderr = to_stderr;
    const char *log = sg_env_log(env_value(SG_ENV_LOG));
    int logging = log != NULL;
    int wire = high_dup(1);
    int drained = 0;

    if (wire < 0) {
        say(1, "cannot keep the wire (", err_name(errno), "): stdout left as it is");
        return;
    }
    /* /dev/null may land on a closed fd 0 or 2 for a moment: it is closed
     * again right after, so they stay closed. */
    int target = 2, helper_failed = 0;
    /* The log is written by the helper: it runs whenever there is one.
     * Otherwise it starts only when there is something to carry. */
    if ((to_stderr && stderr_needs_drain()) || logging) {
        target = start_drain(to_stderr, log, !logging);
        drained = target >= 0;
        if (!drained) {
            /* Straight to stderr could block for good (a full pipe): the
             * junk is lost instead, never an answer. */
            to_stderr = 0;
            helper_failed = errno;
            target = 2;
        }
    }
    if (!to_stderr && !drained)
        target = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (target < 0 && helper_failed && asked_stderr && stderr_is_not_a_file()) {
        target = 2;     /* no descriptor left at all: straight to stderr, as before the helper */
        to_stderr = 1;
    }
    if (helper_failed)
        say(1, "cannot start the helper ", g_helper_path[0] ? g_helper_path : SG_HELPER, " (",
            err_name(helper_failed), "): startup output goes to ", to_stderr ? "stderr" : "/dev/null");
    int ours = !to_stderr || drained;   /* a descriptor to close after the dup2 */
    if (target < 0) {
        say(1, "cannot open /dev/null (", err_name(errno), "): stdout left as it is");
        REAL(close)(wire);
        return;
    }
    int r = REAL(dup2)(target, 1);
    int err = errno;
    if (ours)
        REAL(close)(target);
    if (r < 0) {
        say(1, "cannot divert stdout (", err_name(err), "): stdout left as it is");
        REAL(close)(wire);
        return;
    }
    identify(1, &g_core.div_id);
    /* The diversion's open file, to tell it from the same file opened
     * anew; without a descriptor to spare, its identity will do. */
    g_core.div = high_dup(1);
    g_core.div_flags = REAL(fcntl)(1, F_GETFL);
    detect_start();
    map_copies();
    prepare_spawn_fallback(wire);
    g_core.wire = wire;
    g_core.fd1_ours = 1;
    g_core.pid = getpid();
    pthread_atfork(atfork_prepare, NULL, atfork_child);
    STORE(g_core.state, GATE_SHUT);
    g_core.div_name = !drained || !logging ? (to_stderr ? "stderr" : "/dev/null")
                 : to_stderr ? "stderr and the log" : "the log";
    say(2, "diverting stdout to ", g_core.div_name);
    if (drained && LOAD(g_helper)) {
        char pid[24];
        say(3, "through the helper, process ", NUM_IN(pid, g_helper_pid));
    } else if (drained) {
        say(3, "through a pipe whose helper starts when there is something to carry");
    }
    hand_marker();
    say(3, "the wire is kept at descriptor ", NUM(wire));
}

/* A pipe on stderr gets a second open file description of its own, made
 * non-blocking (say_out), kept high like the other private descriptors;
 * only in a process that diverts (elsewhere say_out polls first). */
static void open_err_handle(void)
{
    struct stat st;
    if (sg_fstat(2, &st) != 0 || !S_ISFIFO(st.st_mode))
        return;
    int fd = stderr_handle();
    if (fd < 0)
        return;     /* no /proc, or nobody reads it: say_out polls first */
    int high = high_dup(fd);
    close_stderr_handle(fd);
    STORE(g_core.err, high);
}

/* STDIOGATE_DEBUG is one digit from 0 to 4 (env.h).  Anything else is
 * warned about and replaced by the nearest level, in this process's
 * environment too, so that the programs it starts do not warn again.  (The
 * wrapper checks it first; this is for a marker set by hand.) */
static void set_level(void)
{
    const char *d = env_value(SG_ENV_DEBUG);
    static char fixed[] = SG_ENV_DEBUG "=1";
    if (sg_env_debug(d, &g_level) != SG_LEVEL_INVALID)
        return;
    fixed[sizeof fixed - 2] = (char)('0' + g_level);
    say(1, SG_ENV_DEBUG "=", d, " is not a level from 0 to 4: using ",
        fixed + sizeof fixed - 2);
    putenv(fixed);
}

/* STDIOGATE_GUARD=0 (--gate-only): no guard after the gate.
 * STDIOGATE_PROTOCOL: what the classifier takes for protocol. */
static void set_guard(void)
{
    STORE(g_guard_wanted, sg_env_guard(env_value(SG_ENV_GUARD)));
    g_protocol = sg_env_protocol(env_value(SG_ENV_PROTOCOL));
    sg_stream_init(&g_hold.s, g_protocol);
}

/* What a process that diverts or guards needs before the program runs:
 * stdin's identity, the helper's path, the real functions that signal
 * handlers and vfork children may call, and what is known of glibc. */
static void prepare(void)
{
    identify(0, &g_core.stdin_id);
    find_helper();
    resolve_eager();
    check_spawn_layout();
    check_stdio_lock();
}

/* A program on the wire whose gate is open already (its parent's opened
 * before it was started, or the handshake was set): no diversion, the
 * guard from the start. */
static void guard_only(const char *why)
{
    prepare();
    map_copies();
    g_core.fd1_ours = 1;
    g_core.pid = getpid();
    pthread_atfork(NULL, NULL, atfork_child);
    hand_marker();
    guard_start(why);
}

/* AT_SECURE, through getauxval found when asked: an import of it would add
 * a symbol version (GLIBC_2.16) that every process loading the library
 * checks; only a process with the marker asks.  Unknown: as if it had. */
static int gained_privileges(void)
{
    unsigned long (*get)(unsigned long) =
        (unsigned long (*)(unsigned long))dlsym(RTLD_DEFAULT, "getauxval");
    return !get || get(AT_SECURE) != 0;
}

/* The settings every process under the wrapper reads first. */
static void read_settings(void)
{
    set_level();
    STORE(g_auto_strict, sg_env_auto_strict(env_value(SG_ENV_AUTO_STRICT)));
    set_guard();
    g_log_ok = REAL(fcntl)(2, F_GETFD) >= 0;
    g_core.pid = getpid();
    say(3, "libstdiogate.so version " STDIOGATE_VERSION);
}

/* How this process starts: as it is (pass-through), diverting fd 1 (the
 * gate shut), or guarding it (the gate open already). */
enum start { AS_IT_IS, DIVERT, GUARD_ONLY };

/* What the marker m says of this process, and what it is: the marker
 * kept for the programs it starts (g_marker) and removed from the
 * environment, the wire's identity.  *why: why the guard starts now. */
static enum start read_marker(const char *m, const char **why)
{
    struct sg_marker marker;
    enum sg_marker_form form = sg_marker_parse(m, &marker);
    if (sg_env_after(m, SG_MARKER_FILTER)) {
        if (form == SG_MARKER_FILTER_FORM)
            strict_noted(&marker);  /* strict mode: nothing diverted (lib/strict.c) */
        return AS_IT_IS;
    }
    if (is_go_program()) {
        /* The marker stays: the programs it starts may take part. */
        say(2, "Go program: not diverting");
        return AS_IT_IS;
    }
    struct identity wire;
    pid_t inherited = 0;
    int open = 0, seen = 0, valid = wire_marker(&marker, form, &wire, &inherited, &open, &seen);
    if (valid && is(1, &wire) && !seen && is_bun_program()) {
        /* Like Go: the marker stays.  Bun's process.env never reaches libc
         * setenv, so not even the handshake could open a gate.  (Level 2:
         * the wrapper's inspector has warned already where Bun is COMMAND,
         * and under --strict the filter guards it.) */
        say(2, "Bun program: not diverting (it reads stdin and writes stdout with raw system "
               "calls), so its own stdout is not guarded; use --strict");
        return AS_IT_IS;
    }
    /* (",seen" is for this program only: not handed on) */
    size_t len = strlen(m) - (seen ? sizeof SG_MARKER_SEEN - 1 : 0);
    if (valid && len + sizeof MARKER + 1 <= sizeof g_marker) {
        memcpy(g_marker, MARKER "=", sizeof MARKER);
        memcpy(g_marker + sizeof MARKER, m, len);
        g_marker[sizeof MARKER + len] = '\0';
    }
    unsetenv(MARKER);
    if (!valid) {
        say(1, "ignoring a malformed " MARKER);
        return AS_IT_IS;
    }
    STORE(g_helper_inherited, inherited);
    if (!is(1, &wire)) {
        say(3, "stdout is not the wire: not diverting");
        return AS_IT_IS;
    }
    g_core.wire_id = wire;
    int handshake = sg_env_open(env_value(HANDSHAKE));
    if (open || handshake) {
        if (!open)
            say(2, HANDSHAKE "=1 already: not diverting");
        *why = open ? "handed the wire after the gate" : HANDSHAKE "=1 at start";
        return LOAD(g_guard_wanted) ? GUARD_ONLY : AS_IT_IS;
    }
    return DIVERT;
}

__attribute__((constructor)) static void stdiogate_init(void)
{
    /* Without the marker there is nothing to do (pass-through), whatever
     * the process; looking first keeps getauxval's lookup off every
     * process that merely inherits LD_PRELOAD. */
    const char *m = env_value(MARKER), *why = NULL;
    if (!m)
        return;     /* not under the wrapper, or not on the wire: pass-through */
    /* A program that gained privileges (setuid, file capabilities) takes no
     * decision from its environment: the library does nothing at all. */
    if (gained_privileges())
        return;

    read_settings();
    switch (read_marker(m, &why)) {
    case DIVERT:
        prepare();
        check_versions();
        open_err_handle();
        divert();
        answer_interpreters();
        break;
    case GUARD_ONLY:
        guard_only(why);
        break;
    case AS_IT_IS:
        break;
    }
}

/* ------------------------------------------------------------------ */
/* At exit. */

/* exit flushes stdout after the destructors have run: through the hold
 * first, and what stays held is junk; then the helper gets the end of its
 * input and is reaped (helper_fini); under the filter, the pipe is let go
 * and the filter reaped.  One function, so that the order is this one. */
static void stdiogate_exit(void *unused)
{
    (void)unused;
    if (gated()) {
        stdout_through_hold("exit");
        hold_settle("exit", 0);
    }
    if (guarding()) {
        stdout_through_guard("exit");
        guard_settle("exit", SETTLE_EXIT);
        guard_summary();
    }
    helper_fini();
    strict_fini(1);
}

/* Is there anything for stdiogate_exit to do? */
static int exit_work(void)
{
    return gated() || guarding() || helper_pending() || strict_pending();
}

/* The destructors of the program's own libraries run after this one (they
 * were initialised before the preload) and may still write on stdout: an
 * answer, junk.  So the exit work is done by a function registered now,
 * which exit calls after every destructor and before it flushes the
 * streams (C11 7.22.4.4).  Registered with no library's handle: with ours,
 * our own __cxa_finalize would call it at once.  Imported (bound lazily,
 * at the first call: no cost at load), not looked up with dlsym, which
 * may allocate at exit on glibc before 2.34. */
int __cxa_atexit(void (*fn)(void *), void *arg, void *dso);

static int exit_after_destructors(void (*fn)(void *))
{
    return __cxa_atexit(fn, NULL, NULL) == 0;
}

__attribute__((destructor)) static void stdiogate_fini(void)
{
    if (!exit_work())
        return;     /* (every process that merely loaded the library) */
    if (in_vfork_child() || !exit_after_destructors(stdiogate_exit))
        stdiogate_exit(NULL);
}

/* _exit runs no destructor (dash's exit builtin, Python's os._exit) and
 * flushes nothing, but what the hold took was written as far as the
 * program knows, and the helper is to be reaped.  (glibc's exit calls its
 * own _exit, not this one; neither returns, so the system call is made
 * here, as glibc makes it.) */
EXPORT void _exit(int status)
{
    if (gated() && shut())
        hold_settle("_exit", 0);
    if (guarding())
        guard_settle("_exit", SETTLE_EXIT);
    if (helper_pending())
        helper_at_exit();
    strict_fini(0);
    for (;;)
        syscall(SYS_exit_group, status);
}

EXPORT void _Exit(int status)
{
    _exit(status);
}
