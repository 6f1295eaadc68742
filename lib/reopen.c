/* SPDX-License-Identifier: MIT */
/* lib/reopen.c - opening stdout by name: /dev/stdout, /dev/fd/1,
 * /proc/self/fd/1. */

#include "internal.h"

/* ------------------------------------------------------------------ */
/* Opening stdout by name.
 *
 * /dev/stdout, /dev/fd/1, /proc/self/fd/1 (and /proc/<pid>/fd/N of a copy
 * of the diversion) name whatever fd 1 is.  Unwrapped, opening one gives a
 * new open file on the wire (a pipe, a FIFO, a terminal, a file), or fails
 * (a socket: ENXIO).  rmcp's stdio_pipes() does this to own its descriptor
 * and serve on it.  Wrapped and diverted, the name resolves to the
 * diversion, and every answer would go to stderr: the client would hang.
 *
 * So the wire is opened first, with the caller's flags, and kept privately
 * (high, close-on-exec); if that fails, the call fails as it would have
 * unwrapped, errno included.  The program gets a stand-in on the diversion:
 * a new open file of a stderr pipe (its own, so that an O_NONBLOCK set on
 * it does not reach stderr), else a copy (a log file is written at its end,
 * never truncated).  The stand-in counts as a copy of the diversion (a dup2
 * of it onto fd 1 before an exec hands the wire on).  When the gate opens, the private one is put on the program's
 * number (its FD_CLOEXEC and status flags kept) and let go; an epoll
 * registration the program made for that number is made again, since the
 * kernel drops it with the open file it was made for (tokio, which rmcp
 * runs on, would wait forever for the next write readiness).
 *
 * Where the program cannot be given a stand-in (a vfork child, which may
 * write nothing shared; a full table) it gets the wire's new open file
 * right away: whatever it writes there reaches the client unguarded, as it
 * would unwrapped.  fopen and freopen: below. */

void resolve_reopen(void)
{
    REOPEN_FUNCTIONS(RESOLVE)
}

#define REOPENED_MAX 16

/* One descriptor the program opened by name: its number, the wire's new
 * open file kept for it, a private copy of the stand-in (which tells the
 * program's own copies of it, dup2'd onto fd 1 say, from other files after
 * the program closed it), and the epoll registration of its number.  An
 * entry lives until the gate opens or the wire is let go. */
struct reopened {
    int standin;               /* -1: free */
    int prog;                  /* -1: closed by the program */
    int wire;                  /* -1 once prog is gone */
    int flags;                 /* the diversion's status flags, if prog shares it */
    int epfd;                  /* -1: none */
    struct epoll_event ev;
};

static struct reopened g_reopened[REOPENED_MAX] = {
    [0 ... REOPENED_MAX - 1] = { .standin = -1, .prog = -1, .wire = -1, .epfd = -1 }
};
static int g_nreopened;

static struct reopened *reopened_at(int fd)
{
    if (fd < 0 || LOAD(g_nreopened) == 0)
        return NULL;
    for (int i = 0; i < REOPENED_MAX; i++)
        if (LOAD(g_reopened[i].standin) >= 0 && LOAD(g_reopened[i].prog) == fd)
            return &g_reopened[i];
    return NULL;
}

/* fd is a stand-in or a copy of one (for on_diversion). */
int on_reopened(int fd)
{
    if (LOAD(g_nreopened) == 0)
        return 0;
    for (int i = 0; i < REOPENED_MAX; i++) {
        int s = LOAD(g_reopened[i].standin);
        if (s >= 0 && same_open_file(fd, s) == 1)
            return 1;
    }
    return 0;
}

static void close_if_wire(int fd)
{
    if (is(fd, &g_core.wire_id))
        REAL(close)(fd);
}

/* The program closed fd, or put something else on it: the wire kept for
 * it is let go (its copies, if any, follow fd 1 like the others). */
void forget_reopened(int fd)
{
    if (LOAD(g_nreopened) == 0 || in_vfork_child())
        return;
    int held = lock_wire();
    struct reopened *e = reopened_at(fd);
    if (e) {
        int wire = e->wire;
        STORE(e->prog, -1);
        e->wire = -1;
        e->epfd = -1;
        close_if_wire(wire);
    }
    unlock_wire(held);
}

/* open_gate, under the wire lock, before the copies follow fd 1: a
 * stand-in is not one of them (it gets the wire kept for it), a copy of a
 * stand-in is. */
void unmark_reopened(void)
{
    for (int i = 0; i < REOPENED_MAX && LOAD(g_nreopened) > 0; i++)
        if (LOAD(g_reopened[i].standin) >= 0 && LOAD(g_reopened[i].prog) >= 0)
            set_copy(LOAD(g_reopened[i].prog), 0);
}

