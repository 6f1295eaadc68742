/* SPDX-License-Identifier: MIT */
/* helper.h - what libstdiogate.so and its helper, `stdiogate-filter
 * --drain`, agree on.
 *
 * In default mode the library diverts fd 1 to a pipe and starts the helper
 * (the static filter binary, found beside the library) on the pipe's read
 * end: fd 0 the pipe, fd 2 stderr, fd SG_COUNTERS_FD a shared page (a
 * memfd) of counters, nothing else.  The helper copies the pipe to stderr
 * with the strict filter's junk path (filter/junk.c): the same non-blocking
 * handle on stderr, the same stall rule (stall.h), the same drop count.
 * The library reads the counters to wait, bounded, until what was written
 * to the diversion has reached stderr (when the gate opens, at exec, at
 * exit).
 */
#ifndef STDIOGATE_HELPER_H
#define STDIOGATE_HELPER_H

#define SG_HELPER "stdiogate-filter"
/* With this much held, the helper stops reading and the server waits. */
#define SG_DRAIN_HOLD 65536
#define SG_COUNTERS_FD 3

/* The shared page.  Written by the helper only. */
struct sg_drain_counters {
    unsigned long long taken;    /* bytes the helper took from the pipe */
    unsigned long long settled;  /* ... and wrote to stderr or dropped */
    unsigned long long dropped;
    int stuck;                   /* holding bytes that stderr will not take now */
    int partial;                 /* the last byte taken was not a newline */
    unsigned long long lines;    /* newlines taken (a partial line adds one) */
};

/* Closes every descriptor from low up, before an exec, in the child that
 * becomes the helper (the library's) or the filter: raw system calls only
 * (the library's runs between clone and exec).  close_range is Linux 5.9's;
 * before it, one close each up to the soft descriptor limit, at most 65536. */
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline void sg_close_from(int low)
{
    struct rlimit rl;
    long top = 65536;
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)low, ~0U, 0) == 0)
        return;
#endif
    if (syscall(SYS_getrlimit, RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)top)
        top = (long)rl.rlim_cur;
    for (long fd = low; fd < top; fd++)
        (void)syscall(SYS_close, (int)fd);
}

#endif
