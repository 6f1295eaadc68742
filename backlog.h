/* SPDX-License-Identifier: MIT */
/* backlog.h - junk that stderr could not take at once, kept in order until
 * it does: the filter's (filter.c) and the session guard's (lib/guard.c).
 * What does not fit is dropped; the caller counts it.  Static memory,
 * no locks: each caller has one backlog and one writer of it. */
#ifndef STDIOGATE_BACKLOG_H
#define STDIOGATE_BACKLOG_H

#include <stddef.h>
#include <sys/uio.h>

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

#endif
