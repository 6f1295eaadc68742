/* SPDX-License-Identifier: MIT */
/* lib/strict.c - strict mode's end: the server lets go of the filter's pipe
 * at exit and reaps the filter's middle process. */

#include "internal.h"

/* ------------------------------------------------------------------ */
/* Under --strict (and the default mode's filter for a program the library
 * cannot enter), stdiogate-filter starts the filter as a quiet child of the
 * server's process (quiet.h) and names it to COMMAND in the marker:
 * STDIOGATE_WIRE=filter:PID:MIDDLE.  The library diverts nothing then; in
 * the process PID (the server, and every program it execs) it remembers
 * the middle and the pipe.  At exit the filter outlives the server unless
 * the server lets go of the pipe, after every destructor (the program's
 * own libraries may still write then): its stdio streams on the pipe are
 * flushed (exit would, after this), every descriptor of the pipe is
 * pointed at /dev/null, and the library waits (at most STRICT_EXIT_MS)
 * for the filter to pass on what it holds and end, and reaps the middle:
 * the server's last answer is on the wire when its exit is seen, as it
 * would be unwrapped.  When another process still holds the pipe (a
 * background child of the server's), the filter cannot end before that
 * one lets go: the wait then lasts only until the filter has read what is
 * in the pipe, and the server's exit takes what it takes unwrapped.
 * Where pid 1 reaps nothing (a container without an init), nothing is
 * left behind, unless the server is killed by a signal, cannot load the
 * library (Go, static...) or leaves with a raw exit_group (Bun), or a
 * child of its still holds the pipe. */

#define STRICT_EXIT_MS 500

static pid_t g_strict_pid;          /* the process that started the filter */
static pid_t g_strict_middle;       /* its middle, until reaped */
static struct identity g_strict_pipe;

/* The marker's filter form, "filter:PID:MIDDLE" (env.h).  The marker
 * stays in the environment: the programs this process execs are the same
 * server. */
void strict_noted(const struct sg_marker *m)
{
    if ((pid_t)m->filter_pid != getpid())
        return;
    char numbuf[24];
    identify(1, &g_strict_pipe);
    g_strict_pid = (pid_t)m->filter_pid;
    STORE(g_strict_middle, (pid_t)m->middle);
    say(3, "strict: the filter runs under process ", NUM(m->middle), ", reaped at exit");
}

/* Has this process a filter to let go of and reap at exit? */
int strict_pending(void)
{
    return LOAD(g_strict_middle) && getpid() == g_strict_pid;
}

/* Is fd the filter's pipe? */
static int on_pipe(int fd)
{
    struct stat st;
    return fd >= 0 && g_strict_pipe.valid && sg_fstat(fd, &st) == 0 &&
           st.st_dev == g_strict_pipe.dev && st.st_ino == g_strict_pipe.ino;
}

/* exit flushes every C stdio stream after the destructors, this one's
 * included: a stream of the program's own on a copy of stdout (fdopen of a
 * dup) may hold its last answer until then.  So every stream on the pipe
 * with bytes in its buffer is flushed here, walking glibc's list of
 * streams as its exit does (looked up only here: no import, no lookup in
 * every process).  0 if one still holds bytes (another thread has it
 * locked): the pipe is then not let go. */
static int flush_streams_on_pipe(void)
{
    FILE **all = (FILE **)dlsym(RTLD_DEFAULT, "_IO_list_all");
    int flushed = all != NULL;
    for (FILE *fp = all ? *all : NULL; fp; fp = fp->_chain) {
        if (fp->_IO_write_ptr <= fp->_IO_write_base || !on_pipe(fp->_fileno))
            continue;
        if (ftrylockfile(fp) == 0) {
            fflush_unlocked(fp);
            funlockfile(fp);
        }
        flushed &= fp->_IO_write_ptr <= fp->_IO_write_base;
    }
    return flushed;
}

/* A read end of the pipe, opened anew through fd (/proc/self/fd: an
 * anonymous pipe opens without waiting), or -1.  Only polled, never read:
 * POLLHUP on it says that no process holds a write end any more; FIONREAD,
 * what the filter has not read yet. */
