/* SPDX-License-Identifier: MIT */
/* stderr.h - a handle of our own on stderr, for writes that never wait.
 *
 * The library's diagnostics (lib/say.c) and the guard's junk at exit
 * (lib/guard.c), the checker's lines from the wrapper (check/wrapper.c) and
 * the filter's junk (filter/junk.c) all write where a stderr nobody reads
 * must not hold a server up.  fd 2's open file description is the
 * program's too: O_NONBLOCK set on it would hand the program EAGAIN on its
 * own writes.  So each opens a second description of the same pipe or
 * terminal through /proc and sets O_NONBLOCK on that one alone.  A poll
 * before a write is not enough without it: another writer on the same pipe
 * may take the room between the two, and a terminal says writable with
 * room for part of a line only.
 */
#ifndef SG_STDERR_H
#define SG_STDERR_H

#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The handle, at `lowest` or above (0 to 2 closed are the program's to
 * reuse; the filter keeps its first ones), close-on-exec, O_NOCTTY (the
 * controlling terminal stays what it is).  -1 with errno if none opens: no
 * /proc, a FIFO whose reader has gone (ENXIO), no descriptor to spare.
 * Raw system calls: the library interposes open, and its lines may be said
 * from a signal handler. */
static inline int sg_stderr_reopen(int lowest)
{
    int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/fd/2",
                          O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd >= 0 && fd < lowest) {
        int up = (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, lowest);
        int err = errno;
        (void)syscall(SYS_close, fd);
        errno = err;
        fd = up;
    }
    return fd;
}

#endif
