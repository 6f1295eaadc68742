/* SPDX-License-Identifier: MIT */
/* lib/helper.c - the drain: starting, waiting for and reaping the helper
 * that copies the diversion to stderr. */

#include "internal.h"

/* ------------------------------------------------------------------ */
/* The drain.  A diverted fd 1 must be something a program accepts as its
 * stdout (asyncio's pipe transport refuses a regular file), and writing to
 * it must never block (a stderr pipe that nobody reads fills at 64 KiB,
 * where unwrapped the bytes went to a client that skips bad lines).  Unless
 * stderr is a character device, fd 1 becomes a pipe that the helper,
 * `stdiogate-filter --drain` (filter/drain.c; found beside this library), copies
 * to stderr with the strict filter's junk path: nothing lost while stderr
 * takes bytes, the server waiting while it holds SG_DRAIN_HOLD bytes, junk
 * dropped and counted once stderr has taken nothing for SG_STALL_MS
 * (helper.h, stall.h).  It ignores every signal sent to the process group.
 *
 * Its parent is this process's child with no exit signal (a raw clone
 * with exit signal 0: a quiet child, quiet.h): the server's wait(-1) and
 * waitpid(-1) never see it (only __WCLONE or __WALL do), no SIGCHLD comes
 * of it, and no atfork handler runs.  The library reaps that middle process
 * itself once the helper has ended: when the gate opens (the pipe's write
 * end is gone from here), and at exit, where fd 1 and its copies are first
 * pointed at stderr so that the helper sees the end of its input.  At exec
 * the next program inherits it: the marker handed on names it
 * (dev:ino:pid).  Nothing is left behind where pid 1 reaps nothing, unless
 * the server dies without exiting (a signal, _exit) or a child of its still
 * holds the diversion when it exits.  The helper ends when the last copy of
 * the pipe's write end is closed: when the gate opens, at exec (the wire is
 * handed on), or at exit.  Those three wait, bounded, until what was
 * written so far has reached stderr (counters on a shared page the helper
 * keeps), so that a log file is complete when the server is gone. */

/* Shorter than SG_STALL_MS: a stderr that nobody reads delays the gate by
 * this at most, not by the stall verdict; a slow one gets this long to
 * take what is queued before the gate opens (the rest follows, not lost). */
#define DRAIN_WAIT_MS 2000

/* How long exit, or a second helper, waits for a helper to end (below). */
#define HELPER_EXIT_MS 500

static struct sg_drain_counters *g_drain;
static int g_drain_lazy;            /* the pipe was made lazy (start_drain) */
pid_t g_helper;                      /* the helper's parent this process started, until reaped */
pid_t g_helper_inherited;            /* one started before an exec (the marker's :pid) */
pid_t g_helper_pid;                  /* the helper itself (for diagnostics) */
char g_helper_path[4096];           /* beside this library; "" if unknown */
static char g_helper_as[24];        /* this process's pid, for the helper's argv */
/* The helper's environment, made before the clone: the level, and where
 * what it takes goes (STDIOGATE_LOG; STDIOGATE_DISCARD=1: not stderr). */
static char g_helper_level[] = SG_ENV_DEBUG "=1";
static char g_helper_log[16 + 4096];
static char g_helper_discard[] = SG_ENV_DISCARD "=1";
static char *g_helper_env[4];

/* Where the helper is: the directory this library was loaded from. */
void find_helper(void)
{
    Dl_info info;
    const char *slash;
    if (!dladdr((void *)find_helper, &info) || !info.dli_fname ||
        !(slash = strrchr(info.dli_fname, '/')))
        return;
    size_t dir = (size_t)(slash - info.dli_fname) + 1;
    if (dir + sizeof SG_HELPER > sizeof g_helper_path)
        return;
    memcpy(g_helper_path, info.dli_fname, dir);
    memcpy(g_helper_path + dir, SG_HELPER, sizeof SG_HELPER);
}

/* Reaps a helper that has ended, waiting up to ms for it; 1 when it is
 * gone (or was never this process's child). */
int reap_helper(pid_t *which, int ms)
{
    struct timespec one = { 0, 1000000 };
    pid_t pid = LOAD(*which);
    int st;
    if (pid <= 0 || in_vfork_child())
        return 1;
    for (int i = 0;; i++) {
        pid_t r = waitpid(pid, &st, __WALL | WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR)) {
            (void)__atomic_compare_exchange_n(which, &pid, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
            return 1;
        }
        if (i >= ms)
            return 0;
        nanosleep(&one, NULL);
    }
}

