/* SPDX-License-Identifier: MIT */
/* filter/relay.c - the filter proper, `stdiogate-filter --relay PROTOCOL
 * DISCARD NAME PID` (started by the launcher, launcher.c): it passes the
 * protocol messages in the pipe on fd 3 to the wire byte for byte, and
 * sends everything else to stderr (detect.h, "The stream classifier", says
 * what is which; junk.c, how junk goes).
 *
 *   client stdout <-- wire --- filter <-- pipe --- fd 1 of COMMAND (same pid)
 *   stderr <------------------- junk              client stdin --> fd 0
 *
 * It holds the wire, stderr and the pipe's read end (and descriptors of its
 * own: a non-blocking handle on stderr, a pipe to peek through), and exits
 * when the last writer of the pipe has closed it, or when the client has
 * closed the wire.  It ignores every signal sent to the process group.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>

#include "filter.h"

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

void filter_ignore_signals(void)
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

_Noreturn void filter_run(int in, enum sg_protocol protocol, int discard)
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
