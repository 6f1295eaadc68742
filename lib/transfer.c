/* SPDX-License-Identifier: MIT */
/* sendfile(2), splice(2) and vmsplice(2) onto the wire while the session
 * guard is on.  The kernel would move those bytes past the classifier (and
 * past a line the guard holds undecided), so here they are read in a piece
 * (the kernel too may move less than asked: callers loop) and written
 * through the guard like any write.  Anywhere else, and before the gate
 * (fd 1 is the diversion then), the real call. */
#include <limits.h>
#include "internal.h"

#define PIECE 4096              /* at most per call: small on any stack */

static int onto_guarded_wire(int fd)
{
    return guarding() && !shut() && guard_fd(fd);
}

/* Is fd ready for events now?  A poll that does not wait still says
 * EINTR when a signal is pending as it looks: a call that must not wait
 * asks again (0 and EAGAIN if not ready). */
static int ready_now(int fd, short events)
{
    struct pollfd q = { .fd = fd, .events = events };
    int r;
    while ((r = poll(&q, 1, 0)) < 0 && errno == EINTR)
        ;
    if (r == 0)
        errno = EAGAIN;
    return r > 0;
}

/* Does out have room (once it has, for a blocking one)?  If not: errno
 * EAGAIN (non-blocking), or EINTR (a signal while it waited): the real
 * call's answer when it has moved nothing. */
static int room_on(int out)
{
    struct pollfd q = { .fd = out, .events = POLLOUT };
    if (REAL(fcntl)(out, F_GETFL) & O_NONBLOCK)
        return ready_now(out, POLLOUT);
    return poll(&q, 1, -1) > 0;
}

/* One piece from in (at *off, or at its file offset) to the wire.  Bytes
 * read from in are gone from there (a pipe's, a file's offset): once read
 * they all go out, whatever signal comes meanwhile (had a cut piece been
 * reported as nothing moved, the program's next call would repeat or skip
 * them); a signal that comes before is the program's. */
static ssize_t move_piece(int in, off64_t *off, int out, size_t len, const char *how)
{
    unsigned char buf[PIECE];
    size_t want = len < sizeof buf ? len : sizeof buf;
    if (!room_on(out))
        return -1;
    ssize_t n = off ? REAL(pread64)(in, buf, want, *off) : REAL(read)(in, buf, want);
    if (n <= 0)
        return n;
    struct iovec v = { buf, (size_t)n };
    ssize_t w = guard_write_all(out, &v, 1, how, 1);
    if (w > 0 && off)
        *off += w;
    return w;
}

EXPORT ssize_t sendfile64(int out, int in, off64_t *offset, size_t count)
{
    if (!onto_guarded_wire(out))
        return REAL(sendfile64)(out, in, offset, count);
    return move_piece(in, offset, out, count, "sendfile");
}

EXPORT ssize_t sendfile(int out, int in, off_t *offset, size_t count)
{
    if (!onto_guarded_wire(out))
        return REAL(sendfile)(out, in, offset, count);
    off64_t at = offset ? *offset : 0;
    ssize_t n = move_piece(in, offset ? &at : NULL, out, count, "sendfile");
    if (offset)
        *offset = (off_t)at;
    return n;
}

EXPORT ssize_t splice(int in, off64_t *off_in, int out, off64_t *off_out, size_t len, unsigned int flags)
{
    if (off_out || !onto_guarded_wire(out))
        return REAL(splice)(in, off_in, out, off_out, len, flags);
    if ((flags & SPLICE_F_NONBLOCK) && !ready_now(in, POLLIN))
        return -1;      /* (EAGAIN: nothing to move now, as the real call says of an empty pipe) */
    return move_piece(in, off_in, out, len, "splice");
}

EXPORT ssize_t vmsplice(int fd, const struct iovec *iov, size_t cnt, unsigned int flags)
{
    if (!onto_guarded_wire(fd) || cnt > IOV_MAX)
        return REAL(vmsplice)(fd, iov, cnt, flags);
    return guard_write_all(fd, iov, (int)cnt, "vmsplice", 0);     /* (a signal: what went) */
}