/* A descriptor above the helper's 0 to 4, which are set from these
 * (quiet.h). */
static int above_helper_fds(int fd)
{
    if (fd < 0 || fd > SG_COUNTERS_FD + 1)
        return fd;
    int moved = REAL(fcntl)(fd, F_DUPFD_CLOEXEC, SG_COUNTERS_FD + 2);
    REAL(close)(fd);
    return moved;
}

/* The helper's environment: to_stderr 0 sends nothing to stderr (the log
 * alone gets it); log is STDIOGATE_LOG or NULL. */
static void helper_environment(int to_stderr, const char *log)
{
    int n = 0;
    g_helper_level[sizeof g_helper_level - 2] = (char)('0' + g_level);
    g_helper_env[n++] = g_helper_level;
    size_t len = log ? strlen(log) : 0;
    if (len && len < sizeof g_helper_log - 16) {
        memcpy(g_helper_log, SG_ENV_LOG "=", sizeof SG_ENV_LOG);
        memcpy(g_helper_log + sizeof SG_ENV_LOG, log, len);
        g_helper_log[sizeof SG_ENV_LOG + len] = '\0';
        g_helper_env[n++] = g_helper_log;
    } else if (len) {
        say(1, "the log's path is too long: not logging");
    }
    if (!to_stderr)
        g_helper_env[n++] = g_helper_discard;
    g_helper_env[n] = NULL;
}

/* The helper's pipe, made at the constructor: its write end becomes fd 1,
 * its read end stays with the helper, or (lazy) with this process until
 * there is something to carry.  (Its size stays the system's: a larger one
 * would count against the user's pipe quota, which every pipe of the user
 * shares.)  The read end, or -1 (errno set); *into the write end. */
static int drain_pipe(int *into, int lazy)
{
    int p[2];
    if (sg_pipe2(p, O_CLOEXEC) != 0)
        return -1;
    int rd = p[0], wr = p[1];
    *into = wr;
    if (!lazy)
        return rd;
    int high = high_dup(rd);
    int e = errno;
    REAL(close)(rd);
    if (high < 0) {
        REAL(close)(wr);
        errno = e;
    }
    return high;
}

/* The helper's counters (helper.h), a page shared with it: its descriptor
 * and *page, or -1 (the helper runs without). */
static int open_counters(void **page)
{
    int fd = (int)syscall(SYS_memfd_create, "stdiogate-drain", MFD_CLOEXEC);
    if (fd >= 0 && (ftruncate(fd, (off_t)sizeof *g_drain) != 0 ||
                    (*page = mmap(NULL, sizeof *g_drain, PROT_READ | PROT_WRITE, MAP_SHARED,
                                  fd, 0)) == MAP_FAILED)) {
        REAL(close)(fd);
        fd = -1;
    }
    return fd;
}

/* Starts the helper on the pipe's read end, from (closed here), as a quiet
 * child (quiet.h): 0, or -1 (errno set). */
static int start_helper(int from)
{
    static char drain_opt[] = "--drain";
    char *argv[] = { g_helper_path, drain_opt, g_helper_as, NULL };
    void *page = MAP_FAILED;
    int counters = open_counters(&page), e;
    pid_t program = 0, pid = -1;

    from = above_helper_fds(from);
    counters = above_helper_fds(counters);
    /* the helper's lines (a log it cannot open) would land on the wire */
    struct stat st;
    int err = sg_fstat(2, &st) == 0 && stderr_is_wire(&st) ? -1 : 2;
    struct sg_quiet q = { .path = g_helper_path, .argv = argv, .envp = g_helper_env,
                          .fd = { from, -1, err, counters } };
    if (from >= 0)
        pid = sg_quiet_start(&q, &program);
    e = errno;
    REAL(close)(from);
    if (counters >= 0)
        REAL(close)(counters);
    if (pid < 0) {
        if (page != MAP_FAILED)
            munmap(page, sizeof *g_drain);
        errno = e;
        return -1;
    }
    g_helper_pid = program;
    if (page != MAP_FAILED)
        g_drain = page;
    STORE(g_helper, pid);
    return 0;
}

