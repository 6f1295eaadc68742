/* SPDX-License-Identifier: MIT */
/* filter.c - stdiogate-filter: strict mode.
 *
 *   stdiogate-filter [--protocol auto|jsonl|framed] [--discard] [--path FILE] [--unenterable] -- COMMAND [ARG]...
 *
 * The wrapper runs this for `stdiogate --strict`.  It starts a filter
 * process between a pipe and its own stdout (the wire), then execs COMMAND
 * in its own process (the pid the client started) with the pipe as fd 1.
 * The filter passes the protocol messages in the pipe to the wire byte for
 * byte, and sends everything else to stderr (detect.h, "The stream
 * classifier", says what is which).
 *
 *   client stdout <-- wire --- filter <-- pipe --- fd 1 of COMMAND (same pid)
 *   stderr <------------------- junk              client stdin --> fd 0
 *
 * The filter is a quiet child (quiet.h): `stdiogate-filter --relay`, run
 * from a middle process that the server's wait(-1) and SIGCHLD never see,
 * named to COMMAND by STDIOGATE_WIRE=filter:PID:MIDDLE, so that the library,
 * if COMMAND loads it, lets go of the pipe at exit, waits for the filter
 * and reaps the middle (lib/strict.c): where pid 1 reaps nothing, nothing
 * is left.  Where that clone is refused (qemu-user), it is forked twice
 * instead (the middle reaped at once): nobody's child, reparented.  It
 * holds the wire, stderr and the pipe's read end (and descriptors of its own:
 * a non-blocking handle on stderr, a pipe to peek through), and exits
 * when the last writer of the pipe has closed it, or when the client has
 * closed the wire.  COMMAND gets the signal dispositions and mask this
 * program was started with.  libc only; built statically, so that the
 * LD_PRELOAD the wrapper set does not load the library into this program.
 *
 * --path FILE: exec FILE with COMMAND [ARG]... as its argv (COMMAND is then
 * only argv[0]), as execve would: the library starts a program it cannot
 * enter this way, with the file it resolved and the argv it was given.
 * --unenterable (the wrapper's choice of the filter for such a COMMAND, and
 * implied by --path): COMMAND gets no marker naming the filter, as it
 * cannot load the library that would reap it.
 *
 * Exit status: COMMAND's (exec); 125 bad usage, 126 COMMAND not executable,
 * 127 COMMAND not found.  If the filter cannot be started (stdout closed, no
 * pipe or process), COMMAND runs unfiltered, with a warning.
 *
 *   stdiogate-filter --drain PID     (internal: libstdiogate.so runs it)
 *   stdiogate-filter --relay PROTOCOL DISCARD NAME PID   (internal: the
 *                                    filter itself, started as above)
 *
 * The helper of default mode (helper.h): it copies its stdin, the pipe the
 * library diverted fd 1 of process PID to, onto stderr, with the junk path
 * below (every byte is junk), and speaks as PID.  It exits at the end of its
 * input.  Both modes ignore every signal sent to the process group.
 *
 * STDIOGATE_LOG=FILE (`stdiogate --log FILE`): both modes also append
 * every junk byte to FILE, each line prefixed "NAME[PID]: " (the server's),
 * whether stderr takes it or not (--discard): see "The log" below.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../protocol/detect.h"
#include "../common/env.h"
#include "../common/junk.h"
#include "../common/helper.h"
#include "../common/quiet.h"
#include "../common/stall.h"

#define WIRE 1
#define READ_SIZE (256 * 1024)
#define IOV_MAX_BATCH 64
/* A stderr that takes nothing for this long is taken as read by nobody
 * (stall.h). */
#define STALL_MS SG_STALL_MS

static int g_level = 1;
static pid_t g_as;          /* --drain: the server this helper speaks for */
static char g_server[64] = "server";   /* the server's name and pid, for the log */
/* COMMAND cannot load the library (--path, --unenterable): the marker that
 * names the filter to it would only change its environment. */
static int g_unenterable;
static long g_server_pid;

/* stderr: in the filter, a non-blocking handle of our own on it, so that a
 * full stderr drops junk (and diagnostics) instead of stalling the wire. */
static struct {
    int fd;             /* -1: closed */
    int socket;         /* send with MSG_DONTWAIT */
    int stalled;        /* took nothing for STALL_MS: junk is dropped until it takes again */
} g_err = { 2, 0, 0 };

