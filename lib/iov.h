/* SPDX-License-Identifier: MIT */
/* lib/iov.h - a call's bytes as the program gave them (an array of
 * iovecs), counted, cut and copied by byte position: what the readers, the
 * write path, the hold and the guard all do to a call.  No system calls, no
 * shared state: safe in a signal handler and in a vfork child. */
#ifndef STDIOGATE_LIB_IOV_H
#define STDIOGATE_LIB_IOV_H

#include <stddef.h>
#include <string.h>
#include <sys/uio.h>

/* The call's length: the sum of its iovecs. */
static inline size_t iov_total(const struct iovec *iov, int cnt)
{
    size_t total = 0;
    for (int i = 0; i < cnt; i++)
        total += iov[i].iov_len;
    return total;
}

/* The newlines in the first n bytes of iov[0..cnt), as the level-2
 * summaries count lines (the diversion, the guard's junk, what went
 * straight to stderr); *partial (unless NULL or n is 0): whether those
 * bytes end without one. */
static inline unsigned long long iov_lines(const struct iovec *iov, int cnt, size_t n, int *partial)
{
    unsigned long long lines = 0;
    for (int i = 0; i < cnt && n; i++) {
        size_t k = iov[i].iov_len < n ? iov[i].iov_len : n;
        const char *c = iov[i].iov_base, *end = c + k;
        while ((c = memchr(c, '\n', (size_t)(end - c))) != NULL) {
            lines++;
            c++;
        }
        if (k && partial)
            *partial = ((const char *)iov[i].iov_base)[k - 1] != '\n';
        n -= k;
    }
    return lines;
}

/* The slice [from, to) of the call, as iovecs into out (at most max). */
static inline int iov_slice(const struct iovec *iov, int cnt, size_t from, size_t to,
                            struct iovec *out, int max)
{
    size_t pos = 0;
    int n = 0;
    for (int i = 0; i < cnt && pos < to && n < max; pos += iov[i].iov_len, i++) {
        size_t len = iov[i].iov_len;
        if (pos + len <= from)
            continue;
        size_t a = from > pos ? from - pos : 0, b = to - pos < len ? to - pos : len;
        if (b > a)
            out[n++] = (struct iovec){ (char *)iov[i].iov_base + a, b - a };
    }
    return n;
}

/* The whole iovecs of the call that [from, to) begins with, as the
 * program's own array (*at): how many (at most max); 0 if from is inside
 * an iovec or the first one goes past to. */
static inline int iov_whole(const struct iovec *iov, int cnt, size_t from, size_t to,
                            const struct iovec **at, int max)
{
    size_t pos = 0;
    int i = 0, n = 0;
    while (i < cnt && pos + iov[i].iov_len <= from && pos < from)
        pos += iov[i++].iov_len;
    if (pos != from)
        return 0;
    *at = iov + i;
    while (i + n < cnt && n < max && pos + iov[i + n].iov_len <= to)
        pos += iov[i + n++].iov_len;
    return n;
}

/* Bytes [from, to) of the call copied to out; how many. */
static inline size_t iov_copy(const struct iovec *iov, int cnt, size_t from, size_t to,
                              unsigned char *out)
{
    size_t pos = 0, n = 0;
    for (int i = 0; i < cnt && pos < to; pos += iov[i].iov_len, i++) {
        size_t len = iov[i].iov_len;
        if (pos + len <= from)
            continue;
        size_t a = from > pos ? from - pos : 0, b = to - pos < len ? to - pos : len;
        memcpy(out + n, (const char *)iov[i].iov_base + a, b - a);
        n += b - a;
    }
    return n;
}

#endif