/* Makes the diversion's pipe and, unless lazy, starts the helper on it,
 * which passes what it takes to stderr (unless to_stderr is 0) and to the
 * log (STDIOGATE_LOG, if set).  Lazy: the read end is kept (g_drain_in)
 * and the helper started by drain_now.  Returns the pipe's write end, or
 * -1 (errno set). */
int start_drain(int to_stderr, const char *log, int lazy)
{
    int into = -1;
    if (!g_helper_path[0] || access(g_helper_path, X_OK) != 0) {
        if (!g_helper_path[0])
            errno = ENOENT;
        return -1;
    }
    char num[24];
    const char *me = fmt_num(num + sizeof num, (unsigned long long)getpid());
    memcpy(g_helper_as, me, strlen(me) + 1);
    helper_environment(to_stderr, log);
    int from = drain_pipe(&into, lazy);
    if (from < 0)
        return -1;
    if (lazy) {
        g_drain_lazy = 1;
        STORE(g_drain_in, from);
        return into;
    }
    if (start_helper(from) != 0) {
        int e = errno;
        REAL(close)(into);
        errno = e;
        return -1;
    }
    return into;
}

/* ------------------------------------------------------------------ */
/* The lazy drain (issue 35).  A server that prints nothing before its
 * first message needs no helper: the pipe is made, its read end kept here,
 * and the helper started only when there is something to carry: at the
 * first write of the program's that reaches the diversion (lib/failsafe.c,
 * C stdio in lib/stdout.c), before a fork, a spawn or an exec that hands
 * on bytes or copies of the pipe, before system(), when the gate opens or
 * the process exits with bytes in the pipe or a child holding it.  What
 * reaches the pipe unseen (raw system calls, a popen child) waits there,
 * in order, for the next of those; the pipe holds 64 KiB of it first. */

int g_drain_in = -1;                /* the kept read end, until a helper has it */
static int g_drain_starting;        /* one starter at a time */
static int g_drain_dead;            /* it could not start: the diversion is /dev/null */

/* Bytes waiting in the kept pipe (0 without one, or unknown). */
static int drain_pending(void)
{
    int fd = LOAD(g_drain_in), n = 0;
    return fd >= 0 && ioctl(fd, FIONREAD, &n) == 0 && n > 0;
}

/* Does a process other than this one hold the kept pipe's write end?
 * (Called once this process has let go of its own.) */
static int drain_has_writers(void)
{
    int fd = LOAD(g_drain_in);
    struct pollfd p = { .fd = fd, .events = POLLIN };
    return fd >= 0 && !(poll(&p, 1, 0) == 1 && (p.revents & POLLHUP));
}

/* A copy of the diversion follows it onto /dev/null (null). */
static void copy_to_null(int fd, int null)
{
    if (on_diversion(fd))
        (void)repoint(null, fd);
}

/* The helper cannot start (no process to spare; qemu-user refuses a clone
 * without an exit signal): the diversion becomes /dev/null, as when the
 * helper is missing at the start.  The kept pipe stays open, never read,
 * so that nothing still writing to it dies of SIGPIPE; what it holds is
 * lost (said at level 1). */
static void drain_to_null(int from)
{
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null < 0)
        return;
    int held = lock_wire();
    if (LOAD(g_core.fd1_ours) && on_diversion(1))
        copy_to_null(1, null);
    each_copy(0, ~0U, copy_to_null, null);
    int div = LOAD(g_core.div);
    if (div >= 0)
        (void)REAL(dup3)(null, div, O_CLOEXEC);
    identify(null, &g_core.div_id);
    g_core.div_name = "/dev/null";
    STORE(g_drain_in, from);
    unlock_wire(held);
    REAL(close)(null);
}

/* Junk written straight to stderr (drain_direct): for the exact count. */
static unsigned long long g_direct_bytes, g_direct_lines;
static int g_direct_partial;

/* Junk for the diversion while the helper is not needed (lazy, its pipe
 * empty): as much as stderr takes at once goes there in the program's own
 * call, no process of ours involved; the caller sends the rest through the
 * pipe (carry), after it, in order.  Not in a vfork child.  Bytes written. */
