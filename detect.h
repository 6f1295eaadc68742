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

/* ------------------------------------------------------------------ */
/* Recognising an answer in what a server writes (shim.c's fail-safe).
 *
 * Fed the bytes of one write, in pieces (the iovecs of a writev), it says
 * whether they hold a complete protocol answer, and where it began:
 *   - a JSON-RPC response on one line: a top-level object with "jsonrpc",
 *     "id" and "result" or "error" members, from the start of a line to its
 *     closing brace (what follows on the line does not matter);
 *   - a Content-Length frame: header lines (Content-Length, Content-Type)
 *     and a blank line from the start of a line, then the whole body.
 * The start of the bytes counts as the start of a line: a write cannot know
 * where the previous one left the line.  State is a few words, no buffer.
 */

enum sg_answer_mode {
    SGA_LINE_START, /* at the start of a line (blanks skipped) */
    SGA_SKIP,       /* not an answer: up to the end of the line */
    SGA_JSON,       /* inside a candidate object */
    SGA_HEADER,     /* a candidate Content-Length header block */
    SGA_BODY,       /* counting down its body */
    SGA_FOUND
};

/* Top-level keys an answer needs, as bits of sg_answer.seen. */
#define SGA_KEY_JSONRPC 1u
#define SGA_KEY_ID 2u
#define SGA_KEY_RESULT 4u
#define SGA_KEY_ERROR 8u

/* Header names a frame may carry, as bits of sg_answer.names. */
#define SGA_NAME_LENGTH 1u
#define SGA_NAME_TYPE 2u

struct sg_answer {
    unsigned long long pos;     /* bytes fed so far */
    unsigned long long start;   /* where the current candidate began */
    unsigned long long depth;   /* JSON nesting, saturating */
    unsigned long long length;  /* Content-Length value, then body left */
    unsigned char mode;
    unsigned char in_string;
    unsigned char escaped;
    unsigned char expect_key;   /* the next string at depth 1 is a key */
    unsigned char in_key;
    unsigned char keys;         /* SGA_KEY_* the key being read may still be */
    unsigned char key_len;      /* its bytes so far, saturating */
    unsigned char seen;         /* SGA_KEY_* seen at the top level */
    unsigned char names;        /* SGA_NAME_* the header name may still be */
    unsigned char name_len;
    unsigned char in_value;     /* past the header line's colon */
    unsigned char digits;       /* Content-Length: 0 none, 1 reading, 2 done */
    unsigned char line_bytes;   /* the header line has bytes other than CR */
    unsigned char has_length;
};

static inline void sg_answer_init(struct sg_answer *a)
{
    *a = (struct sg_answer){ .mode = SGA_LINE_START };
}

static inline const char *sg_answer_key(unsigned bit)
{
    switch (bit) {
    case SGA_KEY_JSONRPC: return "jsonrpc";
    case SGA_KEY_ID: return "id";
    case SGA_KEY_RESULT: return "result";
    default: return "error";
    }
}

/* One byte of a top-level key (the closing quote excluded). */
static inline void sg_answer_key_byte(struct sg_answer *a, unsigned char c)
{
    for (unsigned bit = 1; bit <= SGA_KEY_ERROR; bit <<= 1) {
        const char *k = sg_answer_key(bit);
        unsigned i = 0;
        while (i < a->key_len && k[i])
            i++;
        if ((a->keys & bit) && (i < a->key_len || !k[i] || (unsigned char)k[i] != c))
            a->keys &= (unsigned char)~bit;
    }
    if (a->key_len < 0xff)
        a->key_len++;
}

static inline void sg_answer_key_end(struct sg_answer *a)
{
    for (unsigned bit = 1; bit <= SGA_KEY_ERROR; bit <<= 1) {
        const char *k = sg_answer_key(bit);
        unsigned i = 0;
        while (k[i])
            i++;
        if ((a->keys & bit) && i == a->key_len)
            a->seen |= (unsigned char)bit;
    }
    a->in_key = 0;
}

