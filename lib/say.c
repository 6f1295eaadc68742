/* SPDX-License-Identifier: MIT */
/* lib/say.c - diagnostics on stderr: one write(2) per line, no stdio, no
 * heap. */

#include <termios.h>

#include "internal.h"
#include "../common/stderr.h"

/* ------------------------------------------------------------------ */
/* Diagnostics: one write(2) per line, no stdio, no heap. */

int g_level = 1;             /* STDIOGATE_DEBUG */
int g_log_ok = 1;            /* fd 2 was open at start */

char *fmt_num(char *end, unsigned long long v)
{
    *--end = '\0';
    do
        *--end = (char)('0' + v % 10);
    while (v /= 10);
    return end;
}

static unsigned long long g_say_dropped;   /* lines stderr had no room for */

/* stderr's non-blocking handle for one call (common/stderr.h), where the
 * process has no private one (before the constructor makes it, in a
 * process that does not divert, after the gate); -1 if none opens: then
 * fd 2, and the poll is all there is. */
int stderr_handle(void)
{
    return sg_stderr_reopen(3);
}

void close_stderr_handle(int fd)
{
    if (fd >= 0)
        (void)syscall(SYS_close, fd);
}

/* stderr is a pipe or a terminal: what a write of ours may wait on, where
 * stderr_handle's non-blocking handle is wanted.  A terminal waits when its
 * reader stops (^S, a pty nobody reads), and poll calls it writable with
 * room for part of a line. */
int stderr_waits(const struct stat *st)
{
    struct termios t;
    return S_ISFIFO(st->st_mode) ||
           (S_ISCHR(st->st_mode) && syscall(SYS_ioctl, 2, TCGETS, &t) == 0);
}

/* stderr (st: its fstat) is the wire itself (2>&1), not a person's
 * terminal: nothing of ours may be written on it. */
int stderr_is_wire(const struct stat *st)
{
    return g_core.wire_id.valid && st->st_dev == g_core.wire_id.dev &&
           st->st_ino == g_core.wire_id.ino && !S_ISCHR(st->st_mode);
}

/* One line onto stderr, never waiting: a pipe that nobody reads (already
 * full of the server's own output) must not block the server in a
 * diagnostic.  A pipe gets the private non-blocking handle (or, without one
 * on this pipe, stderr_handle's), after a poll: a line is shorter than
 * PIPE_BUF and POLLOUT means a free page, and POLLERR a reader gone, where
 * a write would raise the SIGPIPE that kills the server over a line of
 * ours (a terminal the same); a socket MSG_DONTWAIT; a file a plain write.  A line
 * that does not fit is dropped and counted. */
static void say_out(const char *line, size_t n)
{
    struct stat st, mine;
    ssize_t w = -1;
    int fd = LOAD(g_core.err);
    if (sg_fstat(2, &st) != 0)
        return;
    if (stderr_is_wire(&st))
        return;
    if (S_ISSOCK(st.st_mode)) {
        w = syscall(SYS_sendto, 2, line, n, MSG_DONTWAIT | MSG_NOSIGNAL, NULL, 0);
    } else if (stderr_waits(&st)) {
        int own = -1;
        if (fd < 0 || sg_fstat(fd, &mine) != 0 || mine.st_dev != st.st_dev || mine.st_ino != st.st_ino) {
            own = stderr_handle();
            fd = own >= 0 ? own : 2;
        }
        struct pollfd p = { .fd = fd, .events = POLLOUT };
        if (!(poll(&p, 1, 0) == 1 && (p.revents & POLLOUT) && !(p.revents & (POLLERR | POLLHUP))))
            fd = -1;
        if (fd >= 0)
            while ((w = REAL(write)(fd, line, n)) < 0 && errno == EINTR)
                ;
        close_stderr_handle(own);
    } else {
        while ((w = REAL(write)(2, line, n)) < 0 && errno == EINTR)
            ;
    }
    if (w < 0)
        __atomic_add_fetch(&g_say_dropped, 1, __ATOMIC_RELAXED);
}

void say_line(int level, const char *first, ...)
{
    char line[512], num[24];
    size_t n = 0;
    const char *s;
    va_list ap;
    int saved = errno;

    if (level > g_level || !g_log_ok)
        return;
    for (s = "stdiogate["; *s && n < sizeof line - 1; s++)
        line[n++] = *s;
    for (s = fmt_num(num + sizeof num, (unsigned long long)getpid()); *s; s++)
        line[n++] = *s;
    line[n++] = ']';
    line[n++] = ':';
    line[n++] = ' ';
    va_start(ap, first);
    for (s = first; s; s = va_arg(ap, const char *))
        while (*s && n < sizeof line - 1)
            line[n++] = *s++;
    va_end(ap);
    line[n++] = '\n';
    say_out(line, n);
    errno = saved;
}

/* strerror may translate and allocate, and strerrorname_np is glibc's
 * alone (musl's loader could not resolve it): our own table of the errors
 * the calls we report can return. */
const char *err_name(int e)
{
#define ERR(x) [x] = #x,
    static const char names[][sizeof "ENAMETOOLONG"] = {   /* (rows, not pointers: no relocation at load) */
        ERR(EPERM) ERR(ENOENT) ERR(EINTR) ERR(EIO) ERR(ENXIO) ERR(ENOEXEC) ERR(EBADF) ERR(EAGAIN)
        ERR(ENOMEM) ERR(EACCES) ERR(EFAULT) ERR(EBUSY) ERR(EEXIST) ERR(ENODEV)
        ERR(ENOTDIR) ERR(EISDIR) ERR(EINVAL) ERR(ENFILE) ERR(EMFILE) ERR(ENOTTY)
        ERR(ETXTBSY) ERR(ENOSPC) ERR(ESPIPE) ERR(EROFS) ERR(EPIPE) ERR(ERANGE)
        ERR(ENAMETOOLONG) ERR(ENOSYS) ERR(ELOOP) ERR(EOVERFLOW) ERR(ENOTSOCK)
        ERR(EOPNOTSUPP) ERR(ECONNRESET) ERR(ENOTCONN)
    };
#undef ERR
    if (e > 0 && (size_t)e < sizeof names / sizeof names[0] && names[e][0])
        return names[e];
    return "unknown error";
}