static void point_one_at_wire(struct reopened *e)
{
    char numbuf[24];
    int prog = e->prog, wire = e->wire;
    /* The private copies are not shielded from close_range as g_core.wire and
     * g_core.div are: one the program closed is made up for by the file's
     * identity and by g_core.wire (still open: drop_privates comes after). */
    int r = same_open_file(prog, e->standin);
    if (r < 0)
        r = is(prog, &g_core.div_id);
    if (!is(wire, &g_core.wire_id))
        wire = LOAD(g_core.wire);
    if (r != 1 || wire < 0)
        return;   /* closed behind our back (a raw system call) and reused */
    int fl = REAL(fcntl)(prog, F_GETFL);
    int keep = O_APPEND | O_NONBLOCK | O_ASYNC | O_DIRECT | O_NOATIME;
    if (fl >= 0 && wire == e->wire)
        REAL(fcntl)(wire, F_SETFL, fl & keep);
    if (e->flags >= 0)   /* a copy of the diversion: stderr gets its mode back */
        REAL(fcntl)(prog, F_SETFL, e->flags);
    if (repoint(wire, prog) < 0) {
        say(1, "cannot put descriptor ", NUM(prog), " on the wire: ", err_name(errno));
        return;
    }
    if (LOAD(g_guard_wanted))
        set_copy(prog, 1);      /* a copy of the wire, which the guard watches */
    if (e->epfd >= 0 && REAL(epoll_ctl)(e->epfd, EPOLL_CTL_ADD, prog, &e->ev) < 0)
        say(1, "cannot register descriptor ", NUM(prog), " with epoll again: ",
            err_name(errno));
    else
        say(3, "descriptor ", NUM(prog), " opened by name is on the wire now");
}

/* open_gate, under the wire lock, after the copies: each stand-in the
 * program still has becomes the wire kept for it. */
void point_reopened_at_wire(void)
{
    for (int i = 0; i < REOPENED_MAX && LOAD(g_nreopened) > 0; i++) {
        struct reopened *e = &g_reopened[i];
        if (LOAD(e->standin) >= 0 && LOAD(e->prog) >= 0)
            point_one_at_wire(e);
    }
}

/* drop_privates, under the wire lock: every entry goes. */
void drop_reopened(void)
{
    for (int i = 0; i < REOPENED_MAX && LOAD(g_nreopened) > 0; i++) {
        struct reopened *e = &g_reopened[i];
        int standin = LOAD(e->standin), wire = e->wire;
        if (standin < 0)
            continue;
        STORE(e->standin, -1);
        STORE(e->prog, -1);
        e->wire = -1;
        e->epfd = -1;
        __atomic_fetch_sub(&g_nreopened, 1, __ATOMIC_ACQ_REL);
        close_if_wire(wire);
        if (is(standin, &g_core.div_id))   /* else the program's by now */
            REAL(close)(standin);
    }
}

/* The descriptor number a path names, when it is this process's: -1 else. */
static int fd_named(const char *path)
{
    static const char dirs[][sizeof "/proc/thread-self/fd/"] = { "/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/" };
    const char *p = NULL;
    if (strcmp(path, "/dev/stdout") == 0)
        return 1;
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0] && !p; i++)
        if (strncmp(path, dirs[i], strlen(dirs[i])) == 0)
            p = path + strlen(dirs[i]);
    if (!p && strncmp(path, "/proc/", 6) == 0) {
        unsigned long pid = 0;
        for (p = path + 6; *p >= '0' && *p <= '9' && pid < (1UL << 31); p++)
            pid = pid * 10 + (unsigned long)(*p - '0');
        if (pid != (unsigned long)getpid() || strncmp(p, "/fd/", 4) != 0)
            return -1;
        p += 4;
    }
    if (!p || *p < '0' || *p > '9' || (*p == '0' && p[1]))
        return -1;
    long n = 0;
    for (; *p >= '0' && *p <= '9' && n < (1L << 30); p++)
        n = n * 10 + (*p - '0');
    return *p ? -1 : (int)n;
}

/* After the gate, with the guard on: does path name one of our
 * descriptors (a new open file of the wire, if it is one)? */
static int guarded_name(const char *path)
{
    return guarding() && !gated() && path && path[0] == '/' && fd_named(path) >= 0;
}

enum opener { OP_OPEN, OP_OPEN64, OP_OPENAT, OP_OPENAT64, OP_OPEN_2, OP_OPEN64_2, OP_OPENAT_2,
              OP_OPENAT64_2 };

