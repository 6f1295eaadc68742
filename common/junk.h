/* SPDX-License-Identifier: MIT */
/* junk.h - the junk path, shared by the filter (filter/junk.c: the strict filter
 * and the helper, `--drain`) and the session guard (lib/guard.c): the
 * backlog of junk stderr could not take at once, its drain, and the log's
 * line prefixes.  Each caller passes its own writers, which differ for a
 * reason: the filter writes junk on a non-blocking handle of its own on
 * stderr (err_write), while the library may keep no descriptor of its own
 * on stderr after the gate, nor set O_NONBLOCK on the program's (it asks
 * poll, and writes a page at a time with SIGPIPE blocked: stderr_try); the
 * filter gives the log up at its first error and says so, the guard (in a
 * signal handler perhaps) says nothing.  What each does when stderr stays
 * full is its own too (stall.h: the filter's stall rule; the guard's waits
 * at a write and its bound at exit).
 *
 * No libc calls but memchr, no locks, static memory: each caller has one
 * backlog and one log, and one writer of each at a time. */
#ifndef STDIOGATE_JUNK_H
#define STDIOGATE_JUNK_H

#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>

/* ---- The backlog: junk that stderr could not take at once ---- */

/* Kept in order until stderr takes it; what does not fit is dropped, and
 * the caller counts it. */
#define SG_BACKLOG_SIZE (1024 * 1024)

struct sg_backlog {
    size_t start, len;                  /* buf[start..start+len): waiting */
    unsigned char buf[SG_BACKLOG_SIZE];
};

/* The bytes of v[0..n) past its first skip, at the end.  Returns how many
 * did not fit (dropped). */
static inline size_t sg_backlog_add(struct sg_backlog *b, const struct iovec *v, int n, size_t skip)
{
    size_t total = 0, lost = 0;
    for (int i = 0; i < n; i++)
        total += v[i].iov_len;
    if (b->start && b->start + b->len + (total > skip ? total - skip : 0) > sizeof b->buf) {
        __builtin_memmove(b->buf, b->buf + b->start, b->len);
        b->start = 0;
    }
    for (int i = 0; i < n; i++) {
        size_t k = v[i].iov_len, from = skip < k ? skip : k;
        skip -= from;
        k -= from;
        size_t room = sizeof b->buf - b->start - b->len, take = k < room ? k : room;
        __builtin_memcpy(b->buf + b->start + b->len, (const unsigned char *)v[i].iov_base + from, take);
        b->len += take;
        lost += k - take;
    }
    return lost;
}

/* The first n bytes reached stderr (or are given up). */
static inline void sg_backlog_taken(struct sg_backlog *b, size_t n)
{
    b->start += n;
    b->len -= n;
    if (b->len == 0)
        b->start = 0;
}

/* The caller's writer of junk on stderr: one attempt that never waits.
 * Bytes written (0: stderr is full now), or -1: stderr is gone. */
typedef ssize_t sg_stderr_write_fn(const struct iovec *v, int n);

/* What waits goes to stderr as far as it takes it now.  Returns how many
 * bytes left the backlog; *gone: stderr is gone, and they were given up
 * (the caller counts them dropped), not written. */
static inline size_t sg_backlog_drain(struct sg_backlog *b, sg_stderr_write_fn *writer, int *gone)
{
    struct iovec v = { b->buf + b->start, b->len };
    ssize_t w = v.iov_len ? writer(&v, 1) : 0;
    size_t n = w < 0 ? b->len : (size_t)w;
    *gone = w < 0;
    sg_backlog_taken(b, n);
    return n;
}

/* ---- The log (STDIOGATE_LOG): every junk byte, each line prefixed ---- */

/* Opened by the process that writes it (never a descriptor of the
 * server's), appended to by every process of the tree, non-blocking: a
 * FIFO nobody reads loses lines, never holds up the server. */
#define SG_LOG_OPEN_FLAGS (O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)

struct sg_log {
    int fd;                     /* -1: no log, or given up */
    int mid_line;               /* the last byte logged was not a newline */
    char prefix[96];            /* "NAME[PID]: " */
    size_t prefix_len;
};

/* The caller's writer of the log: one writev of out[0..n); it may give the
 * log up (fd -1). */
typedef void sg_log_write_fn(struct sg_log *log, const struct iovec *out, int n);

/* The prefix of each line: the server's name (at most 60 bytes), then its
 * pid in brackets. */
static inline void sg_log_prefix(struct sg_log *log, const char *name, long pid)
{
    char digits[24];
    size_t n = 0, k = 0;
    unsigned long u = pid < 0 ? 0UL - (unsigned long)pid : (unsigned long)pid;
    while (n < 60 && name[n]) {
        log->prefix[n] = name[n];
        n++;
    }
    log->prefix[n++] = '[';
    if (pid < 0)
        log->prefix[n++] = '-';
    do
        digits[k++] = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    while (k)
        log->prefix[n++] = digits[--k];
    log->prefix[n++] = ']';
    log->prefix[n++] = ':';
    log->prefix[n++] = ' ';
    log->prefix_len = n;
}

/* Junk into the log, the prefix at the start of each line: gathered into
 * out (max iovecs, at least 2) and written with writer as it fills. */
static inline void sg_log_junk(struct sg_log *log, const struct iovec *v, int n, struct iovec *out,
                               int max, sg_log_write_fn *writer)
{
    int k = 0;
    for (int i = 0; i < n && log->fd >= 0; i++) {
        const unsigned char *p = v[i].iov_base, *e = p + v[i].iov_len;
        while (p < e) {
            const unsigned char *nl = memchr(p, '\n', (size_t)(e - p));
            const unsigned char *end = nl ? nl + 1 : e;
            if (k + 2 > max) {
                writer(log, out, k);
                k = 0;
                if (log->fd < 0)
                    return;     /* given up */
            }
            if (!log->mid_line)
                out[k++] = (struct iovec){ log->prefix, log->prefix_len };
            out[k++] = (struct iovec){ (void *)p, (size_t)(end - p) };
            log->mid_line = nl == NULL;
            p = end;
        }
    }
    if (k && log->fd >= 0)
        writer(log, out, k);
}

#endif
