/* SPDX-License-Identifier: MIT */
/* harness.h - shared by the libFuzzer target and the differential test:
 * feed detect.h an input whole, byte by byte and in pseudo-random chunks,
 * check the state stays bounded after every call, and compare the end
 * offsets with each other and with the whole-buffer reference. */
#ifndef STDIOGATE_HARNESS_H
#define STDIOGATE_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "detect.h"
#include "driver.h"
#include "reference.h"

/* "State is a few machine words whatever the input." */
_Static_assert(sizeof(struct sg_detect) <= 64, "detector state is not a few words");

static inline uint64_t h_hash(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

/* Non-zero (a description) if the state is out of bounds after `fed` bytes. */
static inline const char *h_state_problem(const struct sg_detect *d, size_t fed)
{
    if (d->mode > SG_DONE)
        return "mode out of range";
    if (d->in_string > 1 || d->escaped > 1 || (d->escaped && !d->in_string))
        return "string flags out of range";
    if (d->name_len > 14 && d->name_len != 0xff)
        return "name_len out of range";
    if (d->field > SG_IGNORED)
        return "field out of range";
    if (d->line_bytes > 1 || d->first_line > 1 || d->has_length > 1 || d->bad_length > 1 ||
        d->length_line > 1 || d->line_bad > 1 || d->value_digits > 1)
        return "flag out of range";
    if (d->depth > fed)
        return "depth larger than the bytes fed";
    if (d->mode == SG_JSON && d->depth == 0)
        return "JSON mode at depth 0";
    if (d->value > SG_MAX_CONTENT_LENGTH * 10 + 9)
        return "value unbounded";
    if (d->length > SG_MAX_CONTENT_LENGTH)
        return "length unbounded";
    if (d->mode == SG_BODY && d->length == 0)
        return "body with nothing left";
    return NULL;
}

struct h_result {
    size_t end;                 /* 0: no end found, else offset+1 of the last byte */
    const char *problem;        /* contract violation, or NULL */
};

/* Feed p[0..n) in chunks; chunk sizes come from *rng (FZ_WHOLE: whole;
 * FZ_BYTEWISE: one byte at a time; driver.h). */
static inline struct h_result h_feed(const uint8_t *p, size_t n, uint64_t *rng)
{
    struct sg_detect d;
    struct h_result r = { 0, NULL };
    sg_detect_init(&d);
    size_t off = 0;
    while (off < n) {
        size_t len = fz_piece(rng, n - off, 4096);
        int was_done = sg_detect_done(&d);
        size_t k = sg_detect_feed(&d, p + off, len);
        if (k > len) {
            r.problem = "feed returned more than it was given";
            return r;
        }
        if (was_done && k != 0) {
            r.problem = "feed returned an end after the message was done";
            return r;
        }
        if (k != 0) {
            if (r.end != 0) {
                r.problem = "two ends reported";
                return r;
            }
            if (!sg_detect_done(&d)) {
                r.problem = "end reported but sg_detect_done() is false";
                return r;
            }
            r.end = off + k;
        } else if (sg_detect_done(&d) && !was_done) {
            r.problem = "sg_detect_done() became true without an end";
            return r;
        }
        off += len;
        const char *why = h_state_problem(&d, off);
        if (why != NULL) {
            r.problem = why;
            return r;
        }
    }
    return r;
}

/* Everything checked on one input.  Returns NULL if all is well, else a
 * description (written into msg). */
static inline const char *h_check(const uint8_t *p, size_t n, int splits, char *msg, size_t msgsz)
{
    size_t want = ref_first_message_end(p, n);
    struct h_result whole = h_feed(p, n, FZ_WHOLE);
    if (whole.problem) {
        snprintf(msg, msgsz, "whole: %s", whole.problem);
        return msg;
    }
    struct h_result bytes = h_feed(p, n, FZ_BYTEWISE);
    if (bytes.problem) {
        snprintf(msg, msgsz, "byte by byte: %s", bytes.problem);
        return msg;
    }
    if (whole.end != bytes.end) {
        snprintf(msg, msgsz, "whole ends at %zu, byte by byte at %zu", whole.end, bytes.end);
        return msg;
    }
    uint64_t seed = h_hash(p, n);
    for (int s = 0; s < splits; s++) {
        uint64_t rng = seed + (uint64_t)s * 0x632be59bd9b4e019ULL;
        struct h_result c = h_feed(p, n, &rng);
        if (c.problem) {
            snprintf(msg, msgsz, "chunks (split %d): %s", s, c.problem);
            return msg;
        }
        if (c.end != whole.end) {
            snprintf(msg, msgsz, "whole ends at %zu, chunked (split %d) at %zu", whole.end, s, c.end);
            return msg;
        }
    }
    if (whole.end != want) {
        snprintf(msg, msgsz, "detector ends at %zu, reference at %zu", whole.end, want);
        return msg;
    }
    return NULL;
}

/* Print an input as a C string literal. */
static inline void h_print_c(FILE *f, const uint8_t *p, size_t n)
{
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        unsigned c = p[i];
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\r')
            fputs("\\r", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c >= 32 && c < 127)
            fputc((int)c, f);
        else
            fprintf(f, "\\x%02x\"\"", c);
    }
    fputc('"', f);
}

#endif
