/* SPDX-License-Identifier: MIT */
/* lib/guard.c - the session guard: once the gate is open, what the program
 * writes on the wire goes through the stream classifier, for the whole
 * session, in the program's own process. */

#include "internal.h"

#include <limits.h>

/* ------------------------------------------------------------------ */
/* The session guard.
 *
 * Before the gate opens, fd 1 is the diversion and the fail-safe watches
 * it (lib/failsafe.c).  After it, fd 1 is the wire again, and a banner, a
 * log line or a child's output printed while serving would reach the
 * client.  The guard keeps the strict filter's promise without its process:
 * every write to fd 1 or a copy of the wire (fds.c tracks them: the same
 * bitmap that held the diversion's copies) goes through detect.h's stream
 * classifier, the one the filter runs, with the fail-safe's hold carried
 * on (struct hold):
 *  - protocol goes to the wire at once, with the program's own call (write,
 *    writev, send...), as many bytes as the wire takes: a short write is
 *    the program's, as it would be unwrapped, and the bytes it owes (it
 *    will write them again) pass as the wire's (owed, open_by);
 *  - junk goes to stderr without waiting (junk_out): what a full stderr
 *    cannot take is dropped and counted, as diagnostics are;
 *  - bytes that may still begin a message (at most SG_HOLD_MAX) are held,
 *    and the call returns its full count: they are ours to write once
 *    decided.  Held bytes decided for the wire go out before anything
 *    else; those the wire cannot take now wait (pend) and the next call
 *    returns EAGAIN (or blocks, on a blocking descriptor) until they are
 *    out.  At exec, spawn, exit and _exit what is still undecided is junk,
 *    as at the end of the filter's input (guard_settle);
 *  - a write that cannot take the hold is classified alone (guard_alone):
 *    junk to stderr, the rest to the wire.  In a signal handler that
 *    interrupted the guard on its own thread (maybe in the middle of a
 *    message the wire has taken only part of) the rest waits in a queue of
 *    its own (g_queue) until the interrupted stream is between messages,
 *    so that it never lands inside one; in a vfork child, which writes no
 *    shared state, it goes out at once;
 *  - a descriptor the bitmap calls the wire but which is not (the program
 *    changed it with calls no interposer sees: freopen, a raw close) is
 *    found out before anything of it is diverted or held, and its writes
 *    go as they are from then on.
 * A message whose bytes all reach the wire in the call that ends it costs
 * the classifier's scan and nothing else: no copy, no system call of ours.
 * The filter stays where the library cannot go (raw system calls: Go,
 * static programs, Bun; lib/exec.c). */

int g_guard;                        /* on: writes to the wire are classified */
int g_guard_wanted;                 /* it starts when the gate opens (not with --gate-only) */
enum sg_protocol g_protocol = SG_AUTO;

static struct {
    unsigned long long bytes, lines, dropped;
    int partial;                    /* the last junk byte was not a newline: one line more */
} g_junk;

#define BATCH 16                    /* iovecs a piece of a call is cut into */

static int g_junk_discard;          /* --discard, or stderr is the wire: junk goes nowhere */
static struct sg_log g_log = { .fd = -1 };     /* STDIOGATE_LOG, appended to after the gate */

/* After the gate, fds.c's bookkeeping tracks copies of the wire where it
 * tracked copies of the diversion before: fd 1 (g_core.fd1_ours) and the
 * bitmap. */
/* ---- Junk: stderr, never waiting; the log ---- */

/* What the log does not take now is lost, unsaid: it never holds up the
 * server. */
static void log_write(struct sg_log *log, const struct iovec *out, int n)
{
    (void)REAL(writev)(log->fd, out, n);
}

static void log_junk(const struct iovec *v, int n)
{
    struct iovec out[2 * 8 + 1];
    sg_log_junk(&g_log, v, n, out, (int)(sizeof out / sizeof *out), log_write);
}

/* One write to a stderr pipe whose reader may have gone: EPIPE, never the
 * SIGPIPE that would kill the server over junk (blocked for the call, and
 * taken back if this write raised it).  System calls only: a signal handler
 * or a vfork child may be here. */
static ssize_t fifo_write(int fd, const void *p, size_t k)
{
    sigset_t pipe_only, old, pending;
    ssize_t w;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    (void)syscall(SYS_rt_sigprocmask, SIG_BLOCK, &pipe_only, &old, _NSIG / 8);
    int was = syscall(SYS_rt_sigpending, &pending, _NSIG / 8) == 0 && sigismember(&pending, SIGPIPE);
    do
        w = REAL(write)(fd, p, k);
    while (w < 0 && errno == EINTR);
    int e = errno;
    if (w < 0 && e == EPIPE && !was) {
        struct timespec zero = { 0, 0 };
        (void)syscall(SYS_rt_sigtimedwait, &pipe_only, NULL, &zero, _NSIG / 8);
    }
    (void)syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, _NSIG / 8);
    errno = e;
    return w;
}

/* As much of v[0..n) as the pipe fd (on stderr) takes: a page at a time
 * while poll says it has room (a write of at most PIPE_BUF fits a free
 * page whole), and not past that on a non-blocking fd: another writer may
 * take the room between the poll and the write.  Bytes written, or -1 if
 * none and its reader has gone. */
static ssize_t fifo_put(int fd, const struct iovec *v, int n)
{
    size_t done = 0;
    for (int i = 0; i < n; i++) {
        for (size_t at = 0; at < v[i].iov_len;) {
            struct pollfd p = { .fd = fd, .events = POLLOUT };
            if (poll(&p, 1, 0) != 1 || !(p.revents & POLLOUT))
                return (ssize_t)done;
            if (p.revents & POLLERR)
                return done ? (ssize_t)done : -1;   /* its reader has gone */
            size_t k = v[i].iov_len - at < PIPE_BUF ? v[i].iov_len - at : PIPE_BUF;
            ssize_t w = fifo_write(fd, (const char *)v[i].iov_base + at, k);
            if (w < 0 && errno == EAGAIN)
                return (ssize_t)done;
            if (w <= 0)
                return done ? (ssize_t)done : -1;
            at += (size_t)w;
            done += (size_t)w;
        }
    }
    return (ssize_t)done;
}