static int pipe_watch(int fd)
{
    char numbuf[24], path[40] = "/proc/self/fd/";
    const char *n = NUM(fd);
    size_t len = strlen(n);
    if (14 + len >= sizeof path)
        return -1;
    memcpy(path + 14, n, len + 1);
    return (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
}

static int g_strict_watch = -1;     /* the watch, during the exit work */

/* One descriptor of the pipe: onto /dev/null (null).  Not stderr: a write
 * after this one could block there for good (a full pipe nobody reads), or
 * land on the wire (stderr is the client's stdout under 2>&1).  The first
 * gives the watch first; the watch itself stays. */
static void let_go(int fd, int null)
{
    if (null < 0 || fd == g_strict_watch || !on_pipe(fd))
        return;
    if (g_strict_watch < 0)
        g_strict_watch = pipe_watch(fd);
    (void)repoint(null, fd);
}

/* Can the filter not end yet, and has it read what is in the pipe?  Then
 * another process still holds a write end, and the filter ends after it. */
static int held_elsewhere(int watch)
{
    struct pollfd p = { watch, 0, 0 };
    int queued = 1;
    return watch >= 0 && poll(&p, 1, 0) == 0 && ioctl(watch, FIONREAD, &queued) == 0 && queued == 0;
}

/* Waits for the filter to end (at most STRICT_EXIT_MS) and reaps the
 * middle: 1 if it did; 0 on the bound, -1 when another process holds the
 * pipe. */
static int reap_filter(int watch)
{
    struct timespec one = { 0, 1000000 };
    for (int i = 0;; i++) {
        if (reap_helper(&g_strict_middle, 0))
            return 1;
        if (held_elsewhere(watch))
            return -1;
        if (i >= STRICT_EXIT_MS)
            return 0;
        nanosleep(&one, NULL);
    }
}

/* Where getdents64 puts an entry's length and name (struct linux_dirent64:
 * d_ino and d_off, 8 bytes each, d_reclen, d_type, d_name). */
enum { DIRENT_RECLEN = 16, DIRENT_NAME = 19 };

/* A descriptor's number from its name in /proc/self/fd, or -1. */
static int fd_named(const char *name)
{
    int fd = 0;
    if (!*name)
        return -1;
    for (; *name; name++) {
        if (*name < '0' || *name > '9' || fd > 100000000)
            return -1;
        fd = fd * 10 + (*name - '0');
    }
    return fd;
}

/* Every descriptor of this process's (/proc/self/fd, read with getdents64:
 * _exit may run in a signal handler). */
static void each_descriptor(void (*fn)(int, int), int arg)
{
    static char buf[2048] __attribute__((aligned(8)));
    int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    long n;
    if (dir < 0)
        return;
    while ((n = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
        unsigned short len;
        for (long at = 0; at + DIRENT_NAME < n; at += len) {
            memcpy(&len, buf + at + DIRENT_RECLEN, sizeof len);
            int fd = fd_named(buf + at + DIRENT_NAME);
            if (fd >= 0 && fd != dir)
                fn(fd, arg);
            if (len == 0)
                break;
        }
    }
    REAL(close)(dir);
}

/* At exit (flush: stdout first, as exit would after the destructors) and
 * at _exit. */
void strict_fini(int flush)
{
    if (!strict_pending() || in_vfork_child())
        return;
    if (flush && !flush_streams_on_pipe()) {
        say(3, "strict: a stdio stream on the filter's pipe still holds bytes: the pipe is "
               "kept, the filter left to the process that reaps orphans");
        return;
    }
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    g_strict_watch = -1;
    if (null >= 0) {
        each_descriptor(let_go, null);
        REAL(close)(null);
    }
    int watch = g_strict_watch, reaped = reap_filter(watch);
    g_strict_watch = -1;
    if (watch >= 0)
        REAL(close)(watch);
    if (reaped < 0)
        say(3, "strict: another process still holds the filter's pipe: the filter ends after "
               "it, left to the process that reaps orphans");
    else if (!reaped)
        say(3, "strict: the filter has not ended (a child holds its pipe?): left to the "
               "process that reaps orphans");
}