static int open_real(enum opener how, int dirfd, const char *path, int flags, mode_t mode)
{
    switch (how) {
    case OP_OPEN: return REAL(open)(path, flags, mode);
    case OP_OPEN64: return REAL(open64)(path, flags, mode);
    case OP_OPENAT: return REAL(openat)(dirfd, path, flags, mode);
    case OP_OPENAT64: return REAL(openat64)(dirfd, path, flags, mode);
    case OP_OPEN_2: return REAL(__open_2)(path, flags);
    case OP_OPEN64_2: return REAL(__open64_2)(path, flags);
    case OP_OPENAT_2: return REAL(__openat_2)(dirfd, path, flags);
    default: return REAL(__openat64_2)(dirfd, path, flags);
    }
}

/* A new open file on the wire, opened with the caller's flags and moved
 * high; -1 with the open's errno.  The wire is copied under the lock first
 * (open_gate may close g_core.wire), and opened outside it: opening a FIFO may
 * block, as it would unwrapped. */
static int open_wire(int flags, mode_t mode)
{
    char path[40] = "/proc/self/fd/", numbuf[24];
    int held = lock_wire(), wire = shut() ? LOAD(g_core.wire) : -1;
    int copy = wire >= 0 ? high_dup(wire) : -1;
    unlock_wire(held);
    if (copy < 0) {
        errno = EBADF;
        return -1;
    }
    const char *num = NUM(copy);
    memcpy(path + 14, num, strlen(num) + 1);   /* after "/proc/self/fd/" */
    int fd = REAL(open)(path, flags | O_CLOEXEC, mode), err = errno, high = fd;
    if (fd >= 0) {
        high = high_dup(fd);
        err = errno;
        REAL(close)(fd);
    }
    REAL(close)(copy);
    errno = err;
    return high;
}

/* The program's stand-in: a new open file on the diversion fd names when
 * that is a pipe or FIFO (its own O_NONBLOCK, never stderr's), with the
 * caller's flags but never O_TRUNC or O_CREAT; else a copy of fd, which
 * shares stderr's offset and O_APPEND (a log file is written at its end).
 * *shared: the copy's status flags before, else -1. */
static int open_standin(const char *path, int fd, int flags, int *shared)
{
    int keep = O_ACCMODE | O_APPEND | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | O_DSYNC | O_SYNC |
               O_PATH | O_LARGEFILE;
    struct stat st;
    *shared = -1;
    if (sg_fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) {
        /* O_NONBLOCK: a stderr pipe whose reader left must not block us. */
        int r = REAL(open)(path, (flags & keep) | O_NONBLOCK, 0);
        if (r >= 0) {
            if (!(flags & (O_NONBLOCK | O_PATH)))
                REAL(fcntl)(r, F_SETFL, REAL(fcntl)(r, F_GETFL) & ~O_NONBLOCK);
            return r;
        }
    }
    *shared = REAL(fcntl)(fd, F_GETFL);
    return REAL(fcntl)(fd, (flags & O_CLOEXEC) ? F_DUPFD_CLOEXEC : F_DUPFD, 0);
}

/* Gives wire (a high private descriptor) the lowest free number, as the
 * program's open would have: the step-aside answer. */
static int give_wire(int wire, int flags)
{
    int r = REAL(fcntl)(wire, (flags & O_CLOEXEC) ? F_DUPFD_CLOEXEC : F_DUPFD, 0);
    int err = errno;
    REAL(close)(wire);
    errno = err;
    return r;
}

static int open_by_name(int named, const char *path, int flags, mode_t mode)
{
    char numbuf[24];
    int shared, wire = open_wire(flags, mode);
    if (wire < 0)
        return -1;
    if (in_vfork_child())
        return give_wire(wire, flags);
    int prog = open_standin(path, named, flags, &shared);
    if (prog < 0) {
        int err = errno;
        REAL(close)(wire);
        errno = err;
        return -1;
    }
    int standin = high_dup(prog);
    int held = lock_wire();
    struct reopened *e = NULL;
    for (int i = 0; i < REOPENED_MAX && !e && shut() && standin >= 0; i++)
        if (LOAD(g_reopened[i].standin) < 0)
            e = &g_reopened[i];
    if (e) {
        e->wire = wire;
        e->flags = shared;
        e->epfd = -1;
        STORE(e->prog, prog);
        STORE(e->standin, standin);
        __atomic_fetch_add(&g_nreopened, 1, __ATOMIC_ACQ_REL);
        set_copy(prog, 1);
    }
    unlock_wire(held);
    if (e) {
        say(3, path, " opened as descriptor ", NUM(prog), ": the diversion until the gate opens");
        return prog;
    }
    if (standin >= 0)
        REAL(close)(standin);
    /* The gate opened meanwhile, or no room: the wire, at once. */
    if (shut())
        say(1, "no descriptor to spare for ", path, ": it is the wire at once");
    if (shared >= 0)
        REAL(fcntl)(prog, F_SETFL, shared);
    int r = repoint(wire, prog);
    int err = errno;
    REAL(close)(wire);
    if (r < 0) {
        REAL(close)(prog);
        errno = err;
        return -1;
    }
    return prog;
}