size_t drain_direct(const struct iovec *v, int n)
{
    /* (a kept read end closed behind our back reads as empty: nothing reads
     * the pipe any more, stderr is the place) */
    if (LOAD(g_drain_in) < 0 || LOAD(g_drain_dead) || LOAD(g_drain_starting) ||
        in_vfork_child() || drain_pending())
        return 0;
    ssize_t w = stderr_try(v, n);
    if (w <= 0)
        return 0;
    int partial = 0;
    unsigned long long lines = iov_lines(v, n, (size_t)w, &partial);
    __atomic_add_fetch(&g_direct_bytes, (unsigned long long)w, __ATOMIC_RELAXED);
    __atomic_add_fetch(&g_direct_lines, lines, __ATOMIC_RELAXED);
    STORE(g_direct_partial, partial);
    return (size_t)w;
}

/* Something to carry: the helper takes the kept read end.  Not in a vfork
 * child (it would record a child in the parent's memory); a caller that
 * finds another starting (a signal handler on the starter's thread, another
 * thread) goes on at once: the pipe keeps its bytes, in order. */
void drain_now(const char *why)
{
    int idle = 0;
    if (LOAD(g_drain_in) < 0 || LOAD(g_drain_dead) || in_vfork_child() ||
        !__atomic_compare_exchange_n(&g_drain_starting, &idle, 1, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_RELAXED))
        return;
    int from = LOAD(g_drain_in), saved = errno;
    if (from >= 0) {
        /* a copy for start_helper, which closes it: the kept one stays
         * until the helper is there */
        int mine = REAL(fcntl)(from, F_DUPFD_CLOEXEC, 3);
        if (mine >= 0 && start_helper(mine) == 0) {
            STORE(g_drain_in, -1);
            REAL(close)(from);
            char pid[24];
            /* The marker names one helper: one an exec left (its input
             * ended when this program diverted fd 1) is reaped here, or
             * the next program would never know of it. */
            if (LOAD(g_helper_inherited) && !reap_helper(&g_helper_inherited, HELPER_EXIT_MS))
                say(3, "the helper an exec handed on has not ended: left to the process that reaps orphans");
            hand_marker();      /* the next program reaps it */
            say(3, "startup output to carry (", why, "): the helper started, process ",
                NUM_IN(pid, g_helper_pid));
        } else {
            int e = errno;
            STORE(g_drain_dead, 1);
            STORE(g_drain_in, -1);
            drain_to_null(from);
            say(1, "cannot start the helper ", g_helper_path, " (", err_name(e),
                "): startup output goes to /dev/null");
        }
    }
    STORE(g_drain_starting, 0);
    errno = saved;
}

/* Before a child or the next program may write to the pipe, or after the
 * process has let go of it: the helper if the pipe holds bytes, or (others)
 * someone else may write to it; otherwise the kept read end is closed when
 * let_go. */
void drain_if_needed(const char *why, int others, int let_go)
{
    if (LOAD(g_drain_in) < 0 || in_vfork_child())
        return;
    if (!LOAD(g_drain_dead) && (drain_pending() || (others && (let_go ? drain_has_writers() : 1))))
        drain_now(why);
    int fd = LOAD(g_drain_in);
    if (let_go && fd >= 0 && !LOAD(g_drain_starting)) {
        STORE(g_drain_in, -1);
        REAL(close)(fd);
    }
}

/* What was written to the diversion before the call has reached stderr
 * (or is held by a helper that stderr will not take): bounded, never a
 * hang.  Bytes written meanwhile, by another thread or a child that keeps
 * writing, are not waited for: the queue is measured before the helper's
 * count is read, so the mark may only overshoot by what it read between,
 * and an idle pipe ends the wait at once. */
void wait_drained(void)
{
    struct sg_drain_counters *d = g_drain;
    struct timespec ms = { 0, 1000000 };
    char numbuf[24];
    int queued = 0;
    if (!d || !is(1, &g_core.div_id) || ioctl(1, FIONREAD, &queued) != 0)
        return;
    unsigned long long mark = LOAD(d->taken) + (unsigned long long)queued;
    for (int i = 0; i < DRAIN_WAIT_MS; i++) {
        unsigned long long settled = LOAD(d->settled);
        if (settled >= mark || LOAD(d->stuck))
            return;
        if (ioctl(1, FIONREAD, &queued) != 0 || (queued == 0 && LOAD(d->taken) == settled))
            return;
        if (i == 0)
            say(3, "waiting for the helper to pass on ", NUM(mark - settled),
                " bytes of startup output to stderr");
        nanosleep(&ms, NULL);
    }
    say(3, "the helper has not passed on the startup output within ", NUM(DRAIN_WAIT_MS),
        " ms: going on");
}

