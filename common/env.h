/* SPDX-License-Identifier: MIT */
/* env.h - the environment the wrapper, the library, the filter and the
 * checker pass each other: every variable's name, the marker's forms, and
 * the one reader of each variable.
 *
 * Who sets what (the wrapper's exports are listed against this file in its
 * own comment, "The environment"; tests/lint/lint.bats checks both ways):
 *
 *   STDIOGATE_WIRE         the marker (below): the wrapper, through the
 *                          checker's --wrapper answer; the library when it
 *                          hands the wire on at exec; the filter
 *                          (filter:PID:MIDDLE)
 *   STDIOGATE_DEBUG        the user, or the wrapper (-v, through the
 *                          checker); the library for its helper
 *   STDIOGATE_DISCARD      the wrapper (--discard); the library for its helper
 *   STDIOGATE_LOG          the wrapper (--log, made absolute); the library
 *                          for its helper
 *   STDIOGATE_GUARD        the wrapper (--gate-only), or the user
 *   STDIOGATE_AUTO_STRICT  the wrapper (--gate-only), or the user
 *   STDIOGATE_PROTOCOL     the wrapper (--protocol), or the user
 *   STDIOGATE_OPEN         the server (the handshake)
 *   LD_PRELOAD             the wrapper, through the checker's answer
 *
 * What each means, for every program that reads it: docs/CONTRACT.md,
 * "Environment".  The readers are header-only and call nothing (no libc):
 * the library runs them in its constructor and in interposers.  Each takes
 * the variable's value, NULL when it is unset, so that a caller reads it
 * from its own environment or from another's (the checker reads the
 * caller's from /proc).
 */
#ifndef STDIOGATE_ENV_H
#define STDIOGATE_ENV_H

#include "../protocol/detect.h"

#define SG_ENV_PREFIX      "STDIOGATE_"     /* every name of ours begins so */
#define SG_ENV_WIRE        "STDIOGATE_WIRE"
#define SG_ENV_DEBUG       "STDIOGATE_DEBUG"
#define SG_ENV_DISCARD     "STDIOGATE_DISCARD"
#define SG_ENV_LOG         "STDIOGATE_LOG"
#define SG_ENV_GUARD       "STDIOGATE_GUARD"
#define SG_ENV_AUTO_STRICT "STDIOGATE_AUTO_STRICT"
#define SG_ENV_PROTOCOL    "STDIOGATE_PROTOCOL"
#define SG_ENV_OPEN        "STDIOGATE_OPEN"
#define SG_ENV_PRELOAD     "LD_PRELOAD"

/* ------------------------------------------------------------------ */
/* STDIOGATE_DEBUG: the level, 0 to 4 (1 when unset).  A level is one
 * digit.  Anything else is invalid, and stands for the nearest level: a
 * number (as strtol reads it in base 10: white space, a sign, digits, and
 * nothing after) below 0 is 0, above 4 is 4; what is no number is 1.
 * Returns SG_LEVEL_UNSET for an unset or empty value (*level untouched),
 * else SG_LEVEL_VALID or SG_LEVEL_INVALID with *level set. */

enum { SG_LEVEL_UNSET, SG_LEVEL_VALID, SG_LEVEL_INVALID };

static inline int sg_env_debug(const char *v, int *level)
{
    const char *p = v;
    int negative = 0, digits = 0, value = 0;
    if (!v || !*v)
        return SG_LEVEL_UNSET;
    if (v[0] >= '0' && v[0] <= '4' && !v[1]) {
        *level = v[0] - '0';
        return SG_LEVEL_VALID;
    }
    while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
        p++;
    if (*p == '-' || *p == '+')
        negative = *p++ == '-';
    for (; *p >= '0' && *p <= '9'; p++, digits = 1)
        value = value >= 4 ? 4 : value * 10 + (*p - '0');
    *level = !digits || *p ? 1 : negative ? 0 : value > 4 ? 4 : value;
    return SG_LEVEL_INVALID;
}

/* ------------------------------------------------------------------ */
/* The switches. */

/* STDIOGATE_DISCARD: on when set to anything but empty or 0 (the wrapper
 * sets 1): junk goes to /dev/null, not stderr. */
static inline int sg_env_discard(const char *v)
{
    return v && *v && !(v[0] == '0' && !v[1]);
}

/* STDIOGATE_GUARD: on unless 0 (--gate-only): the session guard after the
 * gate. */
static inline int sg_env_guard(const char *v)
{
    return !(v && v[0] == '0' && !v[1]);
}

/* STDIOGATE_AUTO_STRICT: on unless 0 (--gate-only): a program the library
 * cannot enter runs under the filter. */
static inline int sg_env_auto_strict(const char *v)
{
    return !(v && v[0] == '0' && !v[1]);
}