/* As much as stderr takes without waiting: a socket with MSG_DONTWAIT; a
 * pipe or a terminal through a non-blocking handle of its own for the call
 * (fifo_put for a pipe); a file with a plain writev.  No descriptor of ours
 * is kept open for it after the gate.  Bytes written, or -1. */
ssize_t stderr_try(const struct iovec *v, int n)
{
    struct stat st;
    ssize_t w = -1;
    if (sg_fstat(2, &st) != 0 || (g_core.wire_id.valid && st.st_dev == g_core.wire_id.dev &&
                               st.st_ino == g_core.wire_id.ino))
        return -1;      /* closed, or 2>&1: nothing of this may land on the wire */
    if (S_ISSOCK(st.st_mode)) {
        struct msghdr m = { .msg_iov = (struct iovec *)v, .msg_iovlen = (size_t)n };
        do
            w = REAL(sendmsg)(2, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
        while (w < 0 && errno == EINTR);
        return w < 0 && errno == EAGAIN ? 0 : w;    /* full, not gone: it takes nothing now */
    }
    int own = stderr_waits(&st) ? stderr_handle() : -1;
    if (S_ISFIFO(st.st_mode)) {
        w = fifo_put(own >= 0 ? own : 2, v, n);
    } else {
        do
            w = REAL(writev)(own >= 0 ? own : 2, v, n);
        while (w < 0 && errno == EINTR);
        if (w < 0 && errno == EAGAIN)
            w = 0;
    }
    close_stderr_handle(own);
    return w;
}

/* Junk stderr could not take at once (its reader behind, a line longer
 * than the pipe): kept here, in order, and written as stderr takes it, at
 * the next write and at exit; what does not fit is dropped and counted.
 * Only the guard's owner touches it (a signal handler on its thread writes
 * what stderr takes and drops the rest). */
static struct sg_backlog g_backlog;

/* stderr took nothing for SG_STALL_MS: junk that does not fit in the
 * backlog is dropped at once from then on, until stderr takes bytes again
 * (stall.h: the filter's rule). */
static int g_junk_stalled;

static void backlog_drain(void)
{
    int gone;
    size_t n = sg_backlog_drain(&g_backlog, stderr_try, &gone);
    if (gone)           /* nobody will take it */
        __atomic_add_fetch(&g_junk.dropped, (unsigned long long)n, __ATOMIC_RELAXED);
    else if (n)
        g_junk_stalled = 0;
}

/* At exit and exec the process cannot wait for stderr as the filter does
 * at its end (stall.h): stderr gets what it takes within GUARD_END_MS in
 * all (the drain's bound at exit, DRAIN_WAIT_MS), the rest is dropped and
 * counted.  The client has its end of file before (wire_let_go). */
#define GUARD_END_MS 2000

static long long now_ms(void)
{
    struct timespec t;
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);    /* (a rare path: no import for it) */
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void backlog_finish(void)
{
    long long end = now_ms() + GUARD_END_MS;
    while (g_backlog.len && !g_junk_discard) {
        size_t before = g_backlog.len;
        backlog_drain();
        long long left = end - now_ms();
        if (g_backlog.len == before) {
            struct pollfd p = { .fd = 2, .events = POLLOUT };
            if (left <= 0 || poll(&p, 1, (int)left) != 1) {
                __atomic_add_fetch(&g_junk.dropped, (unsigned long long)g_backlog.len, __ATOMIC_RELAXED);
                sg_backlog_taken(&g_backlog, g_backlog.len);
            }
        }
    }
}

static void backlog_add(const struct iovec *v, int n, size_t skip)
{
    size_t lost = sg_backlog_add(&g_backlog, v, n, skip);
    if (lost)
        __atomic_add_fetch(&g_junk.dropped, (unsigned long long)lost, __ATOMIC_RELAXED);
}

/* The bytes of v[0..n) past skip, for stderr after what waits already.
 * Where they do not fit in the backlog, the owner waits for stderr while
 * it takes bytes (its reader is slow, not gone: nothing is dropped then);
 * only a stderr that takes nothing for SG_STALL_MS has the rest dropped,
 * counted (stall.h). */
static void backlog_keep(const struct iovec *v, int n, size_t skip)
{
    size_t total = iov_total(v, n);
    while (total - skip > sizeof g_backlog.buf - g_backlog.len) {
        size_t waiting = g_backlog.len;
        ssize_t w = 0;
        if (waiting) {
            backlog_drain();
        } else {
            struct iovec rest[BATCH];
            w = stderr_try(rest, iov_slice(v, n, skip, total, rest, BATCH));
            if (w < 0)
                break;          /* stderr is gone */
            skip += (size_t)w;
        }
        if (w > 0 || g_backlog.len < waiting) {
            g_junk_stalled = 0;
            continue;
        }
        if (g_junk_stalled)
            break;
        struct pollfd p = { .fd = 2, .events = POLLOUT };
        int r = poll(&p, 1, SG_STALL_MS);
        if (r == 0) {
            char numbuf[24];
            g_junk_stalled = 1;
            say(2, "guard: stderr took nothing for ", NUM(SG_STALL_MS / 1000),
                " s: output kept off the wire is dropped (and counted) until it takes again");
        }
        if (r == 0 || (r < 0 && errno != EINTR))
            break;
    }
    backlog_add(v, n, skip);
}

/* How junk_out is called: by the guard's owner (the backlog is its), by a
 * signal handler on its thread (counted, not kept), in a vfork child
 * (neither: it writes no shared state). */
enum junk_caller { BY_OWNER, BY_HANDLER, IN_VFORK };

/* Junk decided after the gate: onto stderr (and the log), counted; what
 * stderr does not take at once waits in the backlog. */
static void junk_out(const struct iovec *v, int n, enum junk_caller by)
{
    size_t total = iov_total(v, n);
    if (total == 0)
        return;
    int saved = errno;
    if (by != IN_VFORK) {
        int partial = 0;
        unsigned long long lines = iov_lines(v, n, total, &partial);
        __atomic_add_fetch(&g_junk.bytes, (unsigned long long)total, __ATOMIC_RELAXED);
        __atomic_add_fetch(&g_junk.lines, lines, __ATOMIC_RELAXED);
        STORE(g_junk.partial, partial);
        if (g_log.fd >= 0 && by == BY_OWNER)
            log_junk(v, n);
    }
    if (!g_junk_discard) {
        if (by == BY_OWNER && g_backlog.len)
            backlog_drain();
        ssize_t w = by == BY_OWNER && g_backlog.len ? 0 : stderr_try(v, n);
        size_t done = w > 0 ? (size_t)w : 0;
        if (by == BY_OWNER && w >= 0 && done < total)
            backlog_keep(v, n, done);
        else if (by != IN_VFORK && done < total)
            __atomic_add_fetch(&g_junk.dropped, (unsigned long long)(total - done), __ATOMIC_RELAXED);
    }
    if (by != IN_VFORK && g_level >= 4) {
        char numbuf[24];
        say(4, "guard: ", NUM(total), " bytes of junk to ", g_junk_discard ? "/dev/null" : "stderr");
    }
    errno = saved;
}

/* ---- The call: one place for its bookkeeping ---- */

struct feed {
    struct put *c;
    const struct iovec *iov;
    int cnt;
    off64_t off0;               /* PUT_PWRITE: the offset of the call's first byte */
    size_t taken;               /* the call's bytes put out, diverted or held so far */
    size_t run_from, run_to;    /* bytes of the call decided for the wire, not put yet */
    size_t run_held;            /* ... after this many held bytes (g_hold.buf) */
    int stop;                   /* the wire took less than it was given: return now */
    int undone;                 /* ... nothing at all, held bytes first: undo the call */
    int err;                    /* errno of that write */
    int checked;                /* fd is the wire: 1 yes, -1 no, 0 not looked at */
    struct iovec junk[BATCH];   /* decided junk, not written yet */
    int njunk;
};

/* A message is open on the wire (the wire took part of it: the rest is
 * owed; or it goes on past the call: a line or a value over 64 KiB, a
 * frame's body).  Whose call left it so, and with which signal mask: a
 * signal handler on that thread does not continue it (apart_from_open).
 * Only calls that leave a message open pay for the system call. */
static void message_opens(void)
{
    g_hold.open_by = this_thread();
    if (sigprocmask(SIG_SETMASK, NULL, &g_hold.open_mask) != 0)
        sigemptyset(&g_hold.open_mask);
}

static int open_message(void)
{
    return g_hold.len || g_hold.owed || g_hold.pend;
}

/* Bytes of a message on the wire, its end not yet, nothing of it held. */
static int open_on_wire(void)
{
    unsigned char w = g_hold.s.where;
    return !g_hold.len && (w == SW_LINE || w == SW_VALUE || w == SW_BODY);
}

/* Is the thread that left the message open in a signal handler now: a
 * signal blocked that was not when its call returned? */
static int in_handler(void)
{
    sigset_t now;
    if (sigprocmask(SIG_SETMASK, NULL, &now) != 0)
        return 0;
    /* the kernel's signals only: the rest of a sigset_t is not written */
    const size_t bits = 8 * sizeof now.__val[0], words = (NSIG - 1 + bits - 1) / bits;
    for (size_t w = 0; w < words; w++)
        if (now.__val[w] & ~g_hold.open_mask.__val[w])
            return 1;
    return 0;
}

/* Does the call begin with the rest of the message the wire took in part
 * (whichever thread writes it: tokio's, libuv's and asyncio's writers
 * retry on another thread)? */
static int owed_retry(const struct iovec *iov, int cnt)
{
    unsigned char head[sizeof g_hold.owed_sig];
    size_t n = iov_copy(iov, cnt, 0, g_hold.owed_sig_len, head);
    return memcmp(head, g_hold.owed_sig, n) == 0;
}

static ssize_t put_call(struct feed *f, size_t from, size_t to)
{
    f->c->off = f->off0 + (off64_t)from;
    return put_range(f->c, f->iov, f->cnt, from, to);
}

/* Held bytes, then [from, to) of the call: one writev where the program
 * wrote with write or writev; else the held bytes first.  Bytes out, or -1. */
static ssize_t put_held_then(struct feed *f, size_t held, size_t from, size_t to)
{
    struct iovec v[BATCH];
    ssize_t w;
    if (f->c->kind == PUT_WRITE) {
        v[0] = (struct iovec){ g_hold.buf, held };
        int n = 1 + iov_slice(f->iov, f->cnt, from, to, v + 1, BATCH - 1);
        return REAL(writev)(f->c->fd, v, n);     /* EINTR is the program's */
    }
    struct put held_put = { .fd = f->c->fd, .kind = PUT_WRITE };
    w = put_bytes(&held_put, g_hold.buf, held);
    if (w < (ssize_t)held)
        return w;
    ssize_t r = put_call(f, from, to);
    return r < 0 ? w : w + r;
}

static int check_fd(struct feed *f)
{
    if (!f->checked) {
        int saved = errno;
        f->checked = is(f->c->fd, &g_core.wire_id) ? 1 : -1;
        errno = saved;
    }
    return f->checked > 0;
}

/* The wire took the call's bytes up to f->taken of a message that ends at
 * byte end: the rest is owed, the program writes it again. */
static void owe(struct feed *f, size_t end)
{
    g_hold.owed = end - f->taken;
    g_hold.owed_sig_len = iov_copy(f->iov, f->cnt, f->taken,
                                   f->taken + (g_hold.owed < sizeof g_hold.owed_sig ? g_hold.owed
                                               : sizeof g_hold.owed_sig), g_hold.owed_sig);
    message_opens();
}

/* The run decided for the wire goes out.  A short write stops the call:
 * what the wire did not take of the call's bytes is owed (the program
 * writes it again), of the held bytes pending (ours to write first). */
static int pend_out(struct feed *f);

static int blocking(int fd)
{
    int fl = REAL(fcntl)(fd, F_GETFL);
    return fl >= 0 && !(fl & O_NONBLOCK);
}

static void run_out(struct feed *f)
{
again:;
    size_t held = f->run_held, len = f->run_to - f->run_from;
    if (held + len == 0)
        return;
    ssize_t w = held ? put_held_then(f, held, f->run_from, f->run_to)
                     : put_call(f, f->run_from, f->run_to);
    size_t out = w > 0 ? (size_t)w : 0;
    f->run_held = 0;
    if (out == 0 && held) {
        /* Nothing went out (a signal, a full non-blocking wire): the call
         * did not happen; the held bytes stay held, the program writes its
         * bytes again (guard_locked puts the classifier back). */
        f->stop = f->undone = 1;
        f->err = w < 0 ? errno : EAGAIN;
        return;
    }
    if (held)
        g_hold.len = 0;
    if (out >= held + len) {
        f->taken = f->run_to;
        f->run_from = f->run_to;
        return;
    }
    f->stop = 1;
    f->err = w < 0 ? errno : EAGAIN;
    if (out <= held) {
        g_hold.pend_at = out;
        g_hold.pend = held - out;
        g_hold.pend_fd = f->c->fd;
        if (w > 0 && blocking(f->c->fd) && pend_out(f)) {
            /* A blocking wire that a signal cut short inside the held
             * bytes (earlier calls') or right after them: the call has
             * written nothing of its own, and waits as a blocking write
             * does (EAGAIN would be a lie): the held bytes are out now,
             * its run goes on. */
            f->stop = 0;
            goto again;         /* (f->run_held is 0 now) */
        }
        out = 0;
    } else {
        out -= held;
    }
    f->taken = f->run_from + out;
    owe(f, f->run_to);
    f->run_from = f->run_to;
}

static void junk_flush(struct feed *f)
{
    if (f->njunk)
        junk_out(f->junk, f->njunk, BY_OWNER);
    f->njunk = 0;
}

/* Junk decided: the held bytes (held of them), then [from, to) of the call. */
static void junk_add(struct feed *f, size_t held, size_t from, size_t to)
{
    if (f->njunk + 2 > BATCH)
        junk_flush(f);
    if (held)
        f->junk[f->njunk++] = (struct iovec){ g_hold.buf, held };
    while (from < to) {
        if (f->njunk == BATCH)
            junk_flush(f);
        int n = iov_slice(f->iov, f->cnt, from, to, f->junk + f->njunk, BATCH - f->njunk);
        from += iov_total(f->junk + f->njunk, n);
        f->njunk += n;
    }
    f->taken = to;
}

/* The classifier's state, to go back to when the descriptor turns out not
 * to be the wire: its words, and as much of the nesting bits as is used. */
static void stream_copy(struct sg_stream *to, const struct sg_stream *from)
{
    memcpy(to, from, offsetof(struct sg_stream, arrays));
    if (from->where == SW_JSON) {
        size_t n = from->depth / 8 + 1;
        memcpy(to->arrays, from->arrays, n < sizeof to->arrays ? n : sizeof to->arrays);
    }
}

/* A message decided for the wire that goes on past the bound (a committed
 * line, a value over lines: the rest of a large answer) is scanned and put
 * in steps of this many bytes, not scanned whole and then put: the wire's
 * reader copies one step while the next is scanned, and a step is still in
 * the cache when the kernel copies it (an 8 MiB answer read twice from
 * memory cost a fifth of the pipe's speed).  A quarter of a MiB: in a
 * core's own cache, and a quarter of the calls steps of 64 KiB made (each a
 * return to the program between two fills of the pipe: 7% of the speed of
 * 8 MiB answers on a busy machine, bench/RESULTS.md).  A frame's body is
 * not read. */
#define WIRE_STEP (256UL * 1024)

static int message_goes_on(void)
{
    return g_hold.s.where == SW_LINE || g_hold.s.where == SW_VALUE;
}

static size_t scan_step(size_t n)
{
    return n > WIRE_STEP && message_goes_on() ? WIRE_STEP : n;
}

/* Held (or pending) bytes from earlier calls first, on the wire. */
static int pend_out(struct feed *f)
{
    while (g_hold.pend) {
        ssize_t w = REAL(write)(g_hold.pend_fd, g_hold.buf + g_hold.pend_at, g_hold.pend);
        if (w > 0) {
            g_hold.pend_at += (size_t)w;
            g_hold.pend -= (size_t)w;
        } else {
            if (w < 0 && errno != EAGAIN && errno != EINTR)
                g_hold.pend = 0;    /* the client is gone: the program sees why */
            f->err = w < 0 ? errno : EAGAIN;    /* EINTR: the program's signal */
            return 0;
        }
    }
    return 1;
}

/* What the call returns once it stopped early. */
static ssize_t feed_result(struct feed *f)
{
    if (f->taken)
        return (ssize_t)f->taken;
    errno = f->err;
    return -1;
}

/* The descriptor is not the wire: it leaves the bookkeeping, the
 * classifier goes back to where it was, and the rest goes as it is. */
static ssize_t not_the_wire(struct feed *f, const struct sg_stream *before)
{
    char numbuf[24];
    int fd = f->c->fd, held = lock_wire();
    if (fd == 1)
        STORE(g_core.fd1_ours, 0);
    else
        set_copy(fd, 0);
    unlock_wire(held);
    stream_copy(&g_hold.s, before);
    say(3, "guard: descriptor ", NUM(fd), " is not the wire any more: its writes go as they are");
    size_t total = iov_total(f->iov, f->cnt);
    ssize_t r = f->taken < total ? put_call(f, f->taken, total) : 0;
    return r < 0 ? feed_result(f) : (ssize_t)(f->taken + (size_t)r);
}

/* What was written apart from an open message (a signal handler's on the
 * owner's thread, another thread's), waiting for the stream to be between
 * messages.  The guard's owner appends and flushes; a handler on its
 * thread may append, also while the owner flushes: the owner moves its
 * indices and reads the buffer's address only with every signal blocked
 * (busy: a handler interrupted another's append; that one writes
 * directly).  A message the wire takes slowly may see many handler
 * messages meanwhile (a timer every 200 us beside a 1 MiB answer to a slow
 * client): the queue grows, in memory mapped for it, up to QUEUE_MAX;
 * only past that do they go out at once, inside the message, as they would
 * unwrapped. */
#define QUEUE_SIZE (256UL * 1024)
#define QUEUE_MAX (64UL * 1024 * 1024)

static unsigned char g_queue_first[QUEUE_SIZE];

static struct {
    int busy;
    size_t start, len;              /* buf[start..len): waiting */
    size_t cap;
    unsigned char *buf;             /* g_queue_first, or a mapping of cap bytes */
} g_queue = { .cap = QUEUE_SIZE, .buf = g_queue_first };

/* Queued: 1; no room (or a handler inside an append): 0, the caller puts
 * the bytes out itself. */
static int g_queue_fd = 1;          /* a descriptor on the wire the queue's bytes were written to */

/* Room for n more bytes: the waiting bytes moved to the front of a larger
 * mapping (mmap and munmap are async-signal-safe).  0 if none can be had. */
static int queue_room(size_t n)
{
    size_t waiting = g_queue.len - g_queue.start;
    if (n <= g_queue.cap - g_queue.len)
        return 1;
    size_t cap = g_queue.cap;
    while (cap < waiting + n && cap < QUEUE_MAX)
        cap *= 2;
    if (cap < waiting + n)
        return 0;
    unsigned char *buf = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED)
        return 0;
    memcpy(buf, g_queue.buf + g_queue.start, waiting);
    if (g_queue.buf != g_queue_first)
        munmap(g_queue.buf, g_queue.cap);
    g_queue.buf = buf;
    g_queue.cap = cap;
    g_queue.start = 0;
    __atomic_store_n(&g_queue.len, waiting, __ATOMIC_RELEASE);
    return 1;
}

