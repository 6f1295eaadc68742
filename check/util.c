/* SPDX-License-Identifier: MIT */
/* check/util.c - the checker's small utilities: dying with a message,
 * memory that is there or the program ends, the clock, descriptors made
 * non-blocking.  The other files of stdiogate-check call them; they call
 * none of those files, so no file calls back into main.c. */
#include "check.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>

void die(int status, const char *fmt, ...)
{
    va_list ap;
    fputs("stdiogate --check: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(status);
}

void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        die(EXIT_USAGE, "out of memory");
    return p;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    char *s;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        die(EXIT_USAGE, "out of memory");
    va_end(ap);
    return s;
}

double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void set_nonblock_cloexec(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
}