/* STDIOGATE_OPEN: the handshake is exactly 1. */
static inline int sg_env_open(const char *v)
{
    return v && v[0] == '1' && !v[1];
}

/* STDIOGATE_LOG: the file, or NULL when unset or empty. */
static inline const char *sg_env_log(const char *v)
{
    return v && *v ? v : NULL;
}

/* STDIOGATE_PROTOCOL: jsonl or framed; anything else (auto, unset) is
 * auto.  (The wrapper refuses other values before they are set.) */
static inline enum sg_protocol sg_env_protocol(const char *v)
{
    const char *jsonl = "jsonl", *framed = "framed";
    const char *a = v, *b = v;
    if (!v)
        return SG_AUTO;
    while (*jsonl && *a == *jsonl)
        a++, jsonl++;
    while (*framed && *b == *framed)
        b++, framed++;
    return !*jsonl && !*a ? SG_JSONL : !*framed && !*b ? SG_FRAMED : SG_AUTO;
}

/* ------------------------------------------------------------------ */
/* The marker, STDIOGATE_WIRE, in one of two forms:
 *
 *   DEV:INO[:PID][,open|,seen]   the wire's identity (st_dev and st_ino in
 *       decimal, as `stat -L -c %d:%i` prints them): a process diverts only
 *       if its fd 1 is that file.  :PID, a helper the program before an
 *       exec left to this one to reap; ,open: the program before handed the
 *       wire on after its gate opened (no diversion, the guard from the
 *       start); ,seen (the wrapper only, not handed on): it read this
 *       program's file and found no Bun in it.
 *   filter:PID:MIDDLE            strict mode: no wire named; PID is the
 *       process the filter was started for, MIDDLE the filter's middle
 *       process, which PID reaps at exit (lib/strict.c).
 *
 * Numbers are plain decimal; PID, and both numbers of the filter's form,
 * begin with 1 to 9 and stay below 2^31. */

#define SG_MARKER_OPEN   ",open"
#define SG_MARKER_SEEN   ",seen"
#define SG_MARKER_FILTER "filter:"

enum sg_marker_form { SG_MARKER_MALFORMED, SG_MARKER_WIRE_FORM, SG_MARKER_FILTER_FORM };

struct sg_marker {
    unsigned long long dev, ino;    /* the wire's identity */
    long helper;                    /* :PID, or 0 */
    int open, seen;
    long filter_pid, middle;        /* filter:PID:MIDDLE */
};

/* s begins with word: returns what follows it, or NULL. */
static inline const char *sg_env_after(const char *s, const char *word)
{
    while (*word && *s == *word)
        s++, word++;
    return *word ? NULL : s;
}

/* A number at *p that begins with 1 to 9 and stays below 2^31; 0 if none. */
static inline long sg_env_pid(const char **p)
{
    unsigned long long v = 0;
    const char *s = *p;
    if (*s < '1' || *s > '9')
        return 0;
    while (*s >= '0' && *s <= '9' && v < (1ULL << 31))
        v = v * 10 + (unsigned)(*s++ - '0');
    *p = s;
    return v < (1ULL << 31) ? (long)v : 0;
}

static inline enum sg_marker_form sg_marker_filter(const char *p, struct sg_marker *m)
{
    if (!(m->filter_pid = sg_env_pid(&p)) || *p++ != ':' || !(m->middle = sg_env_pid(&p)) || *p)
        return SG_MARKER_MALFORMED;
    return SG_MARKER_FILTER_FORM;
}

/* Which form s (the marker's value) has, its fields in *m. */
static inline enum sg_marker_form sg_marker_parse(const char *s, struct sg_marker *m)
{
    const char *p = s, *rest;
    *m = (struct sg_marker){ 0, 0, 0, 0, 0, 0, 0 };
    if ((rest = sg_env_after(s, SG_MARKER_FILTER)))
        return sg_marker_filter(rest, m);
    if (*p < '0' || *p > '9')
        return SG_MARKER_MALFORMED;
    while (*p >= '0' && *p <= '9')
        m->dev = m->dev * 10 + (unsigned)(*p++ - '0');
    if (*p++ != ':' || *p < '0' || *p > '9')
        return SG_MARKER_MALFORMED;
    while (*p >= '0' && *p <= '9')
        m->ino = m->ino * 10 + (unsigned)(*p++ - '0');
    if (*p == ':' && p[1] >= '1' && p[1] <= '9') {
        p++;
        if (!(m->helper = sg_env_pid(&p)))
            return SG_MARKER_MALFORMED;
    }
    m->open = (rest = sg_env_after(p, SG_MARKER_OPEN)) && !*rest;
    m->seen = (rest = sg_env_after(p, SG_MARKER_SEEN)) && !*rest;
    return *p && !m->open && !m->seen ? SG_MARKER_MALFORMED : SG_MARKER_WIRE_FORM;
}

#endif
