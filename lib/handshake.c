/* SPDX-License-Identifier: MIT */
/* lib/handshake.c - the explicit handshake: setenv/putenv(STDIOGATE_OPEN=1)
 * opens the gate. */

#include "internal.h"

/* ------------------------------------------------------------------ */
/* The explicit handshake. */

EXPORT int setenv(const char *name, const char *value, int overwrite)
{
    int r = REAL(setenv)(name, value, overwrite);
    if (gated() && r == 0 && shut() && strcmp(name, HANDSHAKE) == 0 && sg_env_open(value))
        open_gate(NULL, 0, 0);
    return r;
}

EXPORT int putenv(char *s)
{
    int r = REAL(putenv)(s);
    const char *value;
    if (gated() && r == 0 && shut() && (value = sg_env_after(s, HANDSHAKE "=")) && sg_env_open(value))
        open_gate(NULL, 0, 0);
    return r;
}