static void say(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(int level, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    int saved = errno;
    if (level > g_level)
        return;
    int n = snprintf(line, sizeof line, "stdiogate[%d]: ", (int)(g_as ? g_as : getpid()));
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    if (g_err.socket)
        (void)send(g_err.fd, line, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL);
    else if (g_err.fd >= 0 && write(g_err.fd, line, (size_t)n) < 0)
        g_err.fd = errno == EAGAIN ? g_err.fd : -1;
    errno = saved;
}

/* ---- The filter process ---- */

static int g_discard;    /* --discard, or stderr is the wire */

static struct {
    unsigned long long bytes, lines, dropped;
    int partial;        /* the last junk byte was not a newline */
} g_stats;

/* --drain: the counters the library waits on (helper.h), or NULL. */
static struct sg_drain_counters *g_counters;

/* n bytes of junk have left the filter: written to stderr, or dropped. */
static void settle(size_t n, int dropped)
{
    if (dropped && !g_discard)
        g_stats.dropped += n;
    if (g_counters) {
        if (dropped && !g_discard)  /* (discarded, as asked: nothing to say at exit) */
            __atomic_add_fetch(&g_counters->dropped, (unsigned long long)n, __ATOMIC_RELAXED);
        __atomic_add_fetch(&g_counters->settled, (unsigned long long)n, __ATOMIC_RELEASE);
    }
}

/* Move a descriptor to low or above (0 is closed in the filter, and 0, 1,
 * 2 may be closed when the launcher starts). */
static int above(int fd, int low)
{
    if (fd >= low)
        return fd;
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, low);
    close(fd);
    return moved;
}

static void open_stderr(int discard)
{
    struct stat err, wire;
    g_discard = discard;
    if (fstat(2, &err) < 0) {
        g_err.fd = -1;
        return;
    }
    if (fstat(WIRE, &wire) == 0 && err.st_dev == wire.st_dev && err.st_ino == wire.st_ino) {
        g_err.fd = -1;          /* 2>&1: nothing of ours may land on the wire */
        return;
    }
    if (S_ISSOCK(err.st_mode)) {
        g_err.socket = 1;
    } else if (S_ISFIFO(err.st_mode) || S_ISCHR(err.st_mode)) {
        /* a second open file description: O_NONBLOCK on it is ours alone */
        int fd = open("/proc/self/fd/2", O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd >= 0)
            fd = above(fd, 4);  /* not where stdin was: fd 0 is closed */
        if (fd >= 0)
            g_err.fd = fd;
        else if (errno == ENXIO)
            g_err.fd = -1;      /* a FIFO nobody reads any more */
        /* else no /proc: fd 2 as it is, blocking like the server's own */
    }
    /* a regular file does not fill up */
}

/* One non-blocking attempt to write junk on stderr.  -1: it is gone. */
static ssize_t err_write(const struct iovec *iov, int cnt)
{
    ssize_t w;
    if (g_err.socket) {
        struct msghdr m = { .msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)cnt };
        w = sendmsg(g_err.fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
    } else {
        do
            w = writev(g_err.fd, iov, cnt);
        while (w < 0 && errno == EINTR);
    }
    if (w >= 0 || errno == EAGAIN)
        return w < 0 ? 0 : w;
    g_err.fd = -1;              /* closed, read-only, or its reader gone */
    return -1;
}

/* Junk that stderr could not take yet waits here, written as stderr
 * drains while the protocol goes on; what does not fit is dropped. */
static struct sg_backlog g_backlog;

static void backlog_drop(void)
{
    settle(g_backlog.len, 1);
    sg_backlog_taken(&g_backlog, g_backlog.len);
}

static void backlog_drain(void)
{
    int gone;
    size_t n = sg_backlog_drain(&g_backlog, err_write, &gone);
    settle(n, gone);
}

/* ---- The log ---- */

/* STDIOGATE_LOG (junk.h); on a write error it is given up. */
static struct sg_log g_log = { .fd = -1 };

static void log_open(const char *name, long pid)
{
    const char *path = sg_env_log(getenv(SG_ENV_LOG));
    if (!path)
        return;
    int fd = open(path, SG_LOG_OPEN_FLAGS, 0666);
    if (fd >= 0)
        fd = above(fd, 4);      /* not where stdin or the counters were */
    if (fd < 0) {
        say(1, "cannot open the log %s: %s", path, strerror(errno));
        return;
    }
    g_log.fd = fd;
    sg_log_prefix(&g_log, name, pid);
}

