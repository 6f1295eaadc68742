/* SPDX-License-Identifier: MIT */
/* stream_harness.h - shared by fuzz_stream.c (libFuzzer) and stream_diff.c:
 * feed detect.h's stream classifier an input whole, byte by byte and in
 * pseudo-random pieces, as the filter does (held bytes kept aside), and check:
 *   - every byte gets a verdict, the same whatever the pieces;
 *   - never more than SG_HOLD_MAX bytes are held;
 *   - with --protocol jsonl, each message on the wire is a JSON-RPC text by
 *     an independent whole-buffer reference (below): one line, or several
 *     (pretty-printed: no line after its first begins with '{' or '['),
 *     unless the bound decided it; and each input line that is one by the
 *     reference, shorter than the bound, is on the wire whole. */
#ifndef STDIOGATE_STREAM_HARNESS_H
#define STDIOGATE_STREAM_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect.h"
#include "driver.h"

/* ---- The reference: a recursive-descent JSON parser over a whole line ---- */

struct sh_ref {
    const uint8_t *p;
    size_t n, i;
    unsigned depth;
    int deep;                   /* nested past SG_DEPTH_MAX */
    int lines;                  /* a newline is white space (a text over lines) */
};

static inline void sh_ws(struct sh_ref *r)
{
    while (r->i < r->n && (r->p[r->i] == ' ' || r->p[r->i] == '\t' || r->p[r->i] == '\r' ||
                           (r->lines && r->p[r->i] == '\n')))
        r->i++;
}