static int queue_add(const struct iovec *iov, int cnt, size_t from, size_t to)
{
    if (g_queue.busy)
        return 0;
    g_queue.busy = 1;
    int fits = queue_room(to - from);
    size_t len = g_queue.len;
    while (fits && from < to) {
        struct iovec v[BATCH];
        int n = iov_slice(iov, cnt, from, to, v, BATCH);
        for (int j = 0; j < n; j++) {
            memcpy(g_queue.buf + len, v[j].iov_base, v[j].iov_len);
            len += v[j].iov_len;
        }
        from += iov_total(v, n);
    }
    if (fits)
        __atomic_store_n(&g_queue.len, len, __ATOMIC_RELEASE);
    g_queue.busy = 0;
    return fits;
}

/* The queue goes out in pieces of at most PIPE_BUF, each written with
 * every signal blocked once the wire has room for it (so that a handler
 * can neither land inside one nor see the indices half moved), waiting in
 * between with signals open.  bounded: at a settle point, where the
 * client may be gone: at most SG_STALL_MS without progress. */
static void queue_out(int fd, int bounded)
{
    sigset_t all, old;
    sigfillset(&all);
    for (;;) {
        struct pollfd p = { .fd = fd, .events = POLLOUT };
        ssize_t w = -1;
        int err = EAGAIN, done = 0;
        sigprocmask(SIG_BLOCK, &all, &old);
        size_t from = g_queue.start, len = __atomic_load_n(&g_queue.len, __ATOMIC_ACQUIRE);
        if (from == len) {
            g_queue.start = 0;
            __atomic_store_n(&g_queue.len, 0, __ATOMIC_RELEASE);
            done = 1;
        } else if (poll(&p, 1, 0) == 1 && (p.revents & (POLLOUT | POLLERR | POLLHUP))) {
            size_t n = len - from < PIPE_BUF ? len - from : PIPE_BUF;
            w = REAL(write)(fd, g_queue.buf + from, n);
            err = errno;
            if (w > 0)
                g_queue.start = from + (size_t)w;
            else if (err != EAGAIN && err != EINTR)
                g_queue.start = len;    /* the client is gone */
        }
        sigprocmask(SIG_SETMASK, &old, NULL);
        if (done)
            return;
        if (w > 0 || (w < 0 && err != EAGAIN && err != EINTR))
            continue;
        if (poll(&p, 1, bounded ? SG_STALL_MS : -1) == 0)
            return;     /* left queued */
    }
}