static inline int sg_answer_complete(const struct sg_answer *a)
{
    return (a->seen & SGA_KEY_JSONRPC) && (a->seen & SGA_KEY_ID) &&
           (a->seen & (SGA_KEY_RESULT | SGA_KEY_ERROR));
}

/* One byte of a candidate object.  Returns 1 when it closed as an answer. */
static inline int sg_answer_json(struct sg_answer *a, unsigned char c)
{
    if (c == '\n') {                /* an answer is one line */
        a->mode = SGA_LINE_START;
        return 0;
    }
    if (a->in_string) {
        if (a->escaped) {
            a->escaped = 0;
        } else if (c == '\\') {
            a->escaped = 1;
            a->keys = 0;            /* no key we want is spelled with escapes */
        } else if (c == '"') {
            a->in_string = 0;
            if (a->in_key)
                sg_answer_key_end(a);
        } else if (a->in_key) {
            sg_answer_key_byte(a, c);
        }
        return 0;
    }
    switch (c) {
    case '"':
        a->in_string = 1;
        if (a->depth == 1 && a->expect_key) {
            a->in_key = 1;
            a->keys = SGA_KEY_JSONRPC | SGA_KEY_ID | SGA_KEY_RESULT | SGA_KEY_ERROR;
            a->key_len = 0;
        }
        a->expect_key = 0;
        return 0;
    case ',':
        if (a->depth == 1)
            a->expect_key = 1;
        return 0;
    case '{':
    case '[':
        if (a->depth != SG_DEPTH_CAP)
            a->depth++;
        return 0;
    case '}':
    case ']':
        if (--a->depth != 0)
            return 0;
        if (sg_answer_complete(a))
            return 1;
        a->mode = SGA_SKIP;         /* an object, but no answer */
        return 0;
    default:
        return 0;
    }
}

/* One byte of a header line's name, other than CR and LF. */
static inline void sg_answer_name_byte(struct sg_answer *a, unsigned char c)
{
    static const char length[] = "content-length", type[] = "content-type";
    if (c == ':') {
        if ((a->names & SGA_NAME_LENGTH) && a->name_len == sizeof length - 1)
            a->names = SGA_NAME_LENGTH;
        else if ((a->names & SGA_NAME_TYPE) && a->name_len == sizeof type - 1)
            a->names = SGA_NAME_TYPE;
        else
            a->names = 0;
        a->in_value = 1;
        if (!a->names)
            a->mode = SGA_SKIP;
        return;
    }
    c = sg_lower(c);
    if (a->name_len >= sizeof length - 1 || (unsigned char)length[a->name_len] != c)
        a->names &= (unsigned char)~SGA_NAME_LENGTH;
    if (a->name_len >= sizeof type - 1 || (unsigned char)type[a->name_len] != c)
        a->names &= (unsigned char)~SGA_NAME_TYPE;
    a->name_len++;
    if (!a->names)
        a->mode = SGA_SKIP;
}

/* One byte of a Content-Length value, other than CR and LF. */
static inline void sg_answer_length_byte(struct sg_answer *a, unsigned char c)
{
    if (c >= '0' && c <= '9' && a->digits < 2) {
        a->digits = 1;
        if (a->length <= SG_MAX_CONTENT_LENGTH)
            a->length = a->length * 10 + (unsigned)(c - '0');
    } else if (sg_is_blank(c)) {
        if (a->digits)
            a->digits = 2;
    } else {
        a->mode = SGA_SKIP;
    }
}

/* A header line ended (its LF).  Returns 1 when the frame is complete. */
static inline int sg_answer_header_end(struct sg_answer *a)
{
    if (!a->line_bytes) {           /* the blank line: the body follows */
        if (!a->has_length || a->length == 0 || a->length > SG_MAX_CONTENT_LENGTH) {
            a->mode = SGA_LINE_START;
            return 0;
        }
        a->mode = SGA_BODY;
        return 0;
    }
    if (!a->in_value || (a->names == SGA_NAME_LENGTH && a->digits == 0)) {
        a->mode = SGA_LINE_START;   /* no "name: value": not a header */
        return 0;
    }
    if (a->names == SGA_NAME_LENGTH) {
        if (a->has_length) {        /* two lengths: not a frame to trust */
            a->mode = SGA_LINE_START;
            return 0;
        }
        a->has_length = 1;
    }
    a->line_bytes = 0;
    a->in_value = 0;
    a->name_len = 0;
    a->names = SGA_NAME_LENGTH | SGA_NAME_TYPE;
    return 0;
}