static void log_write(struct sg_log *log, const struct iovec *v, int n)
{
    ssize_t w;
    do
        w = writev(log->fd, v, n);
    while (w < 0 && errno == EINTR);
    if (w < 0 && errno != EAGAIN) {
        say(1, "cannot write the log: %s: not logging any more", strerror(errno));
        close(log->fd);
        log->fd = -1;
    }
}

/* At the end: a last line without its newline gets one in the log, so
 * that the next line there (another server's) starts a line of its own. */
static void log_end(void)
{
    if (g_log.fd >= 0 && g_log.mid_line) {
        struct iovec nl = { "\n", 1 };
        log_write(&g_log, &nl, 1);
    }
}

/* Junk into the log, a prefix at the start of each line. */
static void log_junk(const struct iovec *iov, int cnt)
{
    struct iovec out[IOV_MAX_BATCH];
    sg_log_junk(&g_log, iov, cnt, out, IOV_MAX_BATCH, log_write);
}

static void junk_out(const struct iovec *iov, int cnt)
{
    size_t total = 0, done = 0;
    if (g_log.fd >= 0)
        log_junk(iov, cnt);
    for (int i = 0; i < cnt; i++)
        total += iov[i].iov_len;
    if (g_discard || g_err.fd < 0) {
        settle(total, 1);
        return;
    }
    if (g_backlog.len == 0) {   /* else the new junk queues behind the old */
        ssize_t w = err_write(iov, cnt);
        if (w < 0) {
            settle(total, 1);
            return;
        }
        done = (size_t)w;
        settle(done, 0);
        if (g_err.stalled) {    /* what stderr takes now, no more */
            g_err.stalled = done < total;
            settle(total - done, 1);
            return;
        }
    }
    if (done == total)
        return;
    settle(sg_backlog_add(&g_backlog, iov, cnt, done), 1);
}

/* Does stderr take bytes again within STALL_MS? */
static int stderr_moves(void)
{
    struct pollfd pfd = { .fd = g_err.fd, .events = POLLOUT };
    int r;
    while ((r = poll(&pfd, 1, STALL_MS)) < 0 && errno == EINTR)
        ;
    return r > 0;
}

/* The backlog is full: stderr is read more slowly than the server writes
 * junk.  Wait for it as the server's own writes to stderr would (the server
 * waits in turn, on its stdout), unless stderr takes nothing for STALL_MS:
 * then nobody reads it, and junk is dropped from then on rather than hold
 * up the protocol (a one-time delay of STALL_MS), except what stderr takes
 * at once when it comes (it may be read again). */
static void backlog_wait(void)
{
    if (stderr_moves()) {
        backlog_drain();
        return;
    }
    backlog_drop();
    g_err.stalled = 1;
    say(2, "%sstderr takes nothing: junk dropped until it takes again", g_as ? "" : "strict: ");
}

/* The backlog holds junk: wait for the input and for stderr; whether the
 * input has bytes (or its end). */
static int wait_input(int in)
{
    struct pollfd fds[2] = { { .fd = in, .events = POLLIN }, { .fd = g_err.fd, .events = POLLOUT } };
    if (poll(fds, 2, -1) < 0)
        return 0;
    if (fds[1].revents)
        backlog_drain();
    return fds[0].revents != 0;
}

/* The server's side is gone, and with it the last byte for the wire: the
 * client gets its end of file now, even while stderr still takes queued
 * junk.  At the end of the input the watcher has ended, or is about to (its
 * sleeping poll would keep the wire open); after a read error it may not. */
static void end_of_wire(pthread_t *watcher)
{
    if (watcher)
        (void)pthread_join(*watcher, NULL);
    close(WIRE);
}

/* The exit line at level 2: stderr may be full of the junk just queued. */
static void wait_stderr_room(void)
{
    if (g_level >= 2 && g_err.fd >= 0)
        (void)stderr_moves();
}

/* At the end, the wire closed: stderr gets what is still queued as long as
 * it keeps taking some within STALL_MS. */
static void backlog_finish(void)
{
    while (g_backlog.len && g_err.fd >= 0) {
        if (!stderr_moves()) {
            backlog_drop();
            g_err.fd = -1;      /* nobody reads it: no exit line to wait for */
            break;
        }
        backlog_drain();
    }
}

/* Junk lines: each newline diverted, and each piece of a line that a
 * message or the end cut short. */
static void count(enum sg_verdict side, const unsigned char *p, size_t n)
{
    if (n == 0)
        return;
    if (side == SG_WIRE) {
        g_stats.lines += g_stats.partial;
        g_stats.partial = 0;
        return;
    }
    g_stats.bytes += n;
    for (const unsigned char *q = p, *e = p + n; (q = memchr(q, '\n', (size_t)(e - q))) != NULL; q++)
        g_stats.lines++;
    g_stats.partial = p[n - 1] != '\n';
}