/* What waited in the queue goes out once the stream is between messages. */
static void queue_between(int fd)
{
    if (LOAD(g_queue.len) && g_hold.s.where == SW_OUTSIDE && !open_message())
        queue_out(fd, 0);
}

/* Are bytes [from, end) of the call whole messages by themselves: the
 * classifier, from between messages, finds no junk and ends between
 * messages? */
static int whole_alone(const struct iovec *iov, int cnt, size_t from)
{
    struct sg_stream s;
    struct iovec v[BATCH];
    size_t total = iov_total(iov, cnt);
    sg_stream_start(&s, g_hold.s.protocol);
    while (from < total) {
        int n = iov_slice(iov, cnt, from, total, v, BATCH);
        for (int j = 0; j < n; j++) {
            const unsigned char *p = v[j].iov_base;
            for (size_t off = 0; off < v[j].iov_len;) {
                enum sg_verdict verdict;
                off += sg_stream_scan(&s, p + off, v[j].iov_len - off, &verdict);
                if (verdict == SG_JUNK)
                    return 0;
            }
        }
        from += iov_total(v, n);
    }
    return s.where == SW_OUTSIDE && !s.held;
}

/* The hold is the caller's. */
ssize_t guard_locked(struct put *c, const struct iovec *iov, int cnt)
{
    struct feed f = { .c = c, .iov = iov, .cnt = cnt, .off0 = c->off };
    struct sg_stream before;
    size_t total = iov_total(iov, cnt), pos = 0;

    if ((g_hold.len || g_hold.pend) && !check_fd(&f))
        return put_call(&f, 0, total);
    if (g_hold.pend && !pend_out(&f))
        return feed_result(&f);
    if (g_hold.owed) {      /* the call begins with it (apart_from_open) */
        size_t k = g_hold.owed < total ? g_hold.owed : total;
        ssize_t w = put_call(&f, 0, k);
        if (w <= 0)
            return w;
        g_hold.owed -= (size_t)w;
        if ((size_t)w < k) {
            size_t sig = g_hold.owed < sizeof g_hold.owed_sig ? g_hold.owed : sizeof g_hold.owed_sig;
            g_hold.owed_sig_len = iov_copy(iov, cnt, (size_t)w, (size_t)w + sig, g_hold.owed_sig);
            return w;
        }
        if ((size_t)w == total) {
            queue_between(c->fd);
            return w;
        }
        pos = f.taken = (size_t)w;
    }
    stream_copy(&before, &g_hold.s);
    size_t held = g_hold.len;       /* the current candidate began before this call */
    size_t cand = (size_t)-1;       /* ... or at this byte of it */
    f.run_from = f.run_to = pos;
    size_t base = 0;
    for (int i = 0; i < cnt && !f.stop; base += iov[i].iov_len, i++) {
        const unsigned char *p = iov[i].iov_base;
        size_t len = iov[i].iov_len;
        while (pos < base + len) {
            enum sg_verdict v;
            size_t k = sg_stream_scan(&g_hold.s, p + (pos - base), scan_step(base + len - pos), &v);
            size_t from = cand != (size_t)-1 ? cand : pos, next = pos + k;
            pos = next;     /* where the classifier is */
            if (v == SG_UNDECIDED) {
                if (cand == (size_t)-1)
                    cand = from;
            } else if (v == SG_WIRE) {
                if (held || f.run_to != from) {     /* not one run with the last */
                    run_out(&f);
                    if (f.stop)
                        break;
                    f.run_held = held;
                    f.run_from = from;
                }
                f.run_to = next;
                held = 0;
                cand = (size_t)-1;
                if (f.run_to - f.run_from >= WIRE_STEP && message_goes_on()) {
                    /* A step came back short: what is owed ends there, where
                     * the classifier is (in the message, as it is when a
                     * call ends inside one). */
                    run_out(&f);
                    if (f.stop)
                        break;
                }
            } else {
                run_out(&f);
                if (f.stop)
                    break;
                if (!check_fd(&f))
                    return not_the_wire(&f, &before);
                if (held && whole_alone(iov, cnt, from)) {
                    /* Held bytes, and a call that does not continue them
                     * but is whole messages by itself: another writer's,
                     * between the pieces of a message (a thread, a signal
                     * handler).  It goes out now; the held bytes wait for
                     * their own rest. */
                    stream_copy(&g_hold.s, &before);
                    ssize_t w = put_call(&f, from, total);
                    if (w <= 0)
                        return from ? (ssize_t)from : w;    /* (errno: put_call's) */
                    f.taken = from + (size_t)w;
                    if (f.taken < total)
                        owe(&f, total);     /* its rest, then the held bytes' */
                    return (ssize_t)f.taken;
                }
                junk_add(&f, held, from, next);
                f.run_from = f.run_to = next;
                if (held)
                    g_hold.len = 0;
                held = 0;
                cand = (size_t)-1;
            }
        }
    }
    run_out(&f);
    if (f.undone) {
        stream_copy(&g_hold.s, &before);
        return feed_result(&f);
    }
    if (f.stop) {
        /* The classifier went past what the wire took; it was between
         * messages there (only junk or a candidate follows a run). */
        if (pos > f.run_to || cand != (size_t)-1) {
            g_hold.s.where = SW_OUTSIDE;
            g_hold.s.held = 0;
        }
        junk_flush(&f);
        return feed_result(&f);
    }
    if (cand != (size_t)-1 || held) {
        if (!check_fd(&f))
            return not_the_wire(&f, &before);
        junk_flush(&f);
        size_t from = cand != (size_t)-1 ? cand : total;
        while (from < total) {
            struct iovec v[BATCH];
            int n = iov_slice(iov, cnt, from, total, v, BATCH);
            for (int j = 0; j < n; j++) {   /* the classifier holds no more than the buffer */
                size_t room = sizeof g_hold.buf - g_hold.len;
                size_t k = v[j].iov_len < room ? v[j].iov_len : room;
                memcpy(g_hold.buf + g_hold.len, v[j].iov_base, k);
                g_hold.len += k;
            }
            from += iov_total(v, n);
        }
        f.taken = total;
    }
    junk_flush(&f);
    queue_between(c->fd);
    if (g_backlog.len && !g_junk_discard)
        backlog_drain();
    return (ssize_t)total;
}

