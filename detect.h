/* SPDX-License-Identifier: MIT */
/* detect.h - find where the client's first message ends in a byte stream.
 *
 * Fed the bytes a server reads from stdin, in any number of pieces, it says
 * at which byte the first complete message ended:
 *   - newline-delimited JSON (MCP stdio): the earlier of the line's newline
 *     and the close of its top-level JSON value, because some readers stop at
 *     the closing brace and answer before they read the newline;
 *   - Content-Length framing (LSP, DAP): the last byte of the body.
 * Leading blank lines (and CRLF) are skipped.  State is a few machine words
 * whatever the input: no message is ever buffered.
 *
 * Header-only so that the fuzz and differential tests use this very code.
 * No libc calls: it runs inside read(2) interposers.
 */
#ifndef STDIOGATE_DETECT_H
#define STDIOGATE_DETECT_H

#include <stddef.h>

enum sg_mode {
    SG_START,   /* skipping leading white space */
    SG_JSON,    /* inside a JSON object or array */
    SG_LINE,    /* some other line: ends at its newline */
    SG_HEADER,  /* Content-Length style header block */
    SG_BODY,    /* counting down the body */
    SG_DONE
};

/* A Content-Length beyond this is taken as garbage, not as a promise. */
#define SG_MAX_CONTENT_LENGTH (1ULL << 40)
#define SG_DEPTH_CAP (~0ULL)

struct sg_detect {
    unsigned char mode;
    unsigned char in_string;
    unsigned char escaped;
    unsigned char name_len;     /* bytes of "content-length" matched, 0xff: no */
    unsigned char field;        /* enum sg_field */
    unsigned char line_bytes;   /* header line has bytes other than CR */
    unsigned char first_line;   /* still on the first header line */
    unsigned char length_line;  /* this header line is a Content-Length */
    unsigned char line_bad;     /* ... with a value that is not a number */
    unsigned char has_length;   /* a valid Content-Length was seen */
    unsigned char bad_length;   /* an invalid one was */
    unsigned char value_digits; /* the value has a digit */
    unsigned long long depth;   /* JSON nesting, saturating */
    unsigned long long length;  /* last valid Content-Length, then body left */
    unsigned long long value;   /* Content-Length being read */
};

/* Where a header line is. */
enum sg_field { SG_NAME, SG_BEFORE_VALUE, SG_DIGITS, SG_AFTER_VALUE, SG_IGNORED };

static inline void sg_detect_init(struct sg_detect *d)
{
    *d = (struct sg_detect){ .mode = SG_START };
}

static inline int sg_detect_done(const struct sg_detect *d)
{
    return d->mode == SG_DONE;
}

static inline int sg_is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static inline int sg_is_blank(unsigned char c)
{
    return c == ' ' || c == '\t';
}

static inline unsigned char sg_lower(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + ('a' - 'A')) : c;
}

/* One byte of JSON text.  Returns 1 when the message ended: its top-level
 * value closed, or its line did (a one-line JSON text holds no raw newline,
 * so a line reader has the whole line at that byte, escape or not). */
static inline int sg_json_byte(struct sg_detect *d, unsigned char c)
{
    if (c == '\n')
        return 1;
    if (d->in_string) {
        if (d->escaped)
            d->escaped = 0;
        else if (c == '\\')
            d->escaped = 1;
        else if (c == '"')
            d->in_string = 0;
        return 0;
    }
    switch (c) {
    case '"':
        d->in_string = 1;
        return 0;
    case '{':
    case '[':
        if (d->depth != SG_DEPTH_CAP)
            d->depth++;
        return 0;
    case '}':
    case ']':
        return --d->depth == 0;
    default:
        return 0;
    }
}

/* The header block ended (an empty line).  Returns 1 if the message did too. */
static inline int sg_headers_end(struct sg_detect *d)
{
    if (!d->has_length || d->bad_length || d->length == 0)
        return 1;
    d->mode = SG_BODY;
    return 0;
}

