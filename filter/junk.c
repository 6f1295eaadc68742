/* SPDX-License-Identifier: MIT */
/* filter/junk.c - the junk path of the relay and the drain: what is not
 * protocol goes to stderr through a non-blocking handle of our own, so that
 * a full stderr never stalls the wire; what stderr cannot take at once
 * waits in the backlog (junk.h), and a stderr that takes nothing for
 * SG_STALL_MS (stall.h) is read by nobody: junk is dropped from then on.
 * Our own diagnostics (say) go the same way.
 *
 * STDIOGATE_LOG=FILE (`stdiogate --log FILE`): both modes also append
 * every junk byte to FILE, each line prefixed "NAME[PID]: " (the server's),
 * whether stderr takes it or not (--discard): see "The log" below.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "filter.h"
#include "../common/stderr.h"

int g_level = 1;
pid_t g_as;
char g_server[64] = "server";
long g_server_pid;

struct filter_stderr g_err = { 2, 0, 0 };

void say(int level, const char *fmt, ...)
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

int g_discard;
struct filter_stats g_stats;
struct sg_drain_counters *g_counters;
struct sg_backlog g_backlog;

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

void open_stderr(int discard)
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
        int fd = sg_stderr_reopen(4);  /* not where stdin was: fd 0 is closed */
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

void log_open(const char *name, long pid)
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
void log_end(void)
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

void junk_out(const struct iovec *iov, int cnt)
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
int stderr_moves(void)
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
void backlog_wait(void)
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
int wait_input(int in)
{
    struct pollfd fds[2] = { { .fd = in, .events = POLLIN }, { .fd = g_err.fd, .events = POLLOUT } };
    if (poll(fds, 2, -1) < 0)
        return 0;
    if (fds[1].revents)
        backlog_drain();
    return fds[0].revents != 0;
}

/* At the end, the wire closed: stderr gets what is still queued as long as
 * it keeps taking some within STALL_MS. */
void backlog_finish(void)
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
