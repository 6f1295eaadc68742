/* SPDX-License-Identifier: MIT */
/* filter/drain.c - the helper of default mode, `stdiogate-filter --drain
 * PID` (internal: libstdiogate.so runs it, lib/helper.c; helper.h): it
 * copies its stdin, the pipe the library diverted fd 1 of process PID to,
 * onto stderr, with the junk path (junk.c: every byte is junk), and speaks
 * as PID.  It exits at the end of its input, and ignores every signal sent
 * to the process group.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "filter.h"

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
_Noreturn void drain_run(int discard)
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