/* What the helper took from the diversion, exactly (it counts every byte
 * and newline, C stdio's own flushes included), or nothing at all from a
 * lazy pipe that never needed one; 0 (unknown) otherwise. */
int drained_count(unsigned long long *bytes, unsigned long long *lines)
{
    struct sg_drain_counters *d = g_drain;
    unsigned long long direct = LOAD(g_direct_bytes), nl = LOAD(g_direct_lines);
    if (!d && g_drain_lazy && !LOAD(g_drain_dead)) {
        /* what went straight to stderr, all of it: the pipe held nothing */
        *bytes = direct;
        *lines = nl + (LOAD(g_direct_partial) ? 1 : 0);
        return 1;
    }
    if (!d)
        return 0;
    /* straight to stderr first, then through the helper */
    unsigned long long taken = LOAD(d->taken);
    *bytes = direct + taken;
    *lines = nl + LOAD(d->lines) + ((taken ? LOAD(d->partial) : LOAD(g_direct_partial)) ? 1 : 0);
    return 1;
}

/* Does stderr need the drain (anything but a character device)? */
int stderr_needs_drain(void)
{
    struct stat st;
    return sg_fstat(2, &st) == 0 && !S_ISCHR(st.st_mode);
}

/* At exit, fd 1 and its copies stop pointing at the helper's pipe: at
 * stderr, which the diversion stood for (what is written after this, stdio's
 * last flush included, goes there directly). */
static void copy_to_stderr(int fd, int unused)
{
    (void)unused;
    set_copy(fd, 0);
    if (on_diversion(fd))
        (void)repoint(2, fd);
}

static void end_diversion(void)
{
    int held = lock_wire();
    if (LOAD(g_core.fd1_ours) && on_diversion(1))
        copy_to_stderr(1, 0);
    each_copy(0, ~0U, copy_to_stderr, 0);
    int div = LOAD(g_core.div);
    STORE(g_core.div, -1);
    if (div >= 0)
        REAL(close)(div);
    unlock_wire(held);
}

/* A process that exits while diverted: its startup output is in the log
 * before it is gone, and so is its helper.  A helper that holds bytes
 * stderr will not take, or has dropped some (it waits for room to say so),
 * is not waited for: it ends by the stall rule, later; nor one that another
 * process keeps busy (a child holding the diversion) beyond HELPER_EXIT_MS. */

void helper_at_exit(void)
{
    if (in_vfork_child())
        return;
    /* A lazy pipe with bytes in it: the helper carries them, before what
     * the last flush writes to stderr directly. */
    if (drain_pending())
        drain_now("exit");
    if ((LOAD(g_helper) || LOAD(g_drain_in) >= 0) && shut() && LOAD(g_core.fd1_ours)) {
        wait_drained();
        end_diversion();
    }
    /* Nothing more to carry unless a child holds the pipe. */
    drain_if_needed("exit", 1, 1);
    struct sg_drain_counters *d = g_drain;
    int busy = d && (LOAD(d->stuck) || LOAD(d->dropped));
    if (LOAD(g_helper) && !reap_helper(&g_helper, busy ? 0 : HELPER_EXIT_MS))
        say(3, "the helper has not ended: left to the process that reaps orphans");
    /* One an exec left: its input ended when this program diverted fd 1
     * or opened the gate, but a program that is quick to answer and exit
     * gets here before it has passed on the last bytes. */
    if (LOAD(g_helper_inherited) && !reap_helper(&g_helper_inherited, busy ? 0 : HELPER_EXIT_MS))
        say(3, "the helper an exec handed on has not ended: left to the process that reaps orphans");
}

/* Has this process a helper (its own, one an exec left it, or a lazy pipe
 * for one) to finish at exit? */
int helper_pending(void)
{
    return LOAD(g_helper) || LOAD(g_helper_inherited) || LOAD(g_drain_in) >= 0;
}

/* At exit: stdio's stdout first (exit flushes stdio after the destructors),
 * then the helper.  (Called by the exit work after the fail-safe's hold
 * is settled: see stdiogate_exit.) */
void helper_fini(void)
{
    if (!helper_pending())
        return;     /* (every process that merely loaded the library) */
    if ((LOAD(g_helper) || LOAD(g_drain_in) >= 0) && shut() && LOAD(g_core.fd1_ours) &&
        !in_vfork_child())
        flush_stdout();
    helper_at_exit();
}