static inline int sh_hex(uint8_t c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A string at r->i; its unescaped text (ASCII only, else 0xff) in out. */
static inline int sh_string(struct sh_ref *r, char *out, size_t outsz, size_t *outlen)
{
    size_t len = 0;
    int ascii = 1;
    if (r->i >= r->n || r->p[r->i] != '"')
        return 0;
    r->i++;
    for (;;) {
        if (r->i >= r->n)
            return 0;
        uint8_t c = r->p[r->i++];
        unsigned v = c;
        if (c == '"')
            break;
        if (c < 0x20)
            return 0;
        if (c == '\\') {
            if (r->i >= r->n)
                return 0;
            /* the one-character escapes, each beside what it stands for */
            static const char escapes[] = "\"\"\\\\//b\bf\fn\nr\rt\t";
            c = r->p[r->i++];
            const char *e = NULL;
            for (size_t k = 0; k + 1 < sizeof escapes && !e; k += 2)
                if ((uint8_t)escapes[k] == c)
                    e = escapes + k;
            if (e) {
                v = (uint8_t)e[1];
            } else if (c == 'u') {
                if (r->i + 4 > r->n)
                    return 0;
                v = 0;
                for (int k = 0; k < 4; k++) {
                    uint8_t h = r->p[r->i++];
                    if (!sh_hex(h))
                        return 0;
                    v = v * 16 + (unsigned)(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
                }
            } else {
                return 0;
            }
        }
        if (v >= 0x80)
            ascii = 0;
        if (len < outsz)
            out[len] = (char)v;
        len++;
    }
    *outlen = ascii ? len : (size_t)-1;
    return 1;
}

static inline int sh_value(struct sh_ref *r);

/* The digits at r->i, taken; how many. */
static inline size_t sh_digits(struct sh_ref *r)
{
    size_t d = r->i;
    while (r->i < r->n && r->p[r->i] >= '0' && r->p[r->i] <= '9')
        r->i++;
    return r->i - d;
}

static inline int sh_number(struct sh_ref *r)
{
    size_t s = r->i;
    if (r->i < r->n && r->p[r->i] == '-')
        r->i++;
    if (r->i >= r->n)
        return 0;
    if (r->p[r->i] == '0') {
        r->i++;
    } else if (r->p[r->i] >= '1' && r->p[r->i] <= '9') {
        sh_digits(r);
    } else {
        return 0;
    }
    if (r->i < r->n && r->p[r->i] == '.') {
        r->i++;
        if (!sh_digits(r))
            return 0;
    }
    if (r->i < r->n && (r->p[r->i] == 'e' || r->p[r->i] == 'E')) {
        r->i++;
        if (r->i < r->n && (r->p[r->i] == '+' || r->p[r->i] == '-'))
            r->i++;
        if (!sh_digits(r))
            return 0;
    }
    return r->i > s;
}

/* After a member or an element: 1 at `close` (taken), 0 if the text is not
 * JSON there, -1 at a comma (taken): another one follows. */
static inline int sh_after(struct sh_ref *r, uint8_t close)
{
    sh_ws(r);
    if (r->i >= r->n)
        return 0;
    if (r->p[r->i] == close) {
        r->i++;
        return 1;
    }
    if (r->p[r->i] != ',')
        return 0;
    r->i++;
    return -1;
}

/* An object; *has_jsonrpc: it has a member named "jsonrpc". */
static inline int sh_object(struct sh_ref *r, int *has_jsonrpc)
{
    char name[16];
    size_t len;
    r->i++;                     /* '{' */
    *has_jsonrpc = 0;
    sh_ws(r);
    if (r->i < r->n && r->p[r->i] == '}') {
        r->i++;
        return 1;
    }
    for (;;) {
        sh_ws(r);
        if (!sh_string(r, name, sizeof name, &len))
            return 0;
        if (len == 7 && memcmp(name, "jsonrpc", 7) == 0)
            *has_jsonrpc = 1;
        sh_ws(r);
        if (r->i >= r->n || r->p[r->i] != ':')
            return 0;
        r->i++;
        sh_ws(r);
        if (!sh_value(r))
            return 0;
        int end = sh_after(r, '}');
        if (end >= 0)
            return end;
    }
}

static inline int sh_array(struct sh_ref *r, int batch)
{
    int elements = 0, rpc;
    r->i++;                     /* '[' */
    sh_ws(r);
    if (r->i < r->n && r->p[r->i] == ']') {
        r->i++;
        return !batch;
    }
    for (;;) {
        sh_ws(r);
        if (batch) {
            if (r->i >= r->n || r->p[r->i] != '{')
                return 0;
            if (++r->depth > SG_DEPTH_MAX) {
                r->deep = 1;
                return 0;
            }
            if (!sh_object(r, &rpc) || !rpc)
                return 0;
            r->depth--;
        } else if (!sh_value(r)) {
            return 0;
        }
        elements++;
        int end = sh_after(r, ']');
        if (end >= 0)
            return end;
    }
}

static inline int sh_value(struct sh_ref *r)
{
    /* NaN and the infinities: Python's json, the classifier's extension */
    static const char *const lits[] = { "true", "false", "null", "NaN", "Infinity", "-Infinity" };
    int ignored, ok;
    size_t len;
    char name[1];
    if (r->i >= r->n)
        return 0;
    uint8_t c = r->p[r->i];
    if (c == '{' || c == '[') {
        if (++r->depth > SG_DEPTH_MAX) {
            r->deep = 1;
            return 0;
        }
        ok = c == '{' ? sh_object(r, &ignored) : sh_array(r, 0);
        r->depth--;
        return ok;
    }
    if (c == '"')
        return sh_string(r, name, 0, &len);
    for (size_t k = 0; k < sizeof lits / sizeof *lits; k++) {
        size_t l = strlen(lits[k]);
        if (r->n - r->i >= l && memcmp(r->p + r->i, lits[k], l) == 0) {
            r->i += l;
            return 1;
        }
    }
    return sh_number(r);
}

/* Is p[0..n) a JSON-RPC message as the classifier defines it (from its '{'
 * or '[' through the newline after it; with lines, newlines are white space
 * inside it, and no line after its first begins with '{' or '[')?  -1: it
 * nests deeper than the bound (no verdict). */
static inline int sh_ref_rpc_text(const uint8_t *p, size_t n, int lines)
{
    struct sh_ref r = { p, n, 0, 1, 0, lines };
    int rpc = 0, ok;
    if (n < 2 || p[n - 1] != '\n' || (!lines && memchr(p, '\n', n - 1) != NULL))
        return 0;
    for (size_t k = 0; k + 2 < n; k++)
        if (p[k] == '\n' && (p[k + 1] == '{' || p[k + 1] == '['))
            return 0;
    r.n = n - 1;
    if (p[0] == '{')
        ok = sh_object(&r, &rpc) && rpc;
    else if (p[0] == '[')
        ok = sh_array(&r, 1);
    else
        return 0;
    if (r.deep)
        return -1;
    if (!ok)
        return 0;
    sh_ws(&r);
    return r.i == r.n;
}

/* The same, on one line. */
static inline int sh_ref_rpc_line(const uint8_t *p, size_t n)
{
    return sh_ref_rpc_text(p, n, 0);
}

/* ---- Feeding the classifier ---- */

/* Labels (enum sg_verdict) for every byte, fed in pieces from *rng, and
 * at the last byte of every candidate decided SG_WIRE, whether it is an
 * answer (sg_stream_answer: the fail-safe's proof; 2, else 1; 0 elsewhere):
 * whole, a line read at once (sg_json_line) or byte by byte, the same.
 * Returns NULL or what went wrong. */
static inline const char *sh_label(const uint8_t *p, size_t n, enum sg_protocol proto, uint64_t *rng,
                                   uint8_t *labels, uint8_t *answers)
{
    static struct sg_stream s;
    size_t off = 0, undecided = 0;
    sg_stream_init(&s, proto);
    memset(labels, SG_UNDECIDED, n);
    memset(answers, 0, n);
    while (off < n) {
        size_t len = fz_piece(rng, n - off, 70000);
        size_t end = off + len, at = off;
        while (at < end) {
            enum sg_verdict v;
            int candidate = s.where != SW_LINE && s.where != SW_VALUE && s.where != SW_BODY;
            size_t k = sg_stream_scan(&s, p + at, end - at, &v);
            if (k > end - at)
                return "scan took more than it was given";
            at += k;
            if (v == SG_UNDECIDED) {
                if (at != end)
                    return "undecided before the end of the piece";
                break;
            }
            if (v != SG_WIRE && v != SG_JUNK)
                return "bad verdict";
            if (k == 0 && undecided == at)
                return "no progress";
            if (v == SG_WIRE && candidate && at > undecided)
                answers[at - 1] = sg_stream_answer(&s) ? 2 : 1;
            memset(labels + undecided, v, at - undecided);
            undecided = at;
        }
        off = end;
        if (off - undecided != s.held)
            return "held count disagrees with the undecided bytes";
        if (s.held > SG_HOLD_MAX)
            return "more than SG_HOLD_MAX bytes held";
    }
    enum sg_verdict v = sg_stream_end(&s);
    if ((v == SG_UNDECIDED) != (undecided == n))
        return "end verdict disagrees with the undecided bytes";
    memset(labels + undecided, SG_JUNK, n - undecided);
    return NULL;
}

/* jsonl: the wire holds JSON-RPC lines, and every such line of the input. */
static inline const char *sh_check_jsonl(const uint8_t *p, size_t n, const uint8_t *labels)
{
    size_t i = 0;
    while (i < n) {
        if (labels[i] != SG_WIRE) {
            i++;
            continue;
        }
        /* the message: through the first newline on the wire where the
         * text from i is a whole one (it may go on over lines) */
        size_t e = i;
        int ref = 0;
        for (;;) {
            while (e < n && labels[e] == SG_WIRE && p[e] != '\n')
                e++;
            if (!(e < n && labels[e] == SG_WIRE))
                break;
            e++;                /* through the newline */
            ref = sh_ref_rpc_text(p + i, e - i, 1);
            if (ref != 0 || e - i >= SG_HOLD_MAX || !(e < n && labels[e] == SG_WIRE))
                break;
        }
        ref = sh_ref_rpc_text(p + i, e - i, 1);
        if (ref == -1 || (ref == 0 && e - i >= SG_HOLD_MAX)) {
            /* decided by the bound (its byte may be a newline: a message
             * may go on over lines); one over lines at the bound streams
             * through its close, past newlines (the rest of the run is not
             * checked) */
            size_t head = e - i < SG_HOLD_MAX ? e - i : SG_HOLD_MAX;
            if (memchr(p + i, '\n', head) != NULL)
                while (e < n && labels[e] == SG_WIRE)
                    e++;
            i = e;
            continue;
        }
        if (ref == 0 && !(e == n && p[n - 1] != '\n'))
            return "a message on the wire that the reference rejects";
        i = e;
    }
    for (size_t s = 0; s < n;) {
        const uint8_t *nl = memchr(p + s, '\n', n - s);
        size_t e = nl ? (size_t)(nl - p) + 1 : n;
        if (e - s < SG_HOLD_MAX && sh_ref_rpc_line(p + s, e - s) == 1) {
            for (size_t k = s; k < e; k++)
                if (labels[k] != SG_WIRE)
                    return "a JSON-RPC line of the input not on the wire";
        }
        s = e;
    }
    return NULL;
}

/* guard_whole's shortcut (sg_stream_one_line) on each line of the input,
 * alone and with the rest of the input after it: the same answer as the
 * line parser after memchr found the newline, and yes only for bytes that
 * a fresh stream of that framing takes whole as the wire. */
static inline const char *sh_check_one_line(const uint8_t *p, size_t n, enum sg_protocol proto)
{
    static struct sg_stream s;
    for (size_t at = 0; at < n;) {
        const uint8_t *nl = memchr(p + at, '\n', n - at);
        size_t line = nl ? (size_t)(nl - p) + 1 - at : n - at;
        size_t lens[2] = { line, n - at };
        for (int k = 0; k < 2; k++) {
            size_t len = lens[k], off = 0;
            unsigned char keys;
            int fast = sg_stream_one_line(proto, p + at, len);
            int slow = sg_json_opens(proto, p[at]) && sg_json_line(p + at, len, &keys) == len;
            if (fast != slow)
                return "sg_stream_one_line differs from sg_json_line";
            if (!fast || proto == SG_AUTO)
                continue;
            sg_stream_init(&s, proto);
            while (off < len) {
                enum sg_verdict v;
                off += sg_stream_scan(&s, p + at + off, len - off, &v);
                if (v == SG_JUNK)
                    return "sg_stream_one_line takes a line that a fresh stream calls junk";
            }
            if (s.where != SW_OUTSIDE || s.held)
                return "sg_stream_one_line takes a line that a fresh stream does not end";
        }
        at += line;
    }
    return NULL;
}

/* Everything on one input.  NULL if all is well. */
static inline const char *sh_check(const uint8_t *p, size_t n, enum sg_protocol proto, int splits,
                                   char *msg, size_t msgsz)
{
    uint8_t *whole = malloc(n + 1), *other = malloc(n + 1), *wa = malloc(n + 1), *oa = malloc(n + 1);
    const char *why = NULL;
    if (!whole || !other || !wa || !oa)
        abort();
    why = sh_label(p, n, proto, FZ_WHOLE, whole, wa);
    if (!why && !(why = sh_label(p, n, proto, FZ_BYTEWISE, other, oa)) && memcmp(whole, other, n) != 0)
        why = "byte by byte differs from whole";
    if (!why && memcmp(wa, oa, n) != 0)
        why = "byte by byte, a message is an answer or not other than whole";
    uint64_t seed = n * 0x632be59bd9b4e019ULL + (n ? p[0] : 0);
    for (int k = 0; !why && k < splits; k++) {
        uint64_t rng = seed + (uint64_t)k;
        why = sh_label(p, n, proto, &rng, other, oa);
        if (!why && memcmp(whole, other, n) != 0)
            why = "random pieces differ from whole";
        if (!why && memcmp(wa, oa, n) != 0)
            why = "in random pieces, a message is an answer or not other than whole";
    }
    if (!why && proto == SG_JSONL)
        why = sh_check_jsonl(p, n, whole);
    if (!why)
        why = sh_check_one_line(p, n, proto);
    free(whole);
    free(other);
    free(wa);
    free(oa);
    if (why) {
        snprintf(msg, msgsz, "detect.h stream classifier: %s", why);
        return msg;
    }
    return NULL;
}

#endif