/* ---- A write that cannot take the hold ---- */

/* The wire's bytes of a call classified alone: queued where they may not
 * go out now; else put. */
static ssize_t alone_out(struct feed *f, size_t from, size_t to, int queue)
{
    if (from >= to)
        return 0;
    if (queue && queue_add(f->iov, f->cnt, from, to)) {
        g_queue_fd = f->c->fd;
        return (ssize_t)(to - from);
    }
    return put_call(f, from, to);
}

/* A call classified by itself, on the stack: junk to stderr; the rest,
 * what is undecided at its end too (nothing can hold it: never lost), to
 * the wire.  queue: 0 in a vfork child (out at once); 1 in a signal handler
 * that interrupted the guard on its own thread, 2 apart from an open
 * message with the guard ours (the rest queued until the message is whole;
 * only with the guard ours is junk stderr cannot take kept for later). */
static ssize_t guard_alone(struct put *c, const struct iovec *iov, int cnt, int queue)
{
    struct sg_stream s;
    struct feed f = { .c = c, .iov = iov, .cnt = cnt, .off0 = c->off };
    size_t total = iov_total(iov, cnt), pos = 0, base = 0, from = 0;
    enum junk_caller by = in_vfork_child() ? IN_VFORK : queue > 1 ? BY_OWNER : BY_HANDLER;
    sg_stream_init(&s, __atomic_load_n(&g_hold.s.protocol, __ATOMIC_RELAXED));
    for (int i = 0; i < cnt; base += iov[i].iov_len, i++) {
        const unsigned char *p = iov[i].iov_base;
        while (pos < base + iov[i].iov_len) {
            enum sg_verdict v;
            size_t k = sg_stream_scan(&s, p + (pos - base), base + iov[i].iov_len - pos, &v);
            if (v == SG_JUNK) {
                if (!check_fd(&f)) {
                    queue = 0;
                    goto as_is;
                }
                ssize_t w = alone_out(&f, from, pos, queue);
                if (w < 0 || (size_t)w < pos - from)
                    return w < 0 ? (from ? (ssize_t)from : -1) : (ssize_t)(from + (size_t)w);
                for (size_t at = pos; at < pos + k;) {
                    struct iovec j[BATCH];
                    int n = iov_slice(iov, cnt, at, pos + k, j, BATCH);
                    junk_out(j, n, by);
                    at += iov_total(j, n);
                }
                from = pos + k;
            }
            pos += k;
        }
    }
as_is:;
    ssize_t w = alone_out(&f, from, total, queue);
    return w < 0 ? (from ? (ssize_t)from : -1) : (ssize_t)(from + (size_t)w);
}