static _Noreturn void report_and_exit(const char *why)
{
    log_end();
    if (g_stats.partial) {
        g_stats.lines++;
        g_stats.partial = 0;
    }
    struct rusage ru;
    long peak = getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
    long cpu_us = peak < 0 ? -1 : (long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
                                  ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
    say(2, "strict: %s; %llu bytes of junk in %llu line%s diverted to %s, %llu of them dropped; "
        "peak RSS %ld KiB, CPU %ld us", why, g_stats.bytes, g_stats.lines, g_stats.lines == 1 ? "" : "s",
        g_discard ? "/dev/null" : "stderr", g_stats.dropped, peak, cpu_us);
    _exit(0);
}

/* Write everything to the wire.  The client gone, the filter has no more
 * reason to be: it exits, so that the server's next write fails as it would
 * unwrapped. */
static void wire_out(struct iovec *iov, int cnt)
{
    while (cnt > 0) {
        ssize_t w = cnt == 1 ? write(WIRE, iov[0].iov_base, iov[0].iov_len) : writev(WIRE, iov, cnt);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN) {  /* the client handed us a non-blocking wire */
                struct pollfd pfd = { .fd = WIRE, .events = POLLOUT };
                (void)poll(&pfd, 1, -1);
                continue;
            }
            report_and_exit(errno == EPIPE || errno == ECONNRESET ? "the client closed the wire"
                                                                  : "cannot write the wire");
        }
        size_t done = (size_t)w;
        while (cnt > 0 && done >= iov[0].iov_len) {
            done -= iov[0].iov_len;
            iov++;
            cnt--;
        }
        if (cnt > 0) {
            iov[0].iov_base = (char *)iov[0].iov_base + done;
            iov[0].iov_len -= done;
        }
    }
}

/* The ranges decided in one read, gathered so that each side gets one
 * system call per read. */
struct out {
    struct iovec v[IOV_MAX_BATCH];
    int n;
};

static void out_flush(struct out *o, enum sg_verdict side)
{
    if (o->n == 0)
        return;
    if (side == SG_WIRE)
        wire_out(o->v, o->n);
    else
        junk_out(o->v, o->n);
    o->n = 0;
}

static void out_add(struct out *o, enum sg_verdict side, const unsigned char *p, size_t n)
{
    if (n == 0)
        return;
    if (o->n > 0 && (const unsigned char *)o->v[o->n - 1].iov_base + o->v[o->n - 1].iov_len == p) {
        o->v[o->n - 1].iov_len += n;
        return;
    }
    if (o->n == IOV_MAX_BATCH)
        out_flush(o, side);
    o->v[o->n++] = (struct iovec){ .iov_base = (void *)p, .iov_len = n };
}

/* Watches the wire for the client's close while the filter waits for the
 * server (events 0: only POLLERR and POLLHUP are reported).  It ends when
 * the server's side of the pipe is gone: a poll that sleeps holds the wire
 * open, and the client's end of file must not wait for it. */
static void *watch_wire(void *arg)
{
    struct pollfd pfd[2] = { { .fd = WIRE, .events = 0 }, { .fd = *(int *)arg, .events = 0 } };
    for (;;) {
        if (poll(pfd, 2, -1) <= 0)
            continue;
        if (pfd[0].revents & (POLLERR | POLLHUP))
            report_and_exit("the client closed the wire");
        if (pfd[0].revents || pfd[1].revents)
            return NULL;
    }
}

/* A committed line of many megabytes: its bytes go from the pipe to the
 * wire by splice(2), without a copy through the filter; a tee(2) into a
 * private pipe and one read of that show where its newline is.  A frame's
 * body of 64 KiB or more is spliced as it is.  Returns 0
 * where it does not apply (the caller reads as usual), 1 when it moved
 * bytes, -1 at the end of the input. */
static struct {
    int off;            /* the wire or the kernel refused: read and write */
    int peek[2];
} g_splice = { 0, { -1, -1 } };