static inline int sg_answer_header(struct sg_answer *a, unsigned char c)
{
    if (c == '\r')
        return 0;
    if (c == '\n')
        return sg_answer_header_end(a);
    a->line_bytes = 1;
    if (!a->in_value)
        sg_answer_name_byte(a, c);
    else if (a->names == SGA_NAME_LENGTH)
        sg_answer_length_byte(a, c);
    return 0;
}

/* A line starts with c (a->pos is its offset): begin a candidate. */
static inline void sg_answer_line_start(struct sg_answer *a, unsigned char c)
{
    if (c == '\n' || c == '\r' || sg_is_blank(c))
        return;
    if (c == '{') {
        a->mode = SGA_JSON;
        a->depth = 1;
        a->in_string = a->escaped = a->in_key = 0;
        a->expect_key = 1;
        a->seen = 0;
    } else if (sg_lower(c) == 'c') {
        a->mode = SGA_HEADER;
        a->names = SGA_NAME_LENGTH | SGA_NAME_TYPE;
        a->name_len = 0;
        a->in_value = 0;
        a->digits = 0;
        a->length = 0;
        a->has_length = 0;
        a->line_bytes = 0;
        sg_answer_header(a, c);
    } else {
        a->mode = SGA_SKIP;
    }
}

/* Feed n bytes.  Returns 1 once a complete answer has ended: a->start is
 * the offset (counted over everything fed) of its first byte, the '{' or
 * the first letter of its headers; blanks before it on its line are not
 * part of it.  Then it stays found. */
static inline int sg_answer_feed(struct sg_answer *a, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n && a->mode != SGA_FOUND; i++, a->pos++) {
        unsigned char c = p[i];
        switch (a->mode) {
        case SGA_LINE_START:
            if (c == '\n' || c == '\r' || sg_is_blank(c)) {
                if (c == '\n')
                    a->start = a->pos + 1;
                break;
            }
            a->start = a->pos;
            sg_answer_line_start(a, c);
            break;
        case SGA_SKIP:
            if (c == '\n') {
                a->mode = SGA_LINE_START;
                a->start = a->pos + 1;
            }
            break;
        case SGA_JSON:
            if (sg_answer_json(a, c))
                a->mode = SGA_FOUND;
            else if (a->mode == SGA_LINE_START)
                a->start = a->pos + 1;
            break;
        case SGA_HEADER:
            /* a line that cannot be a header may be an answer itself */
            if (!a->line_bytes && c != '\r' && c != '\n' && sg_lower(c) != 'c') {
                a->start = a->pos;
                sg_answer_line_start(a, c);
                break;
            }
            sg_answer_header(a, c);
            if (a->mode == SGA_LINE_START)
                a->start = a->pos + 1;
            break;
        case SGA_BODY: {
            size_t avail = n - i;
            if ((unsigned long long)avail >= a->length) {
                i += (size_t)a->length - 1;
                a->pos += a->length - 1;
                a->length = 0;
                a->mode = SGA_FOUND;
            } else {
                a->length -= avail;
                a->pos += avail - 1;
                i = n - 1;
            }
            break;
        }
        default:
            break;
        }
    }
    return a->mode == SGA_FOUND;
}

/* One buffer: does it hold a complete answer?  *start: where it begins. */
static inline int sg_answer_find(const void *p, size_t n, size_t *start)
{
    struct sg_answer a;
    sg_answer_init(&a);
    if (!sg_answer_feed(&a, (const unsigned char *)p, n))
        return 0;
    *start = (size_t)a.start;
    return 1;
}

#endif