/* ---- Entry points ---- */

/* The common case, the program's call as it is: nothing open on the stream
 * (no message held, owed or pending, nothing queued or kept for stderr, the
 * protocol decided), and the call, at most PIPE_BUF bytes (the wire takes
 * it whole or not at all: no rest to owe, nothing a signal handler could
 * land inside), classified on the stack from between messages, is protocol
 * from its first byte to its last and ends between messages.  Nothing
 * shared is written and no system call of ours is made (no lock, no
 * thread or process id): a vfork child may take it too.  A thread that
 * opens a message meanwhile only holds it (its bytes are not on the wire
 * yet), or has the wire take it in part, as unwrapped. */
int guard_whole(const struct iovec *iov, int cnt)
{
    struct sg_stream s;
    if (LOAD(g_hold.owner) || LOAD(g_hold.len) || LOAD(g_hold.owed) || LOAD(g_hold.pend) ||
        LOAD(g_queue.len) || LOAD(g_backlog.len) || iov_total(iov, cnt) > PIPE_BUF)
        return 0;
    unsigned char protocol = __atomic_load_n(&g_hold.s.protocol, __ATOMIC_RELAXED);
    if (protocol == SG_AUTO || __atomic_load_n(&g_hold.s.where, __ATOMIC_RELAXED) != SW_OUTSIDE)
        return 0;
    if (cnt == 1 && sg_stream_one_line(protocol, iov[0].iov_base, iov[0].iov_len))
        return 1;
    sg_stream_start(&s, protocol);
    for (int i = 0; i < cnt; i++) {
        const unsigned char *p = iov[i].iov_base;
        size_t n = iov[i].iov_len, off = 0;
        while (off < n) {
            enum sg_verdict v;
            off += sg_stream_scan(&s, p + off, n - off, &v);
            if (v == SG_JUNK)
                return 0;       /* (undecided: only at the end, where it shows) */
        }
    }
    return s.where == SW_OUTSIDE && !s.held;
}

