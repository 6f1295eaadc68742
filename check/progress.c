/* SPDX-License-Identifier: MIT */
/* check/progress.c - what the check is doing as it goes, one line at a time
 * on stderr, when stderr is a terminal (a person waiting for the verdict);
 * nothing otherwise (the reports are the same either way). */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "check.h"

static int on_terminal;

void progress_start(void)
{
    on_terminal = isatty(2);
}

void progress(const char *fmt, ...)
{
    va_list ap;
    if (!on_terminal)
        return;
    fputs("stdiogate --check: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}
