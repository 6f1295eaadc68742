/* SPDX-License-Identifier: MIT */
/* filter/filter.h - what the files of stdiogate-filter share (which file
 * does what: docs/ARCHITECTURE.md, "The filter, file by file").  One static
 * program, three roles: the launcher (launcher.c: `stdiogate --strict`, and
 * the library for a program it cannot enter), the relay it starts
 * (relay.c: `--relay`, the filter proper), and the default mode's helper
 * (drain.c: `--drain`); the relay and the drain write junk the same way
 * (junk.c). */
#ifndef STDIOGATE_FILTER_H
#define STDIOGATE_FILTER_H

#include <fcntl.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../protocol/detect.h"
#include "../common/env.h"
#include "../common/junk.h"
#include "../common/helper.h"
#include "../common/stall.h"

#define WIRE 1
#define READ_SIZE (256 * 1024)
#define IOV_MAX_BATCH 64
/* A stderr that takes nothing for this long is taken as read by nobody
 * (stall.h). */
#define STALL_MS SG_STALL_MS

/* ---- The process (junk.c) ---- */

extern int g_level;
extern pid_t g_as;          /* --drain: the server this helper speaks for */
extern char g_server[64];   /* the server's name and pid, for the log */
extern long g_server_pid;

void say(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Move a descriptor to low or above (0 is closed in the filter, and 0, 1,
 * 2 may be closed when the launcher starts). */
static inline int above(int fd, int low)
{
    if (fd >= low)
        return fd;
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, low);
    close(fd);
    return moved;
}

static inline const char *protocol_name(enum sg_protocol p)
{
    return p == SG_JSONL ? "jsonl" : p == SG_FRAMED ? "framed" : "auto";
}

/* ---- The junk path: stderr, the backlog, the log (junk.c) ---- */

/* stderr: in the filter, a non-blocking handle of our own on it, so that a
 * full stderr drops junk (and diagnostics) instead of stalling the wire. */
extern struct filter_stderr {
    int fd;             /* -1: closed */
    int socket;         /* send with MSG_DONTWAIT */
    int stalled;        /* took nothing for STALL_MS: junk is dropped until it takes again */
} g_err;

extern int g_discard;   /* --discard, or stderr is the wire */

extern struct filter_stats {
    unsigned long long bytes, lines, dropped;
    int partial;        /* the last junk byte was not a newline */
} g_stats;

/* --drain: the counters the library waits on (helper.h), or NULL. */
extern struct sg_drain_counters *g_counters;

/* Junk that stderr could not take yet waits here, written as stderr
 * drains while the protocol goes on; what does not fit is dropped. */
extern struct sg_backlog g_backlog;

void open_stderr(int discard);
void log_open(const char *name, long pid);
void log_end(void);
void junk_out(const struct iovec *iov, int cnt);
int stderr_moves(void);
void backlog_wait(void);
int wait_input(int in);
void backlog_finish(void);

/* ---- The relay and the drain (relay.c, drain.c) ---- */

void filter_ignore_signals(void);
_Noreturn void filter_run(int in, enum sg_protocol protocol, int discard);
_Noreturn void drain_run(int discard);

#endif