/* Could the call end a line the wire has taken part of?  Only a newline
 * does (bytes without one join the line, a handler's or not, as
 * unwrapped): a short call is searched for one; a long one, or a value
 * over lines, or a frame's body, is taken to (the system call that tells
 * a handler is then worth its cost; for a byte a write it is not). */
#define SHORT_CALL 256

static int could_end_line(const struct iovec *iov, int cnt)
{
    if (g_hold.s.where != SW_LINE || iov_total(iov, cnt) > SHORT_CALL)
        return 1;
    for (int i = 0; i < cnt; i++)
        if (iov[i].iov_len && memchr(iov[i].iov_base, '\n', iov[i].iov_len))
            return 1;
    return 0;
}

/* The stream is the process's: a call continues it, whichever thread
 * makes it (held bytes that the call does not continue: guard_locked).
 * A message the wire took in part (owed) is told apart by content: a call
 * that does not begin with its rest is another writer's (a thread, a
 * signal handler) and waits in the queue, classified alone, until the
 * message is whole on the wire, never inside it.  The thread whose write
 * came back short, outside a signal handler, writing something else, has
 * given the rest up.  A message that goes on past its writer's call (an
 * answer over 64 KiB written in pieces) has no known rest: whole messages
 * from a signal handler on its writer's thread, between two of its calls,
 * wait for it (another thread may continue it: tokio's, libuv's writers
 * move between threads; a piece of it is never whole messages by itself,
 * so a thread that changed its own mask between two pieces loses nothing). */
static int apart_from_open(const struct iovec *iov, int cnt)
{
    if (!g_hold.owed)
        return open_on_wire() && g_hold.open_by == this_thread() && could_end_line(iov, cnt) &&
               in_handler() && whole_alone(iov, cnt, 0);
    if (owed_retry(iov, cnt))
        return 0;
    if (g_hold.open_by != this_thread() || in_handler())
        return 1;
    g_hold.owed = 0;
    return 0;
}

ssize_t guard_call(struct put *c, const struct iovec *iov, int cnt, const char *how)
{
    (void)how;
    if (guard_whole(iov, cnt)) {
        if (c->kind == PUT_WRITE && cnt > 1)
            return REAL(writev)(c->fd, iov, cnt);
        if (c->kind == PUT_WRITE && cnt == 1 && iov[0].iov_len)
            return REAL(write)(c->fd, iov[0].iov_base, iov[0].iov_len);
        return put_range(c, iov, cnt, 0, iov_total(iov, cnt));
    }
    if (in_vfork_child())
        return guard_alone(c, iov, cnt, 0);
    if (!hold_lock_how(0))      /* a signal handler inside the guard on this thread */
        return guard_alone(c, iov, cnt, 1);
    ssize_t r;
    if (apart_from_open(iov, cnt)) {
        r = guard_alone(c, iov, cnt, 2);
    } else {
        /* (a thread that goes on with its message keeps the mask noted
         * when it opened it: a byte a write costs one system call, not two) */
        int noted = open_on_wire() && g_hold.open_by == this_thread();
        r = guard_locked(c, iov, cnt);
        if (!g_hold.owed && open_on_wire() && !noted)
            message_opens();
    }
    hold_unlock();
    return r;
}