/* One byte of a header line other than CR and LF. */
static inline void sg_field_byte(struct sg_detect *d, unsigned char c)
{
    static const char name[] = "content-length";
    switch (d->field) {
    case SG_NAME:
        if (c == ':') {
            d->length_line = d->name_len == sizeof name - 1;
            d->field = d->length_line ? SG_BEFORE_VALUE : SG_IGNORED;
        } else if (d->name_len < sizeof name - 1 && sg_lower(c) == (unsigned char)name[d->name_len]) {
            d->name_len++;
        } else {
            d->name_len = 0xff;
        }
        return;
    case SG_BEFORE_VALUE:
        if (sg_is_blank(c))
            return;
        d->field = SG_DIGITS;
        /* fall through */
    case SG_DIGITS:
        if (c >= '0' && c <= '9') {
            if (d->value <= SG_MAX_CONTENT_LENGTH)
                d->value = d->value * 10 + (unsigned)(c - '0');
        } else if (sg_is_blank(c) && d->value_digits) {
            d->field = SG_AFTER_VALUE;
        } else {
            d->line_bad = 1;
            d->field = SG_IGNORED;
        }
        if (c >= '0' && c <= '9')
            d->value_digits = 1;
        return;
    case SG_AFTER_VALUE:
        if (!sg_is_blank(c)) {
            d->line_bad = 1;
            d->field = SG_IGNORED;
        }
        return;
    default:
        return;
    }
}

/* A header line (not the empty one) ended. */
static inline void sg_header_line_end(struct sg_detect *d)
{
    if (d->length_line) {
        if (!d->line_bad && d->value_digits && d->value <= SG_MAX_CONTENT_LENGTH) {
            d->has_length = 1;
            d->length = d->value;
        } else {
            d->bad_length = 1;
        }
    }
    d->first_line = 0;
    d->line_bytes = 0;
    d->name_len = 0;
    d->field = SG_NAME;
    d->length_line = 0;
    d->line_bad = 0;
    d->value_digits = 0;
    d->value = 0;
}

/* One byte of the header block.  Returns 1 when the message ended. */
static inline int sg_header_byte(struct sg_detect *d, unsigned char c)
{
    if (c == '\r')
        return 0;
    if (c != '\n') {
        d->line_bytes = 1;
        sg_field_byte(d, c);
        return 0;
    }
    if (!d->line_bytes)
        return sg_headers_end(d);
    /* A first line with no "name:" is not a header: it was a plain line. */
    if (d->first_line && d->field == SG_NAME)
        return 1;
    sg_header_line_end(d);
    return 0;
}

/* Feed n bytes.  Returns 0 while the first message is incomplete, else k
 * (1..n): the message ended with p[k-1].  Once done, it stays done and
 * further bytes return 0. */
static inline size_t sg_detect_feed(struct sg_detect *d, const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = p[i++];
        switch (d->mode) {
        case SG_START:
            if (sg_is_space(c))
                break;
            if (c == '{' || c == '[') {
                d->mode = SG_JSON;
                d->depth = 1;
            } else if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')) {
                d->mode = SG_HEADER;
                d->first_line = 1;
                d->line_bytes = 1;
                d->name_len = 0;
                sg_field_byte(d, c);
            } else {
                d->mode = SG_LINE;
            }
            break;
        case SG_JSON:
            if (sg_json_byte(d, c))
                goto done;
            break;
        case SG_LINE:
            if (c == '\n')
                goto done;
            break;
        case SG_HEADER:
            if (sg_header_byte(d, c))
                goto done;
            break;
        case SG_BODY: {
            /* this byte plus up to length-1 more */
            size_t avail = n - i + 1;
            if ((unsigned long long)avail >= d->length) {
                i += (size_t)(d->length - 1);
                d->length = 0;
                goto done;
            }
            d->length -= avail;
            i = n;
            break;
        }
        default:
            return 0;
        }
    }
    return 0;
done:
    d->mode = SG_DONE;
    return i;
}

#endif