static void wire_splice(int in, size_t len, unsigned char *buf)
{
    while (len > 0) {
        ssize_t w = splice(in, NULL, WIRE, NULL, len, SPLICE_F_MOVE);
        if (w > 0) {
            len -= (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN) {
            struct pollfd pfd = { .fd = WIRE, .events = POLLOUT };
            (void)poll(&pfd, 1, -1);
            continue;
        }
        if (w < 0 && (errno == EPIPE || errno == ECONNRESET))
            report_and_exit("the client closed the wire");
        /* the wire takes no splice: the same bytes, read and written */
        g_splice.off = 1;
        while (len > 0) {
            ssize_t n = read(in, buf, len);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                report_and_exit("cannot read the pipe");
            struct iovec v = { buf, (size_t)n };
            wire_out(&v, 1);
            len -= (size_t)n;
        }
    }
}

/* A message too large to hold is streaming.  Through 64 KiB pipes the
 * server, the filter and the client each wake once per 64 KiB, and on one
 * CPU those wake-ups cost more than the filter's copy: from here on the
 * server's pipe and the wire hold BIG_PIPE.  Only a session that streams
 * large messages pays the pages, and the server's writes can only block
 * later, never sooner.  A pipe already as large is left alone; a refusal (a
 * socket, the user's pipe pages at their limit) costs nothing. */
#define BIG_PIPE (1024 * 1024)

static void grow_pipe(int fd)
{
    int now = fcntl(fd, F_GETPIPE_SZ);
    if (now > 0 && now < BIG_PIPE)
        (void)fcntl(fd, F_SETPIPE_SZ, BIG_PIPE);
}

static void grow_pipes_once(int in)
{
    static int grown;
    if (!grown) {
        grown = 1;
        grow_pipe(in);
        grow_pipe(WIRE);
    }
}

static int splice_line(int in, struct sg_stream *s, unsigned char *buf, size_t size)
{
    unsigned long long body = sg_stream_body_left(s);
    if (g_splice.off || (!sg_stream_in_line(s) && body < SG_HOLD_MAX))
        return 0;
    grow_pipes_once(in);
    if (body) {                 /* a frame's body needs no look at all */
        struct pollfd pfd = { .fd = in, .events = POLLIN };
        size_t len = body < size ? (size_t)body : size;
        while (poll(&pfd, 1, -1) < 0 && errno == EINTR)
            ;
        int avail = 0;
        if (ioctl(in, FIONREAD, &avail) < 0 || avail <= 0)
            return 0;           /* end of input: the caller's read sees it */
        if ((size_t)avail < len)
            len = (size_t)avail;
        wire_splice(in, len, buf);
        sg_stream_body_taken(s, len);
        return 1;
    }
    if (g_splice.peek[0] < 0) {
        if (pipe2(g_splice.peek, O_CLOEXEC) < 0 || (g_splice.peek[0] = above(g_splice.peek[0], 4)) < 0 ||
            (g_splice.peek[1] = above(g_splice.peek[1], 4)) < 0) {
            g_splice.off = 1;
            return 0;
        }
        (void)fcntl(g_splice.peek[1], F_SETPIPE_SZ, (int)size);
    }
    ssize_t t;
    while ((t = tee(in, g_splice.peek[1], size, 0)) < 0 && errno == EINTR)
        ;
    if (t < 0) {
        g_splice.off = 1;
        return 0;
    }
    if (t == 0)
        return -1;
    size_t got = 0;             /* the peek pipe holds exactly these t bytes */
    while (got < (size_t)t) {
        ssize_t n = read(g_splice.peek[0], buf + got, (size_t)t - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            report_and_exit("cannot read the peek pipe");
        got += (size_t)n;
    }
    const unsigned char *nl = memchr(buf, '\n', got);
    size_t line = nl ? (size_t)(nl - buf) + 1 : got;
    enum sg_verdict v;
    wire_splice(in, line, buf + got);
    (void)sg_stream_scan(s, buf, line, &v);     /* the classifier follows: SG_WIRE */
    return 1;
}

static void filter_ignore_signals(void)
{
    /* Whatever the process group gets (Ctrl-C, a hangup, SIGTERM, SIGUSR1,
     * SIGALRM, Ctrl-Z...) is for the server, whose answers or last lines
     * must still pass: the filter ends with its input.  Every signal is
     * ignored but those that cannot be (KILL, STOP), those a fault of its
     * own raises, and CONT and CHLD (harmless). */
    struct sigaction sa = { .sa_handler = SIG_IGN };
    sigset_t none;
    for (int sig = 1; sig < NSIG; sig++) {
        switch (sig) {
        case SIGKILL: case SIGSTOP: case SIGSEGV: case SIGBUS: case SIGFPE: case SIGILL:
        case SIGTRAP: case SIGSYS: case SIGABRT: case SIGCONT: case SIGCHLD:
            continue;
        default:
            (void)sigaction(sig, &sa, NULL);    /* (libc's own signals refuse) */
        }
    }
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Keep only the wire (1), stderr (2) and the pipe, which ends up on fd 3. */
static int filter_descriptors(int in)
{
    if (in != 3) {
        if (dup2(in, 3) < 0)
            _exit(1);
        close(in);
    }
    close(0);
    sg_close_from(4);
    return 3;
}

static const char *protocol_name(enum sg_protocol p)
{
    return p == SG_JSONL ? "jsonl" : p == SG_FRAMED ? "framed" : "auto";
}

static _Noreturn void filter_run(int in, enum sg_protocol protocol, int discard)
{
    static unsigned char buf[READ_SIZE], held[SG_HOLD_MAX];
    static struct sg_stream s;
    struct out wire = { .n = 0 }, junk = { .n = 0 };
    size_t nheld = 0;
    pthread_t watcher;
    pthread_attr_t attr;

    filter_ignore_signals();
    in = filter_descriptors(in);
    open_stderr(discard);
    log_open(g_server, g_server_pid);
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, (size_t)64 * 1024);
    int watching = pthread_create(&watcher, &attr, watch_wire, &in) == 0, at_end = 0;
    if (!watching)
        say(2, "strict: cannot watch the wire: a closed client is seen at the next write");
    sg_stream_init(&s, protocol);
    say(2, "strict: filtering, protocol %s", protocol_name(protocol));

    for (;;) {
        /* room for all the junk one more read can make */
        while (g_backlog.len > sizeof g_backlog.buf - (size_t)READ_SIZE - SG_HOLD_MAX)
            backlog_wait();
        if (g_backlog.len && !wait_input(in))  /* wait for the server and for stderr */
            continue;
        int spliced = splice_line(in, &s, buf, sizeof buf / 2);
        if (spliced > 0)
            continue;
        if (spliced < 0) {
            at_end = 1;
            break;
        }
        ssize_t n = read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            at_end = n == 0;
            break;
        }
        size_t off = 0, undecided = 0;
        while (off < (size_t)n) {
            enum sg_verdict v;
            off += sg_stream_scan(&s, buf + off, (size_t)n - off, &v);
            if (v == SG_UNDECIDED)
                break;
            struct out *o = v == SG_WIRE ? &wire : &junk;
            count(v, held, nheld);
            out_add(o, v, held, nheld);
            nheld = 0;
            count(v, buf + undecided, off - undecided);
            out_add(o, v, buf + undecided, off - undecided);
            undecided = off;
        }
        out_flush(&wire, SG_WIRE);
        out_flush(&junk, SG_JUNK);
        /* the candidate goes on in the next read: keep its bytes */
        memcpy(held + nheld, buf + undecided, (size_t)n - undecided);
        nheld += (size_t)n - undecided;
    }
    if (sg_stream_end(&s) == SG_JUNK) {
        count(SG_JUNK, held, nheld);
        out_add(&junk, SG_JUNK, held, nheld);
        out_flush(&junk, SG_JUNK);
    }
    end_of_wire(watching && at_end ? &watcher : NULL);
    backlog_finish();
    wait_stderr_room();
    report_and_exit("end of the server's output");
}

/* ---- The drain: the helper of default mode ---- */

/* The name of the process the helper speaks for, as the kernel has it. */
static void server_name(pid_t pid)
{
    char path[64];
    (void)snprintf(path, sizeof path, "/proc/%ld/comm", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t n = read(fd, g_server, sizeof g_server - 1);
    close(fd);
    if (n > 0) {
        g_server[n] = '\0';
        g_server[strcspn(g_server, "\n")] = '\0';
    }
}

/* The library's counters page on SG_COUNTERS_FD, if it gave one. */
static void map_counters(void)
{
    void *p = mmap(NULL, sizeof *g_counters, PROT_READ | PROT_WRITE, MAP_SHARED, SG_COUNTERS_FD, 0);
    if (p != MAP_FAILED)
        g_counters = p;
    close(SG_COUNTERS_FD);
}

/* The library's exact count of what was diverted (its level-2 summary),
 * kept before the bytes are settled: once they are, it is complete. */
static void count_lines(const unsigned char *p, size_t n)
{
    unsigned long long lines = 0;
    if (!g_counters)
        return;
    for (const unsigned char *q = p, *e = p + n; (q = memchr(q, '\n', (size_t)(e - q))) != NULL; q++)
        lines++;
    __atomic_add_fetch(&g_counters->lines, lines, __ATOMIC_RELEASE);
    __atomic_store_n(&g_counters->partial, p[n - 1] != '\n', __ATOMIC_RELEASE);
}

/* stdin is the pipe the library diverted the server's fd 1 to; all of it is
 * junk.  With SG_DRAIN_HOLD bytes held (stderr slow or full) it stops
 * reading, and the server waits, as it would for a slow client unwrapped;
 * stderr stalled (stall.h), it reads and drops.  Bytes are counted as taken
 * before they are read: the library must never see the pipe empty and the
 * bytes not yet counted. */
static _Noreturn void drain_run(int discard)
{
    static unsigned char buf[SG_DRAIN_HOLD];

    filter_ignore_signals();
    map_counters();
    open_stderr(discard);
    server_name(g_as);
    log_open(g_server, g_as);
    for (;;) {
        while (g_backlog.len >= SG_DRAIN_HOLD)
            backlog_wait();
        int ready = g_backlog.len ? wait_input(0) : 1;
        if (g_counters)
            __atomic_store_n(&g_counters->stuck, g_backlog.len > 0, __ATOMIC_RELEASE);
        if (!ready)
            continue;
        if (!g_backlog.len) {
            struct pollfd p = { .fd = 0, .events = POLLIN };
            if (poll(&p, 1, -1) < 0)
                continue;
        }
        int avail = 0;
        size_t room = SG_DRAIN_HOLD - g_backlog.len, take = room;
        if (ioctl(0, FIONREAD, &avail) == 0 && avail >= 0 && (size_t)avail < room)
            take = avail ? (size_t)avail : 1;       /* (1: the end of the input) */
        if (g_counters)
            __atomic_add_fetch(&g_counters->taken, (unsigned long long)take, __ATOMIC_RELEASE);
        ssize_t n = read(0, buf, take);
        if (g_counters && (size_t)(n < 0 ? 0 : n) < take)
            __atomic_sub_fetch(&g_counters->taken, take - (size_t)(n < 0 ? 0 : n), __ATOMIC_RELEASE);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        count_lines(buf, (size_t)n);
        struct iovec v = { buf, (size_t)n };
        junk_out(&v, 1);
        if (g_counters)
            __atomic_store_n(&g_counters->stuck, g_backlog.len > 0, __ATOMIC_RELEASE);
    }
    log_end();
    backlog_finish();
    if (g_stats.dropped) {
        if (g_err.fd >= 0)
            (void)stderr_moves();
        say(1, "%llu bytes of startup output were dropped: stderr was full (nobody read it)", g_stats.dropped);
    }
    _exit(0);
}

/* ---- The launcher ---- */

static _Noreturn void run(const char *path, char **argv)
{
    if (path)
        execv(path, argv);
    else
        execvp(argv[0], argv);
    int e = errno;
    say(1, "cannot run %s: %s", path ? path : argv[0], strerror(e));
    exit(e == ENOENT ? 127 : 126);
}

/* The filter as a quiet child on the pipe's read end in: the middle's pid,
 * or -1 (errno set). */
static pid_t start_quiet(int in, enum sg_protocol protocol, int discard)
{
    static char relay[] = "--relay", name[] = SG_HELPER, pid[24];
    extern char **environ;
    (void)snprintf(pid, sizeof pid, "%ld", g_server_pid);
    char *argv[] = { name, relay, (char *)protocol_name(protocol), discard ? "1" : "0",
                     g_server, pid, NULL };
    struct sg_quiet q = { .path = "/proc/self/exe", .argv = argv, .envp = environ,
                          .fd = { in, WIRE, 2, -1 } };
    pid_t program;
    return sg_quiet_start(&q, &program);
}

/* The filter forked twice: nobody's child. */
static int start_forked(int in, enum sg_protocol protocol, int discard)
{
    sigset_t all, caller;
    /* No signal handler of the caller's may run in the children before
     * the filter has set its own dispositions. */
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &caller);
    pid_t middle = fork();
    if (middle == 0) {
        pid_t filter = fork();
        if (filter == 0)
            filter_run(in, protocol, discard);
        _exit(filter < 0);
    }
    int status = 1;
    if (middle > 0) {
        pid_t r;
        while ((r = waitpid(middle, &status, 0)) < 0 && errno == EINTR)
            ;
        if (r < 0)              /* ECHILD: SIGCHLD ignored, reaped by the kernel */
            status = 0;
    }
    sigprocmask(SIG_SETMASK, &caller, NULL);
    return middle > 0 && status == 0;
}

/* Start the filter on the read end of a pipe and put the write end on fd 1.
 * Returns 0 if it could not, everything left as it was. */
static int start_filter(enum sg_protocol protocol, int discard)
{
    struct stat st;
    int p[2];

    if (fstat(WIRE, &st) < 0) {
        say(1, "strict: stdout is closed: running without the filter");
        return 0;
    }
    if (pipe2(p, O_CLOEXEC) < 0 || (p[0] = above(p[0], SG_QUIET_STATUS + 1)) < 0 ||
        (p[1] = above(p[1], 3)) < 0) {
        say(1, "strict: cannot create a pipe (%s): running without the filter", strerror(errno));
        return 0;
    }
    pid_t middle = start_quiet(p[0], protocol, discard);
    int started = middle > 0 || (errno == EINVAL && start_forked(p[0], protocol, discard));
    close(p[0]);
    if (!started) {
        close(p[1]);
        say(1, "strict: cannot start the filter: running without it");
        return 0;
    }
    if (dup2(p[1], WIRE) < 0 || fstat(WIRE, &st) < 0)
        _exit(125);
    close(p[1]);
    /* The filter must see every byte COMMAND writes: the library, if
     * COMMAND loads it, finds no wire named and diverts nothing (a diversion
     * would send the start of an answer written in pieces to stderr); it
     * finds the filter to wait for at exit instead. */
    if (middle > 0 && !g_unenterable) {
        char marker[64];
        (void)snprintf(marker, sizeof marker, SG_MARKER_FILTER "%ld:%ld", g_server_pid, (long)middle);
        setenv(SG_ENV_WIRE, marker, 1);
    } else {
        unsetenv(SG_ENV_WIRE);
    }
    return 1;
}

static _Noreturn void usage_error(const char *what)
{
    (void)fprintf(stderr, "stdiogate-filter: %s\n"
            "Usage: stdiogate-filter [--protocol auto|jsonl|framed] [--discard] [--path FILE] [--unenterable] -- COMMAND [ARG]...\n",
            what);
    exit(125);
}

/* auto, jsonl or framed; -1 for anything else. */
static int protocol_named(const char *v)
{
    return !v ? -1 : strcmp(v, "auto") == 0 ? SG_AUTO : strcmp(v, "jsonl") == 0 ? SG_JSONL
         : strcmp(v, "framed") == 0 ? SG_FRAMED : -1;
}

int main(int argc, char **argv)
{
    /* Without --protocol (the library starts a program it cannot enter
     * this way): what the user chose for the session, STDIOGATE_PROTOCOL. */
    int protocol = (int)sg_env_protocol(getenv(SG_ENV_PROTOCOL));
    int discard = sg_env_discard(getenv(SG_ENV_DISCARD)), i;
    const char *path = NULL;

    (void)sg_env_debug(getenv(SG_ENV_DEBUG), &g_level);
    if (argc == 3 && strcmp(argv[1], "--drain") == 0) {
        g_as = (pid_t)strtol(argv[2], NULL, 10);
        drain_run(discard);
    }
    if (argc == 6 && strcmp(argv[1], "--relay") == 0 && protocol_named(argv[2]) >= 0) {
        /* the filter itself, started by start_quiet: PROTOCOL DISCARD NAME PID */
        (void)snprintf(g_server, sizeof g_server, "%s", argv[4]);
        g_server_pid = strtol(argv[5], NULL, 10);
        filter_run(0, (enum sg_protocol)protocol_named(argv[2]), strcmp(argv[3], "1") == 0);
    }
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else if (strcmp(argv[i], "--discard") == 0) {
            discard = 1;
        } else if (strcmp(argv[i], "--path") == 0 && i + 1 < argc) {
            path = argv[++i];
            g_unenterable = 1;      /* the library's exec path: a program it cannot enter */
        } else if (strcmp(argv[i], "--unenterable") == 0) {
            g_unenterable = 1;
        } else if (strcmp(argv[i], "--protocol") == 0 && i + 1 < argc) {
            if ((protocol = protocol_named(argv[++i])) < 0)
                usage_error("--protocol takes auto, jsonl or framed");
        } else {
            usage_error("unknown option");
        }
    }
    if (i >= argc)
        usage_error("no COMMAND given");
    /* the log names the server: COMMAND, in this process after the exec */
    const char *base = strrchr(argv[i], '/');
    (void)snprintf(g_server, sizeof g_server, "%s", base ? base + 1 : argv[i]);
    g_server_pid = (long)getpid();
    (void)start_filter(protocol < 0 ? SG_AUTO : (enum sg_protocol)protocol, discard);
    run(path, argv + i);
}