/* For C stdio's buffers (lib/stdout.c) and what the kernel would have
 * moved (lib/transfer.c): all of it goes through, waiting for the wire as
 * a blocking write would.  Returns how many bytes went: all of them, or
 * those before an error or a signal (EINTR) cut it, -1 if none (errno).
 * through_signals: a signal does not cut it (bytes already taken from
 * where the kernel would have moved them have nowhere else to go). */
ssize_t guard_write_all(int fd, const struct iovec *iov, int cnt, const char *how, int through_signals)
{
    struct iovec v[BATCH];
    size_t total = iov_total(iov, cnt), done = 0;
    while (done < total) {
        struct put c = { .fd = fd, .kind = PUT_WRITE };
        const struct iovec *at = iov;     /* (the first time, as given) */
        int n = cnt;
        if (done || cnt > BATCH) {
            n = iov_slice(iov, cnt, done, total, v, BATCH);
            at = v;
        }
        ssize_t w = guard_call(&c, at, n, how);
        if (w > 0) {
            done += (size_t)w;
        } else if (w < 0 && errno == EAGAIN) {
            struct pollfd q = { .fd = fd, .events = POLLOUT };
            if (poll(&q, 1, -1) < 0 && !through_signals)
                return done ? (ssize_t)done : -1;   /* EINTR: the program's signal, as glibc's write sees it */
        } else if (!(w < 0 && errno == EINTR && through_signals)) {
            return done ? (ssize_t)done : -1;
        }
    }
    return (ssize_t)done;
}

static void close_copy(int fd, int unused)
{
    (void)unused;
    REAL(close)(fd);
}

/* At exit, with junk still waiting for stderr: the client gets its end of
 * file first (fd 1 and the copies of the wire closed: nothing of the
 * program's writes them any more), then stderr gets the junk. */
static void wire_let_go(void)
{
    if (LOAD(g_core.fd1_ours))
        REAL(close)(1);
    each_copy(0, ~0U, close_copy, 0);
}

/* Exec, spawn, exit, _exit: what the wire is owed goes out (bounded: the
 * client may be gone), what is undecided is junk, as at the end of the
 * filter's input; at exec and exit the junk waiting for stderr goes too
 * (bounded by the stall rule), at exit after the wire's end.  The lock is
 * tried for a while, not waited for: another thread may be blocked on the
 * wire inside it. */
void guard_settle(const char *how, enum settle at)
{
    char numbuf[24];
    if (!guarding() || in_vfork_child())
        return;
    int got = 0;
    for (int tries = 0; tries < 1000 && !(got = hold_lock_how(1)); tries++)
        if (LOAD(g_hold.owner) == this_thread())
            return;     /* a signal handler inside the guard */
        else
            sched_yield();
    if (!got)
        return;
    if (g_hold.pend) {
        size_t n = write_whole(g_hold.pend_fd, g_hold.buf + g_hold.pend_at, g_hold.pend, 1);
        if (n < g_hold.pend)
            say(1, "guard: the client took nothing for ", NUM(SG_STALL_MS / 1000),
                " s: the end of a message was lost at ", how);
        g_hold.pend = 0;
    }
    if (g_hold.len) {
        struct iovec v = { g_hold.buf, g_hold.len };
        say(3, "guard: ", NUM(g_hold.len), " bytes of an unfinished line held at ", how,
            ": junk, to stderr");
        junk_out(&v, 1, BY_OWNER);
        g_hold.len = 0;
        (void)sg_stream_end(&g_hold.s);
    }
    g_hold.owed = 0;
    if (LOAD(g_queue.len))
        queue_out(g_queue_fd, 1);
    if (at == SETTLE_EXIT && g_backlog.len && !g_junk_discard)
        wire_let_go();
    if (at == SETTLE_SPAWN)
        backlog_drain();
    else
        backlog_finish();
    hold_unlock();
}

static void log_open(void)
{
    const char *path = sg_env_log(env_value(SG_ENV_LOG));
    char name[32] = "server";
    if (!path || g_log.fd >= 0)
        return;
    int fd = open(path, SG_LOG_OPEN_FLAGS, 0666);
    if (fd < 0) {
        say(1, "cannot open the log ", path, " (", err_name(errno), "): not logging after the gate");
        return;
    }
    g_log.fd = high_dup(fd);
    REAL(close)(fd);
    if (syscall(SYS_prctl, PR_GET_NAME, name, 0, 0, 0) != 0)
        memcpy(name, "server", 7);
    sg_log_prefix(&g_log, name, (long)getpid());
}

/* The guard starts: when the gate opens, or at start in a program handed
 * the wire after its parent's gate opened. */
void guard_start(const char *why)
{
    g_junk_discard = sg_env_discard(env_value(SG_ENV_DISCARD)) || is(2, &g_core.wire_id) ||
                     REAL(fcntl)(2, F_GETFD) < 0;
    log_open();
    STORE(g_guard, 1);
    say(3, "guard: keeping what is not protocol off the wire for the session (", why,
        "): to ", g_junk_discard ? "/dev/null" : "stderr");
}

/* At exit, level 2: what the guard kept off the wire; level 1: what it
 * could not put on stderr. */
void guard_summary(void)
{
    char numbuf[24], lines[24];
    unsigned long long bytes = LOAD(g_junk.bytes), dropped = LOAD(g_junk.dropped);
    unsigned long long n = LOAD(g_junk.lines) + (unsigned)LOAD(g_junk.partial);
    if (!guarding())
        return;
    if (dropped)
        say(1, NUM(dropped), " bytes of output kept off the wire were dropped: stderr was full "
               "(nobody read it)");
    if (bytes)
        say(2, "guard: kept ", NUM(bytes), bytes == 1 ? " byte in " : " bytes in ", NUM_IN(lines, n),
            n == 1 ? " line" : " lines", " off the wire after the gate");
}