/* Does path name the diversion?  Then the descriptor number it names. */
static int names_diversion(int dirfd, const char *path)
{
    (void)dirfd;   /* only absolute names are recognised */
    if (!shut() || !path || path[0] != '/')
        return -1;
    int n = fd_named(path);
    return n >= 0 && is_diversion(n) && on_diversion(n) == 1 ? n : -1;
}

/* After the gate, the guard's: a new open file on the wire, opened by
 * name (rmcp's stdio_pipes does it), is a copy of the wire to watch. */
static int open_guarded(enum opener how, int dirfd, const char *path, int flags, mode_t mode)
{
    int fd = open_real(how, dirfd, path, flags, mode), saved = errno;
    if (fd >= 0 && !in_vfork_child() && is(fd, &g_core.wire_id)) {
        int held = lock_wire();
        set_copy(fd, 1);
        unlock_wire(held);
    }
    errno = saved;
    return fd;
}

static int opened(enum opener how, int dirfd, const char *path, int flags, mode_t mode)
{
    int saved = errno, n = names_diversion(dirfd, path);
    errno = saved;
    if (n >= 0)
        return open_by_name(n, path, flags, mode);
    if (guarded_name(path))
        return open_guarded(how, dirfd, path, flags, mode);
    return open_real(how, dirfd, path, flags, mode);
}

/* A name may be stdin's (/proc/self/fd/0, a FIFO): fds_changed. */
__attribute__((noinline, cold)) static int slow_open(enum opener how, int dirfd, const char *path,
                                                     int flags, mode_t mode)
{
    int fd = opened(how, dirfd, path, flags, mode), saved = errno;
    if (fd >= 0)
        fds_changed();
    errno = saved;
    return fd;
}

/* With the gate open and no guard an opener is its real function plus one
 * branch (and the mode, taken only when the flags say there is one, as
 * open(2) does); with the guard, a look at the name. */
#define MODE_ARG(flags, mode)                   \
    mode_t mode = 0;                            \
    if (__OPEN_NEEDS_MODE(flags)) {             \
        va_list ap;                             \
        va_start(ap, flags);                    \
        mode = va_arg(ap, mode_t);              \
        va_end(ap);                             \
    }

#define FAST_OPEN(name, args)                                                   \
    __typeof__(&name) p_ = __atomic_load_n(&real_##name, __ATOMIC_RELAXED);     \
    if (likely(p_ != NULL) && !minding())                                       \
        return p_ args

#define PATH_OPENER(name, how)                                  \
    EXPORT int name(const char *path, int flags, ...)           \
    {                                                           \
        MODE_ARG(flags, mode)                                   \
        FAST_OPEN(name, (path, flags, mode));                   \
        return slow_open(how, AT_FDCWD, path, flags, mode);     \
    }
PATH_OPENER(open, OP_OPEN)
PATH_OPENER(open64, OP_OPEN64)

#define AT_OPENER(name, how)                                            \
    EXPORT int name(int dirfd, const char *path, int flags, ...)        \
    {                                                                   \
        MODE_ARG(flags, mode)                                           \
        FAST_OPEN(name, (dirfd, path, flags, mode));                    \
        return slow_open(how, dirfd, path, flags, mode);                \
    }
AT_OPENER(openat, OP_OPENAT)
AT_OPENER(openat64, OP_OPENAT64)

/* The fortified forms take no mode (O_CREAT without one aborts in them). */
EXPORT int __open_2(const char *path, int flags)
{
    FAST_OPEN(__open_2, (path, flags));
    return slow_open(OP_OPEN_2, AT_FDCWD, path, flags, 0);
}

EXPORT int __open64_2(const char *path, int flags)
{
    FAST_OPEN(__open64_2, (path, flags));
    return slow_open(OP_OPEN64_2, AT_FDCWD, path, flags, 0);
}

EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
    FAST_OPEN(__openat_2, (dirfd, path, flags));
    return slow_open(OP_OPENAT_2, dirfd, path, flags, 0);
}

EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
    FAST_OPEN(__openat64_2, (dirfd, path, flags));
    return slow_open(OP_OPENAT64_2, dirfd, path, flags, 0);
}

/* ------------------------------------------------------------------ */
/* C stdio opening stdout by name.  glibc's fopen and freopen open with
 * internal calls the open interposers never see (issue 42: junk written
 * after the gate through fopen("/dev/stdout"), as curl -o /dev/stdout
 * does, reached the wire).  Before the gate fopen takes the same way as
 * open (a stand-in on the diversion, the wire kept for it), the stream
 * made with fdopen; after it, a stream on the wire is on a copy of it,
 * which the guard watches (C stdio on such a stream: lib/stdout.c).
 * freopen before the gate is left as it is (see docs/LIMITS.md). */

/* open(2)'s flags for an fopen mode; -1 if it is not one. */
static int mode_flags(const char *mode)
{
    int flags;
    switch (mode[0]) {
    case 'r': flags = O_RDONLY; break;
    case 'w': flags = O_WRONLY | O_CREAT | O_TRUNC; break;
    case 'a': flags = O_WRONLY | O_CREAT | O_APPEND; break;
    default: return -1;
    }
    for (const char *m = mode + 1; *m && *m != ','; m++) {
        if (*m == '+')
            flags = (flags & ~O_ACCMODE) | O_RDWR;
        else if (*m == 'e')
            flags |= O_CLOEXEC;
        else if (*m == 'x')
            flags |= O_EXCL;
    }
    return flags;
}

static void watch_if_wire(FILE *fp)
{
    if (fp && !in_vfork_child() && is(fileno(fp), &g_core.wire_id)) {
        int held = lock_wire();
        set_copy(fileno(fp), 1);
        unlock_wire(held);
    }
}

__attribute__((noinline, cold)) static FILE *slow_fopen(FILE *(*real)(const char *, const char *),
                                                       const char *path, const char *mode)
{
    int saved = errno, n = mode ? names_diversion(AT_FDCWD, path) : -1;
    int flags = n >= 0 ? mode_flags(mode) : -1;
    errno = saved;
    if (flags >= 0) {
        int fd = open_by_name(n, path, flags, 0666);
        FILE *fp = fd >= 0 ? fdopen(fd, mode) : NULL;
        if (fd >= 0 && !fp) {
            int err = errno;
            REAL(close)(fd);
            errno = err;
        }
        return fp;
    }
    FILE *fp = real(path, mode);
    saved = errno;
    if (fp)
        fds_changed();
    if (guarded_name(path))
        watch_if_wire(fp);
    errno = saved;
    return fp;
}

EXPORT FILE *fopen(const char *path, const char *mode)
{
    FAST_OPEN(fopen, (path, mode));
    return slow_fopen(REAL(fopen), path, mode);
}

EXPORT FILE *fopen64(const char *path, const char *mode)
{
    FAST_OPEN(fopen64, (path, mode));
    return slow_fopen(REAL(fopen64), path, mode);
}

__attribute__((noinline, cold)) static FILE *slow_freopen(
    FILE *(*real)(const char *, const char *, FILE *), const char *path, const char *mode,
    FILE *fp)
{
    FILE *r = real(path, mode, fp);
    int saved = errno;
    if (r)
        fds_changed();
    if (guarded_name(path))
        watch_if_wire(r);
    errno = saved;
    return r;
}

EXPORT FILE *freopen(const char *path, const char *mode, FILE *fp)
{
    FAST_OPEN(freopen, (path, mode, fp));
    return slow_freopen(REAL(freopen), path, mode, fp);
}

EXPORT FILE *freopen64(const char *path, const char *mode, FILE *fp)
{
    FAST_OPEN(freopen64, (path, mode, fp));
    return slow_freopen(REAL(freopen64), path, mode, fp);
}

/* The stand-in's epoll registration, to be made again for the wire
 * (lib/epoll.c's epoll_ctl calls it).  1 if fd is a stand-in. */
int note_reopened_epoll(int epfd, int op, int fd, const struct epoll_event *ev)
{
    if (LOAD(g_nreopened) == 0 || !shut() || in_vfork_child())
        return 0;
    int held = lock_wire();
    struct reopened *e = reopened_at(fd);
    if (e && op == EPOLL_CTL_DEL && e->epfd == epfd)
        e->epfd = -1;
    else if (e && ev && (op == EPOLL_CTL_ADD || (op == EPOLL_CTL_MOD && e->epfd == epfd))) {
        e->epfd = epfd;
        e->ev = *ev;
    }
    unlock_wire(held);
    return e != NULL;
}
