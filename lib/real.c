/* SPDX-License-Identifier: MIT */
/* lib/real.c - the real functions: the table of pointers, found by
 * dlsym(RTLD_NEXT). */

#include "internal.h"

/* The table itself (lib/internal.h declares it). */
#define DEFINE_REAL(f) __typeof__(&f) real_##f;
EAGER_FUNCTIONS(DEFINE_REAL)
LAZY_FUNCTIONS(DEFINE_REAL)
WRITE_FUNCTIONS(DEFINE_REAL)
LAZY_WRITE_FUNCTIONS(DEFINE_REAL)
STDIO_FUNCTIONS(DEFINE_REAL)
WIDE_FUNCTIONS(DEFINE_REAL)
REOPEN_FUNCTIONS(DEFINE_REAL)

/* Opening stdout by name (lib/reopen.c) takes part in these. */

void resolve_eager(void)
{
#define RESOLVE(f) (void)REAL(f);
    EAGER_FUNCTIONS(RESOLVE)
    WRITE_FUNCTIONS(RESOLVE)
    resolve_reopen();
}
