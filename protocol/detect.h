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
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
    unsigned char ended;        /* the mode the first message ended in */
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
    d->ended = d->mode;
    d->mode = SG_DONE;
    return i;
}

/* ------------------------------------------------------------------------
 * The stream classifier (strict mode: stdiogate-filter, filter/relay.c).
 *
 * Fed what a server writes on stdout, in any number of pieces, it says of
 * every byte whether it is protocol (the wire) or junk (stderr), in order.
 * A byte is decided once and never revisited; the bytes not decided yet are
 * always the current candidate message, at most SG_HOLD_MAX of them, so the
 * caller needs no more memory than that whatever the input.
 *
 * Newline-delimited JSON (MCP): a message is a JSON text (RFC 8259, with
 * the literals NaN, Infinity and -Infinity as numbers, as Python's json
 * module writes them by default and its readers accept them) that is
 * an object with a member named "jsonrpc" at its top level (the name
 * compared after unescaping, so "json\u0072pc" counts), or a batch: an array
 * of one or more such objects.  It starts at its '{' or '[' and ends with
 * the newline after it; spaces, tabs and CRs may stand between its close and
 * the newline (a trailing \r passes).  Whatever precedes the '{' on its line
 * (glued junk, a UTF-8 BOM, white space) is junk.  A candidate that fails is
 * junk up to the byte where it failed, and scanning resumes at that byte (a
 * '{' there starts a new candidate; a '{' inside the failed one does not).
 *
 * Content-Length framing (LSP, DAP): a frame is a header block, each
 * header line "Name: value\r\n" (a name of token characters, any of them,
 * in any order: vscode-jsonrpc reads every header and looks Content-Length
 * up among them), then "\r\n", holding one valid Content-Length, and the
 * body of that many bytes, whatever they are.  It starts at a 'C' or 'c'
 * anywhere (glued junk before "Content-Length" is split off), or at any
 * name that begins a line (or follows a message).  A header block without
 * a Content-Length, or longer than SG_HEADER_MAX bytes, is junk.
 *
 * The bound: a JSON candidate still undecided at its SG_HOLD_MAX-th byte
 * (or nested deeper than SG_DEPTH_MAX) is decided there, at that exact byte:
 * protocol if every top-level member name so far is a JSON-RPC one (jsonrpc,
 * id, method, params, result, error) and there is at least one, else junk.
 * Protocol then streams to the wire through the next newline unchecked.
 *
 * SG_AUTO decides the protocol with the first message that reaches the wire
 * and keeps it; after that a candidate of the other kind does not start.
 * Header-only, like the detector above; its one libc call is memchr.
 */

enum sg_protocol { SG_AUTO, SG_JSONL, SG_FRAMED };

/* The framing of the client's first message, once the detector has it
 * whole: JSON lines, Content-Length frames, or neither (SG_AUTO: a plain
 * line, a header block without a valid Content-Length). */
static inline enum sg_protocol sg_detect_framing(const struct sg_detect *d)
{
    if (d->mode != SG_DONE)
        return SG_AUTO;
    if (d->ended == SG_JSON)
        return SG_JSONL;
    if (d->ended == SG_BODY || (d->ended == SG_HEADER && d->has_length && !d->bad_length))
        return SG_FRAMED;
    return SG_AUTO;
}
enum sg_verdict { SG_UNDECIDED, SG_WIRE, SG_JUNK };

#define SG_HOLD_MAX 65536
#define SG_HEADER_MAX 4096
#define SG_DEPTH_MAX 4096

/* ------------------------------------------------------------------------
 * A frame's body, read for what it is (sg_reply).
 *
 * Two decisions look into a frame's body.  While the framing is not fixed
 * (SG_AUTO), a frame is protocol only if its body is a JSON-RPC or DAP
 * message: a JSON object with "jsonrpc" or "method" (or an answer's names,
 * below), or DAP's "seq" and "type", at its top level (sg_reply_message).  A JSON-lines server's raw HTTP response holds a
 * Content-Length block too, and its body is none: taken for a frame, it
 * fixed the session to frames and every answer after it went to stderr.
 * And a frame proves that the server has read a request (the fail-safe)
 * only if its body is an answer: "id" and "result" or "error" (JSON-RPC:
 * LSP) or "request_seq" (a DAP response) at its top level
 * (sg_reply_answer).  Read as the body passes, in a few words of state:
 * names are compared as written (a name with an escape matches none), white
 * space may be anywhere (LSP readers parse the body whole, so it may span
 * lines), and the JSON is not checked further.  A body cut at the bound is
 * taken in doubt (sg_reply_may_message, sg_reply_may_answer).
 */

enum sg_reply_where { SR_START, SR_OBJECT, SR_CLOSED, SR_NOT };

/* Top-level member names that tell a message (an answer: sg_stream_answer,
 * sg_reply_answer), as bits of sg_stream.keys (the first five) and of
 * sg_reply.keys. */
#define SGK_JSONRPC 1u
#define SGK_ID 2u
#define SGK_RESULT 4u
#define SGK_ERROR 8u
#define SGK_METHOD 16u
#define SGK_REQUEST_SEQ 32u
#define SGK_EVENT 64u
#define SGK_SEQ 128u
#define SGK_TYPE 256u

struct sg_reply {
    unsigned char where;        /* enum sg_reply_where */
    unsigned char in_string, escaped;
    unsigned char want_name;    /* a string here is a top-level member name */
    unsigned char in_name;      /* reading one */
    unsigned char name_len;     /* its bytes (name[]), 0xff: none of ours */
    unsigned char cut;          /* decided at the bound, not at its end */
    unsigned short keys;        /* SGK_* names seen at the top level */
    unsigned char name[11];
    unsigned long long depth;
};

static inline void sg_reply_init(struct sg_reply *r)
{
    *r = (struct sg_reply){ .where = SR_START };
}

static inline void sg_reply_name_done(struct sg_reply *r)
{
    static const struct { char name[sizeof "request_seq"]; unsigned char len; unsigned short key; } keys[] = {
        { "jsonrpc", 7, SGK_JSONRPC }, { "id", 2, SGK_ID }, { "result", 6, SGK_RESULT },
        { "error", 5, SGK_ERROR }, { "method", 6, SGK_METHOD },
        { "request_seq", 11, SGK_REQUEST_SEQ }, { "event", 5, SGK_EVENT },
        { "seq", 3, SGK_SEQ }, { "type", 4, SGK_TYPE },
    };
    for (unsigned k = 0; k < sizeof keys / sizeof *keys; k++)
        if (r->name_len == keys[k].len && __builtin_memcmp(r->name, keys[k].name, keys[k].len) == 0)
            r->keys |= keys[k].key;
}

/* One byte of a string in the body. */
static inline void sg_reply_string_byte(struct sg_reply *r, unsigned char c)
{
    if (r->escaped || c == '\\') {
        r->escaped = !r->escaped;
        r->name_len = 0xff;
    } else if (c == '"') {
        r->in_string = 0;
        if (r->in_name)
            sg_reply_name_done(r);
        r->in_name = 0;
    } else if (r->in_name && r->name_len == sizeof r->name) {
        r->name_len = 0xff;
    } else if (r->in_name && r->name_len != 0xff) {
        r->name[r->name_len++] = c;
    }
}

/* Read n more bytes of the body. */
static inline void sg_reply_feed(struct sg_reply *r, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n && r->where < SR_CLOSED; i++) {
        unsigned char c = p[i];
        if (r->where == SR_START) {
            if (!sg_is_space(c))
                r->where = c == '{' ? SR_OBJECT : SR_NOT;
            r->depth = 1;       /* (the object's: its names follow) */
            r->want_name = 1;
        } else if (r->in_string) {
            sg_reply_string_byte(r, c);
        } else if (c == '"') {
            r->in_string = 1;
            r->in_name = r->want_name;
            r->want_name = 0;
            r->name_len = 0;
        } else if (c == '{' || c == '[') {
            r->depth++;
        } else if (c == '}' || c == ']') {
            if (--r->depth == 0)
                r->where = SR_CLOSED;
        } else if (c == ',') {
            r->want_name = r->depth == 1;
        }
    }
}

static inline int sg_reply_answer(const struct sg_reply *r);

/* The whole body is a JSON-RPC message (one with "jsonrpc" or "method", or
 * an answer without "jsonrpc": no reader insists on it) or a DAP one. */
static inline int sg_reply_message(const struct sg_reply *r)
{
    unsigned k = r->keys;
    return r->where == SR_CLOSED && ((k & (SGK_JSONRPC | SGK_METHOD)) || sg_reply_answer(r) ||
                                     ((k & SGK_SEQ) && (k & SGK_TYPE)));
}

/* The bound reached: may it still be one?  In doubt it is (an object). */
static inline int sg_reply_may_message(const struct sg_reply *r)
{
    return r->where == SR_OBJECT;
}

/* The body read so far proves an answer. */
static inline int sg_reply_answer(const struct sg_reply *r)
{
    unsigned k = r->keys;
    return ((k & SGK_ID) && (k & (SGK_RESULT | SGK_ERROR))) || (k & SGK_REQUEST_SEQ);
}

/* The bound reached, not proven: may it still be an answer?  In doubt it
 * is (an object without "method" or "event" at its top level so far). */
static inline int sg_reply_may_answer(const struct sg_reply *r)
{
    return r->where == SR_OBJECT && !(r->keys & (SGK_METHOD | SGK_EVENT));
}

enum sg_where {
    SW_OUTSIDE, /* between messages: junk until a candidate starts */
    SW_JSON,    /* in a JSON candidate */
    SW_LINE,    /* committed: the wire through the next newline */
    SW_VALUE,   /* committed over lines: the wire through its value's close, then as SW_LINE */
    SW_HEADER,  /* in a frame's header block */
    SW_BODY,    /* in a frame's body: the wire */
    SW_FRAME    /* in a frame's body, read before the frame is decided (SG_AUTO) */
};

/* Where a JSON candidate is. */
enum sg_json {
    SJ_VALUE, SJ_VALUE_OR_CLOSE, SJ_NAME, SJ_NAME_OR_CLOSE, SJ_COLON, SJ_AFTER,
    SJ_STRING, SJ_ESCAPE, SJ_HEX, SJ_NUMBER, SJ_LITERAL, SJ_CLOSED
};

/* Where a number is: after '-', after a leading 0, in the integer digits,
 * after '.', in the fraction, after 'e', after its sign, in the exponent. */
enum sg_number { SN_MINUS, SN_ZERO, SN_INT, SN_DOT, SN_FRAC, SN_E, SN_ESIGN, SN_EXP };

/* Where a header line is. */
enum sg_hline { SH_NAME, SH_VALUE, SH_CR, SH_LINE_START, SH_END_CR };

struct sg_stream {
    unsigned char protocol;     /* enum sg_protocol: SG_AUTO until decided */
    unsigned char where;        /* enum sg_where */
    unsigned char json;         /* enum sg_json */
    unsigned char number;       /* enum sg_number */
    unsigned char literal;      /* which of "true", "false", "null", "NaN", "Infinity" */
    unsigned char literal_at;   /* bytes of it matched */
    unsigned char hex_left;     /* \u digits still to come */
    unsigned char batch;        /* the candidate is an array */
    unsigned char is_name;      /* the string is a member name */
    unsigned char in_name;      /* ... of a message's object (top level) */
    unsigned char name_len;     /* its unescaped bytes (name[]), 0xff: too long */
    unsigned char has_jsonrpc;  /* the current object has "jsonrpc" */
    unsigned char rpc_names;    /* every top-level name so far is JSON-RPC's */
    unsigned char named;        /* ... and there was one */
    unsigned char hline;        /* enum sg_hline */
    unsigned char bol;          /* the next byte begins a line (or the output) */
    unsigned char elements;     /* the batch has an element */
    unsigned char keys;         /* SGK_* names seen at the top level */
    unsigned char lines;        /* the candidate has gone on past a newline */
    unsigned char col0;         /* ... and the next byte begins a line */
    unsigned char vstring;      /* SW_VALUE: in a string */
    unsigned char vescape;      /* ... after its backslash */
    unsigned char name[8];
    unsigned hex;               /* the \u escape being read */
    unsigned depth;
    unsigned long long held;    /* bytes of the candidate (undecided) */
    unsigned long long body_left;
    struct sg_detect header;    /* Content-Length, read by the detector's code */
    struct sg_reply reply;      /* the last frame's body, as far as it was read */
    unsigned char arrays[SG_DEPTH_MAX / 8]; /* bit d: level d+1 is an array */
};

static inline void sg_stream_init(struct sg_stream *s, enum sg_protocol protocol)
{
    *s = (struct sg_stream){ .protocol = (unsigned char)protocol, .where = SW_OUTSIDE, .bol = 1 };
}

/* As sg_stream_init, for a stream on the stack that will be fed at once:
 * the nesting bits, the header block's and the body's reading are left as
 * they are (each is written before it is read: the bits by the open that
 * makes their level, the others where a header block starts). */
static inline void sg_stream_start(struct sg_stream *s, enum sg_protocol protocol)
{
    __builtin_memset(s, 0, __builtin_offsetof(struct sg_stream, header));
    s->protocol = (unsigned char)protocol;
    s->where = SW_OUTSIDE;
    s->bol = 1;
}

static inline int sg_is_rpc_name(const unsigned char *name, unsigned len, int prefix_only)
{
    static const char names[][sizeof "jsonrpc"] = { "jsonrpc", "id", "method", "params", "result", "error" };
    for (unsigned k = 0; k < sizeof names / sizeof *names; k++) {
        unsigned i = 0;
        while (i < len && names[k][i] && (unsigned char)names[k][i] == name[i])
            i++;
        if (i == len && (prefix_only || names[k][i] == '\0'))
            return 1;
    }
    return 0;
}


/* What a top-level member name (n[0..len), unescaped) is: the SGK_* bit
 * of a name that tells a message (0: none), with SG_RPC_NAME if it is one
 * of JSON-RPC's (sg_is_rpc_name).  By length first: it runs once per name. */
#define SG_RPC_NAME 0x80u

static inline int sg_name_is(const unsigned char *n, const char *lit, unsigned len)
{
    /* len is 4 to 8, a constant: two loads that overlap, not a call */
    unsigned a, b, x, y;
    __builtin_memcpy(&a, n, 4);
    __builtin_memcpy(&b, n + len - 4, 4);
    __builtin_memcpy(&x, lit, 4);
    __builtin_memcpy(&y, lit + len - 4, 4);
    return a == x && b == y;
}

static inline unsigned sg_name_key(const unsigned char *n, size_t len)
{
    unsigned key = 0;
    int rpc = 0;
    switch (len) {
    case 2:
        rpc = n[0] == 'i' && n[1] == 'd';
        key = rpc ? SGK_ID : 0;
        break;
    case 5:
        rpc = sg_name_is(n, "error", 5);
        key = rpc ? SGK_ERROR : 0;
        break;
    case 6:
        if (sg_name_is(n, "result", 6))
            key = SGK_RESULT;
        else if (sg_name_is(n, "method", 6))
            key = SGK_METHOD;
        rpc = key || sg_name_is(n, "params", 6);
        break;
    case 7:
        rpc = sg_name_is(n, "jsonrpc", 7);
        key = rpc ? SGK_JSONRPC : 0;
        break;
    default:
        break;
    }
    return key | (rpc ? SG_RPC_NAME : 0);
}

/* A top-level member name is complete. */
static inline void sg_name_done(struct sg_stream *s)
{
    unsigned key = sg_name_key(s->name, s->name_len);
    if (key & SGK_JSONRPC)
        s->has_jsonrpc = 1;
    s->keys |= (unsigned char)(key & ~SG_RPC_NAME);
    if (!(key & SG_RPC_NAME))
        s->rpc_names = 0;
    s->named = 1;
}

/* One more unescaped byte of a top-level member name. */
static inline void sg_name_byte(struct sg_stream *s, unsigned c)
{
    if (s->name_len == 0xff)
        return;
    if (c >= 0x80 || s->name_len == sizeof s->name) {
        s->name_len = 0xff;
        return;
    }
    s->name[s->name_len++] = (unsigned char)c;
}

/* k more bytes of a top-level member name, none of them to unescape, with
 * at least avail bytes readable at p: as sg_name_byte one by one (on a
 * little-endian machine with eight bytes to read, as one word). */
static inline void sg_name_run(struct sg_stream *s, const unsigned char *p, size_t k, size_t avail)
{
    if (s->name_len == 0xff || k == 0)
        return;
    if (k > sizeof s->name - s->name_len) {
        s->name_len = 0xff;
        return;
    }
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (avail >= 8) {
        unsigned long long w, name;
        __builtin_memcpy(&w, p, sizeof w);
        __builtin_memcpy(&name, s->name, sizeof name);
        if (k < 8)
            w &= (1ULL << (8 * k)) - 1;
        if (w & 0x8080808080808080ULL) {
            s->name_len = 0xff;
            return;
        }
        /* (the bytes past name_len are an earlier name's: cleared) */
        name = s->name_len ? name & ((1ULL << (8 * s->name_len)) - 1) : 0;
        name |= w << (8 * s->name_len);
        __builtin_memcpy(s->name, &name, sizeof name);
        s->name_len = (unsigned char)(s->name_len + k);
        return;
    }
#else
    (void)avail;
#endif
    for (size_t j = 0; j < k; j++) {
        if (p[j] >= 0x80) {
            s->name_len = 0xff;
            return;
        }
        s->name[s->name_len++] = p[j];
    }
}

static inline int sg_is_array(const struct sg_stream *s, unsigned level)
{
    return (s->arrays[(level - 1) / 8] >> ((level - 1) % 8)) & 1;
}

/* The level the members of a message's objects are at: 1, or 2 in a batch. */
static inline unsigned sg_record_level(const struct sg_stream *s)
{
    return s->batch ? 2u : 1u;
}

/* A value ended. */
static inline void sg_value_done(struct sg_stream *s)
{
    s->json = s->depth == 0 ? SJ_CLOSED : SJ_AFTER;
}

/* Open an object or array.  Returns 0: fails the candidate, 1: ok, 2: too deep. */
static inline int sg_open(struct sg_stream *s, unsigned char c)
{
    unsigned level = s->depth + 1;
    if (s->depth == 0)
        s->batch = c == '[';
    else if (s->batch && s->depth == 1 && c != '{')
        return 0;               /* a batch holds objects */
    if (s->depth == SG_DEPTH_MAX)
        return 2;
    unsigned char bit = (unsigned char)(1u << ((level - 1) % 8));
    if (c == '[')
        s->arrays[(level - 1) / 8] |= bit;
    else
        s->arrays[(level - 1) / 8] &= (unsigned char)~bit;
    s->depth = level;
    if (s->batch && level == 1)
        s->elements = 0;
    if (level == sg_record_level(s) && c == '{') {
        s->has_jsonrpc = 0;
        s->elements = 1;
    }
    s->json = c == '[' ? SJ_VALUE_OR_CLOSE : SJ_NAME_OR_CLOSE;
    return 1;
}

/* Close the innermost object or array with c.  Returns 0 if that fails. */
static inline int sg_close(struct sg_stream *s, unsigned char c)
{
    if (sg_is_array(s, s->depth) != (c == ']'))
        return 0;
    if (c == '}' && s->depth == sg_record_level(s) && !s->has_jsonrpc)
        return 0;               /* an object without "jsonrpc" */
    if (c == ']' && s->batch && s->depth == 1 && !s->elements)
        return 0;               /* an empty batch */
    s->depth--;
    sg_value_done(s);
    return 1;
}

/* The first byte of a value.  Returns as sg_open. */
__attribute__((always_inline)) static inline int sg_value_byte(struct sg_stream *s, unsigned char c)
{
    if (c == '{' || c == '[')
        return sg_open(s, c);
    if (s->batch && s->depth == 1)
        return 0;
    if (c == '"') {
        s->json = SJ_STRING;
        s->is_name = 0;
        s->in_name = 0;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        s->json = SJ_NUMBER;
        s->number = c == '-' ? SN_MINUS : c == '0' ? SN_ZERO : SN_INT;
    } else if (c == 't' || c == 'f' || c == 'n' || c == 'N' || c == 'I') {
        /* NaN and Infinity: what Python's json writes by default and reads */
        s->json = SJ_LITERAL;
        s->literal = c == 't' ? 0 : c == 'f' ? 1 : c == 'n' ? 2 : c == 'N' ? 3 : 4;
        s->literal_at = 1;
    } else {
        return 0;
    }
    return 1;
}

static inline int sg_hex_digit(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = sg_lower(c);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* The byte that a backslash and c stand for in a string (\u is read
 * apart), or -1: no escape. */
static inline int sg_unescape(unsigned char c)
{
    static const char escapes[] = "\"\\/bfnrt";
    static const char unescaped[] = "\"\\/\b\f\n\r\t";
    for (unsigned k = 0; escapes[k]; k++)
        if (c == (unsigned char)escapes[k])
            return (unsigned char)unescaped[k];
    return -1;
}

/* A byte inside a string.  Returns 0 if it fails the candidate. */
static inline int sg_string_byte(struct sg_stream *s, unsigned char c)
{
    switch (s->json) {
    case SJ_STRING:
        if (c == '"') {
            if (!s->is_name) {
                sg_value_done(s);
                return 1;
            }
            if (s->in_name)
                sg_name_done(s);
            s->json = SJ_COLON;
            return 1;
        }
        if (c < 0x20)
            return 0;           /* control characters must be escaped */
        if (c == '\\')
            s->json = SJ_ESCAPE;
        else if (s->in_name)
            sg_name_byte(s, c);
        return 1;
    case SJ_ESCAPE:
        if (c == 'u') {
            s->json = SJ_HEX;
            s->hex_left = 4;
            s->hex = 0;
            return 1;
        }
        {
            int u = sg_unescape(c);
            if (u < 0)
                return 0;
            if (s->in_name)
                sg_name_byte(s, (unsigned char)u);
            s->json = SJ_STRING;
            return 1;
        }
    default: {                  /* SJ_HEX */
        int v = sg_hex_digit(c);
        if (v < 0)
            return 0;
        s->hex = s->hex * 16 + (unsigned)v;
        if (--s->hex_left == 0) {
            if (s->in_name)
                sg_name_byte(s, s->hex);
            s->json = SJ_STRING;
        }
        return 1;
    }
    }
}

/* A byte inside a number.  Returns 1 if it belongs to the number, 0 if the
 * number ended before it (the caller goes on with the byte), -1 if it fails. */
/* A byte that must come (ok), taking the number to next: 1, or -1. */
static inline int sg_number_to(struct sg_stream *s, int ok, unsigned char next)
{
    if (!ok)
        return -1;
    s->number = next;
    return 1;
}

static inline int sg_number_byte(struct sg_stream *s, unsigned char c)
{
    int digit = c >= '0' && c <= '9';
    switch (s->number) {
    case SN_MINUS:
        return sg_number_to(s, digit, c == '0' ? SN_ZERO : SN_INT);
    case SN_INT:
        if (digit)
            return 1;
        /* fall through */
    case SN_ZERO:
        if (c == '.')
            return sg_number_to(s, 1, SN_DOT);
        /* fall through */
    case SN_FRAC:
        if (s->number == SN_FRAC && digit)
            return 1;
        return c == 'e' || c == 'E' ? sg_number_to(s, 1, SN_E) : 0;
    case SN_DOT:
        return sg_number_to(s, digit, SN_FRAC);
    case SN_E:
        if (c == '+' || c == '-')
            return sg_number_to(s, 1, SN_ESIGN);
        /* fall through */
    case SN_ESIGN:
        return sg_number_to(s, digit, SN_EXP);
    default:                    /* SN_EXP */
        return digit ? 1 : 0;
    }
}

/* After a value: a comma and the quote of the next member name at p[0] and
 * p[1], taken as sg_json_candidate_byte would.  Returns the bytes taken
 * (0 or 2). */
static inline size_t sg_next_name(struct sg_stream *s, const unsigned char *p, size_t n)
{
    if (n < 2 || p[0] != ',' || p[1] != '"' || s->json != SJ_AFTER || sg_is_array(s, s->depth))
        return 0;
    s->json = SJ_STRING;
    s->is_name = 1;
    s->in_name = s->depth == sg_record_level(s);
    s->name_len = 0;
    return 2;
}

/* A string's closing quote at p[0], and what commonly follows it without
 * white space: a member name's colon and the quote of a string value, a
 * value's comma and the quote of the next name.  Taken as
 * sg_json_candidate_byte would take them one by one, without its switch
 * (the commonest structural bytes of a message); the caller leaves room
 * for three bytes before the bound.  Returns the bytes taken (1 to 3). */
static inline size_t sg_string_end(struct sg_stream *s, const unsigned char *p, size_t n)
{
    if (!s->is_name) {
        sg_value_done(s);
        return 1 + sg_next_name(s, p + 1, n - 1);
    }
    if (s->in_name)
        sg_name_done(s);
    s->json = SJ_COLON;
    if (n < 2 || p[1] != ':')
        return 1;
    s->json = SJ_VALUE;
    if (n < 3 || p[2] != '"' || (s->batch && s->depth == 1))
        return 2;
    s->json = SJ_STRING;
    s->is_name = 0;
    s->in_name = 0;
    return 3;
}

/* White space between a candidate's tokens (a newline is taken apart:
 * sg_stream_scan). */
static inline int sg_json_white(unsigned char c)
{
    /* (one compare for the bytes above the space: most of them) */
    return c <= ' ' && ((1ULL << ' ' | 1ULL << '\t' | 1ULL << '\r') >> c) & 1;
}

/* One byte of a JSON candidate.  Returns 1: it belongs to the candidate, 0:
 * the candidate fails before it, 2: the candidate is deep past the bound. */
__attribute__((always_inline)) static inline int sg_json_candidate_byte(struct sg_stream *s, unsigned char c)
{
    static const char literals[][sizeof "Infinity"] = { "true", "false", "null", "NaN", "Infinity" };
    /* one switch: between tokens, white space (space, tab, CR; a newline
     * comes as a space: sg_stream_scan) is taken in every state, after the
     * bytes that state looks for (none is white) */
    int white = sg_json_white(c);
    for (;;) {
        switch (s->json) {
        case SJ_STRING:
        case SJ_ESCAPE:
        case SJ_HEX:
            return sg_string_byte(s, c);
        case SJ_NUMBER: {
            if (c == 'I' && s->number == SN_MINUS) {
                s->json = SJ_LITERAL;   /* -Infinity */
                s->literal = 4;
                s->literal_at = 1;
                return 1;
            }
            int r = sg_number_byte(s, c);
            if (r != 0)
                return r > 0;
            sg_value_done(s);   /* the number ended before c: c is what follows it */
            continue;
        }
        case SJ_LITERAL: {
            const char *lit = literals[s->literal];
            if (c != (unsigned char)lit[s->literal_at])
                return 0;
            if (lit[++s->literal_at] == '\0')
                sg_value_done(s);
            return 1;
        }
        case SJ_VALUE_OR_CLOSE:
            if (c == ']')
                return sg_close(s, c);
            /* fall through */
        case SJ_VALUE:
            return white ? 1 : sg_value_byte(s, c);
        case SJ_NAME_OR_CLOSE:
            if (c == '}')
                return sg_close(s, c);
            /* fall through */
        case SJ_NAME:
            if (c != '"')
                return white;
            s->json = SJ_STRING;
            s->is_name = 1;
            s->in_name = s->depth == sg_record_level(s);
            s->name_len = 0;
            return 1;
        case SJ_COLON:
            if (c != ':')
                return white;
            s->json = SJ_VALUE;
            return 1;
        case SJ_AFTER:
            if (c == ',') {
                s->json = sg_is_array(s, s->depth) ? SJ_VALUE : SJ_NAME;
                return 1;
            }
            if (c == '}' || c == ']')
                return sg_close(s, c);
            return white;
        default:                /* SJ_CLOSED: only the newline may follow */
            return white;
        }
    }
}

/* The bound reached: is the candidate to be taken as protocol? */
static inline int sg_json_looks_rpc(const struct sg_stream *s)
{
    if (!s->rpc_names || !s->named)
        return 0;
    if ((s->json == SJ_STRING || s->json == SJ_ESCAPE || s->json == SJ_HEX) && s->in_name)
        return s->name_len != 0xff && sg_is_rpc_name(s->name, s->name_len, 1);
    return 1;
}

/* Start a JSON candidate at c ('{' or '['). */
static inline void sg_json_start(struct sg_stream *s, unsigned char c)
{
    s->where = SW_JSON;
    s->depth = 0;
    s->rpc_names = 1;
    s->named = 0;
    s->keys = 0;
    s->lines = 0;
    s->col0 = 0;
    (void)sg_open(s, c);
    s->held = 1;
}

/* The way most JSON-RPC writers begin a message (the Python and Go SDKs,
 * rmcp, vscode-jsonrpc...), taken whole. */
#define SG_RPC_PREFIX "{\"jsonrpc\":\"2.0\","
#define SG_RPC_PREFIX_LEN (sizeof SG_RPC_PREFIX - 1)

/* Do the SG_RPC_PREFIX_LEN bytes at p spell SG_RPC_PREFIX?  Two words and
 * a byte, not a call to memcmp (most lines that fail, fail at once). */
static inline int sg_rpc_prefix_at(const unsigned char *p)
{
    unsigned long long a, b, x, y;
    __builtin_memcpy(&a, p, 8);
    __builtin_memcpy(&b, p + 8, 8);
    __builtin_memcpy(&x, SG_RPC_PREFIX, 8);
    __builtin_memcpy(&y, &SG_RPC_PREFIX[8], 8);
    return a == x && b == y && p[16] == (unsigned char)SG_RPC_PREFIX[16];
}

/* A candidate just started at p[0] (n bytes readable): if they begin with
 * SG_RPC_PREFIX, the state is set as byte by byte scanning would leave it
 * after them (a top-level "jsonrpc" read, its value a string, a comma: a
 * name comes next) and 1 is returned; else 0, nothing changed. */
static inline int sg_json_rpc_prefix(struct sg_stream *s, const unsigned char *p, size_t n)
{
    if (n < SG_RPC_PREFIX_LEN || !sg_rpc_prefix_at(p))
        return 0;
    __builtin_memcpy(s->name, "jsonrpc", 8);
    s->name_len = 7;
    s->is_name = 0;
    s->in_name = 0;
    s->has_jsonrpc = 1;
    s->keys = SGK_JSONRPC;
    s->named = 1;
    s->json = SJ_NAME;
    s->held = SG_RPC_PREFIX_LEN;
    return 1;
}

/* A byte of a header name: RFC 9110's token characters (vscode-jsonrpc
 * reads any name before the colon; these are the ones real headers use). */
static inline int sg_is_tchar(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c != 0 && __builtin_strchr("!#$%&'*+-.^_`|~", c) != 0);
}

/* One byte of a frame's header block.  Returns 1: it belongs to it, 0: the
 * candidate fails before it, 2: the block ended with this byte. */
static inline int sg_header_candidate_byte(struct sg_stream *s, unsigned char c)
{
    int token = sg_is_tchar(c);
    switch (s->hline) {
    case SH_LINE_START:
        if (c == '\r') {
            s->hline = SH_END_CR;
            return 1;
        }
        if (!token)
            return 0;
        s->hline = SH_NAME;
        /* fall through */
    case SH_NAME:
        if (c == ':')
            s->hline = SH_VALUE;
        else if (!token)
            return 0;
        sg_field_byte(&s->header, c);
        return 1;
    case SH_VALUE:
        if (c == '\r') {
            s->hline = SH_CR;
            return 1;
        }
        if (c < 0x20 && c != '\t')
            return 0;
        sg_field_byte(&s->header, c);
        return 1;
    case SH_CR:
        if (c != '\n')
            return 0;
        sg_header_line_end(&s->header);
        s->hline = SH_LINE_START;
        return 1;
    default:                    /* SH_END_CR */
        if (c != '\n' || !s->header.has_length || s->header.bad_length)
            return 0;
        return 2;
    }
}

/* The offset of the first newline in p[0..n), or n (a committed line of
 * many megabytes streams through here: libc's vectorised memchr; the
 * classifier runs in the filter, a program of its own, not in interposers). */
static inline size_t sg_find_newline(const unsigned char *p, size_t n)
{
    const unsigned char *nl = __builtin_memchr(p, '\n', n);
    return nl ? (size_t)(nl - p) : n;
}

/* String bytes with nothing to look at: not a quote, a backslash or a
 * control character. */
static inline int sg_plain_string_byte(unsigned char c)
{
    return c >= 0x20 && c != '"' && c != '\\';
}

/* Eight bytes at p: the offset of the first that is not a plain string
 * byte, or 8 (on a big-endian machine, 0 for any: the caller goes on one
 * byte at a time). */
static inline size_t sg_plain_string_word(const unsigned char *p)
{
    const unsigned long long ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    unsigned long long w, q, b, hit;
    __builtin_memcpy(&w, p, sizeof w);
    q = w ^ (ones * '"');
    b = w ^ (ones * '\\');
    hit = (((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w)) & highs;
    if (!hit)
        return 8;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* the lowest byte flagged is one (a borrow only flags bytes above it) */
    return (size_t)__builtin_ctzll(hit) / 8;
#else
    return 0;
#endif
}

/* Does any of the 16 bytes at p need a look?  (GCC's vector extension:
 * SSE2 on x86-64, NEON on aarch64.) */
typedef unsigned char sg_v16 __attribute__((vector_size(16)));
typedef unsigned long long sg_q2 __attribute__((vector_size(16)));

/* The same for the 16 bytes at p: 16, or (on a little-endian machine) the
 * offset of the first that needs a look (on a big-endian one, 0 for any:
 * the caller goes on one byte at a time).  The compare gives each byte
 * 0xff or 0; the first such byte is the lowest set bit of the two words. */
static inline size_t sg_plain_string_block(const unsigned char *p)
{
    sg_v16 v;
    __builtin_memcpy(&v, p, sizeof v);
    sg_v16 m = (sg_v16)((v == '"') | (v == '\\') | (v < 0x20));
#if defined(__SSE2__)
    /* one bit a byte, in order: x86's own instruction for it */
    unsigned bits = (unsigned)_mm_movemask_epi8((__m128i)m);
    return bits ? (size_t)__builtin_ctz(bits) : 16;
#else
    sg_q2 q = (sg_q2)m;
    if (!(q[0] | q[1]))
        return 16;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return q[0] ? (size_t)__builtin_ctzll(q[0]) / 8 : 8 + (size_t)__builtin_ctzll(q[1]) / 8;
#else
    return 0;
#endif
#endif
}

/* How many of p[0..n), at most max, are string bytes with nothing to look
 * at.  16 bytes at a time while 16 are left (member names and the bulk of
 * a large message alike), then words, then bytes. */
__attribute__((always_inline)) static inline size_t sg_plain_string_bytes(const unsigned char *p, size_t n,
                                                                          unsigned long long max)
{
    const int exact = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
    size_t k = 0, lim = (unsigned long long)n < max ? n : (size_t)max;
    while (k + 16 <= lim) {
        size_t r = sg_plain_string_block(p + k);
        k += r;
        if (r < 16) {
            if (exact)
                return k;
            goto bytes;
        }
    }
    while (k + 8 <= lim) {
        size_t r = sg_plain_string_word(p + k);
        k += r;
        if (r < 8) {
            if (exact)
                return k;
            break;
        }
    }
bytes:
    while (k < lim && sg_plain_string_byte(p[k]))
        k++;
    return k;
}

/* How many of p[0..n) cannot start a candidate: junk outright.  Eight at
 * a time, the whole words without '{', '[' (JSON) or 'C', 'c', a newline
 * (frames: a header block starts at its 'C' anywhere, at any name at the
 * start of a line). */
static inline size_t sg_plain_junk_bytes(const unsigned char *p, size_t n, unsigned char protocol)
{
    const unsigned long long ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    unsigned long long a = ones * '{', b = ones * '[', c = ones * 'C', d = ones * 'c', e = ones * '\n';
    size_t k = 0;
    if (protocol == SG_JSONL)
        c = d = e = a;
    else if (protocol == SG_FRAMED)
        a = b = c;
    for (; k + 8 <= n; k += 8) {
        unsigned long long w, x, y, z, t, u;
        __builtin_memcpy(&w, p + k, sizeof w);
        x = w ^ a, y = w ^ b, z = w ^ c, t = w ^ d, u = w ^ e;
        if ((((x - ones) & ~x) | ((y - ones) & ~y) | ((z - ones) & ~z) | ((t - ones) & ~t) |
             ((u - ones) & ~u)) & highs)
            break;
    }
    return k;
}

/* A run of bytes at p that need no look one at a time, up to the bound
 * (held bytes of the candidate so far): a string's bytes with nothing to
 * look at (the bulk of a large message; a top-level name's kept), or the
 * digits of an integer part.  Returns how many. */
static inline size_t sg_json_run(struct sg_stream *__restrict s, const unsigned char *__restrict p,
                                 size_t n, unsigned long long held)
{
    unsigned long long room = SG_HOLD_MAX - 1 - held;
    size_t k = 0;
    if (s->json == SJ_STRING) {
        k = sg_plain_string_bytes(p, n, room);
        if (k && s->in_name)
            sg_name_run(s, p, k, n);
    } else if (s->json == SJ_NUMBER && s->number == SN_INT) {
        size_t lim = n < room ? n : (size_t)room;
        while (k < lim && p[k] >= '0' && p[k] <= '9')
            k++;
    }
    return k;
}

/* What ends such a run, at p[0], when it is the usual: a string's closing
 * quote and what follows it (sg_string_end), or the comma after an
 * integer and the next name's quote (sg_next_name).  Taken as
 * sg_json_candidate_byte would, short of the bound.  Returns how many
 * bytes it took, 0: none (the integer may be ended, the comma not taken). */
static inline size_t sg_json_run_end(struct sg_stream *__restrict s, const unsigned char *__restrict p,
                                     size_t n, unsigned long long held)
{
    if (s->json == SJ_STRING && p[0] == '"' && held + 3 < SG_HOLD_MAX)
        return sg_string_end(s, p, n);
    if (s->json == SJ_NUMBER && s->number == SN_INT && p[0] == ',' && held + 2 < SG_HOLD_MAX) {
        sg_value_done(s);       /* (as sg_number_byte would say at the comma) */
        return sg_next_name(s, p, n);
    }
    return 0;
}

/* A candidate over lines, taken as protocol at the bound (byte or depth,
 * deep: the open that went past SG_DEPTH_MAX): the rest streams to the
 * wire through its value's close (SW_VALUE), following strings and
 * nesting only, then through the next newline. */
static inline void sg_value_commit(struct sg_stream *s, int deep)
{
    s->where = SW_VALUE;
    s->depth += deep != 0;
    s->vstring = s->json == SJ_STRING || s->json == SJ_ESCAPE || s->json == SJ_HEX;
    s->vescape = s->json == SJ_ESCAPE;
}

static inline int sg_json_in_string(const struct sg_stream *s)
{
    return s->json == SJ_STRING || s->json == SJ_ESCAPE || s->json == SJ_HEX;
}

/* A newline before a candidate's close: white space between tokens (a
 * message over lines), never in a string or a literal.  Returns 0 if it
 * fails the candidate.  (Out of line: only messages over lines come.) */
__attribute__((noinline, cold)) static int sg_json_newline(struct sg_stream *s)
{
    return sg_json_candidate_byte(s, sg_json_in_string(s) ? '\n' : ' ');
}

/* A JSON candidate reached the bound at p[i-1] (deep: the open that went
 * past SG_DEPTH_MAX): protocol if it looks like JSON-RPC so far (the rest
 * of its line streams, or of its value if it has gone on over lines),
 * else junk.  Returns i, with *verdict. */
__attribute__((noinline, cold)) static size_t sg_json_bound(struct sg_stream *s, const unsigned char *p,
                                                           size_t i, int deep, enum sg_verdict *verdict)
{
    s->held = 0;
    if (!sg_json_looks_rpc(s)) {
        s->where = SW_OUTSIDE;
        s->bol = p[i - 1] == '\n';
        *verdict = SG_JUNK;
        return i;
    }
    s->protocol = SG_JSONL;
    *verdict = SG_WIRE;
    if (s->lines)
        sg_value_commit(s, deep);
    else
        s->where = SW_LINE;
    return i;
}

/* SW_VALUE: how many of p[0..n) belong to the value, through its close
 * (the stream is then SW_LINE).  (Out of line: a message over lines past
 * the bound.) */
__attribute__((noinline)) static size_t sg_value_bytes(struct sg_stream *s, const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (s->vstring && !s->vescape) {
            i += sg_plain_string_bytes(p + i, n - i, ~0ULL);
            if (i == n)
                break;
        }
        unsigned char c = p[i++];
        if (s->vescape)
            s->vescape = 0;
        else if (s->vstring)
            s->vescape = c == '\\', s->vstring = c != '"';
        else if (c == '"')
            s->vstring = 1;
        else if (c == '{' || c == '[')
            s->depth++;
        else if ((c == '}' || c == ']') && --s->depth == 0) {
            s->where = SW_LINE;
            break;
        }
    }
    return i;
}

/* A frame read through its body (SG_AUTO), or as far as the bound, p[i-1]
 * its last byte read: protocol if the body is a JSON-RPC or DAP message
 * (at the bound, if it may still be one: the rest of the body then streams
 * to the wire), else junk (the rest of a body cut at the bound is read
 * afresh).  Returns i, with *verdict. */
static inline size_t sg_frame_decided(struct sg_stream *s, const unsigned char *p, size_t i,
                                      enum sg_verdict *verdict)
{
    s->held = 0;
    s->reply.cut = s->body_left != 0;
    if (s->reply.cut ? sg_reply_may_message(&s->reply) : sg_reply_message(&s->reply)) {
        s->protocol = SG_FRAMED;
        s->where = s->body_left ? SW_BODY : SW_OUTSIDE;
        s->bol = 1;
        *verdict = SG_WIRE;
        return i;
    }
    s->body_left = 0;
    s->where = SW_OUTSIDE;
    s->bol = i && p[i - 1] == '\n';
    *verdict = SG_JUNK;
    return i;
}

/* SW_FRAME: the body's bytes from p[i], read and held up to its end or the
 * bound, where the frame is decided (*verdict).  Returns the new i.  (Out
 * of line: only the first frame of a session comes here.) */
__attribute__((noinline)) static size_t sg_frame_body(struct sg_stream *s, const unsigned char *p,
                                                      size_t i, size_t n, enum sg_verdict *verdict)
{
    unsigned long long room = SG_HOLD_MAX - s->held;
    size_t take = n - i;
    take = (unsigned long long)take < room ? take : (size_t)room;
    take = (unsigned long long)take < s->body_left ? take : (size_t)s->body_left;
    sg_reply_feed(&s->reply, p + i, take);
    i += take;
    s->held += take;
    s->body_left -= take;
    if (s->body_left == 0 || s->held == SG_HOLD_MAX)
        return sg_frame_decided(s, p, i, verdict);
    *verdict = SG_UNDECIDED;
    return i;
}

/* A JSON candidate's line ended at its newline: a message, for the wire;
 * the framing is JSON lines from now on. */
static inline void sg_json_wire(struct sg_stream *s)
{
    s->where = SW_OUTSIDE;
    s->protocol = SG_JSONL;
    s->held = 0;
    s->bol = 1;
}

/* ------------------------------------------------------------------------
 * A whole line at once (sg_json_line).
 *
 * Most calls a server makes are one message and its newline.  Such a line,
 * found whole in the bytes at hand, is read in one pass with the state in
 * registers: where the parse is, is where the code is.  It takes only what
 * it is sure of, as the byte-by-byte path would take it: strings (escapes
 * checked; a member name with one is left), numbers, true, false and null,
 * nesting up to SG_LINE_DEPTH, lines up to SG_LINE_MAX bytes (guard_whole's
 * calls: PIPE_BUF), far from the bound.  Anything else, and every line that
 * fails, is left to the byte-by-byte path from its first byte, which says
 * what it is.  The line's newline is found first: every loop below stops at
 * it (it is no white space, digit, plain string byte or hex digit), so none
 * counts bytes. */
#define SG_LINE_MAX 4096
#define SG_LINE_DEPTH 64

/* White space from p[i]: the index after it. */
static inline size_t sg_line_white(const unsigned char *p, size_t i)
{
    while (sg_json_white(p[i]))
        i++;
    return i;
}

/* A string's bytes from p[i] (after its quote) through its closing quote,
 * the line's newline at p[end]: the index after that quote, or 0 (an
 * invalid escape, a control character).  name: a member name, which must
 * have no escape (its bytes are compared as they are). */
__attribute__((always_inline)) static inline size_t sg_line_string(const unsigned char *p, size_t i,
                                                                   size_t end, int name)
{
    for (;;) {
        i += sg_plain_string_bytes(p + i, end - i, ~0ULL);
        if (p[i] == '"')
            return i + 1;
        if (p[i] != '\\' || name)
            return 0;
        if (p[i + 1] != 'u') {
            if (sg_unescape(p[i + 1]) < 0)
                return 0;
            i += 2;
            continue;
        }
        for (size_t h = i + 2; h < i + 6; h++)
            if (sg_hex_digit(p[h]) < 0)
                return 0;
        i += 6;
    }
}

static inline int sg_line_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* A number from p[i]: the index after it, or 0 (-Infinity, a sign or a
 * point without digits). */
static inline size_t sg_line_number(const unsigned char *p, size_t i)
{
    if (p[i] == '-')
        i++;
    if (!sg_line_digit(p[i]))
        return 0;
    if (p[i++] != '0')
        while (sg_line_digit(p[i]))
            i++;
    if (p[i] == '.') {
        if (!sg_line_digit(p[++i]))
            return 0;
        while (sg_line_digit(p[i]))
            i++;
    }
    if (p[i] == 'e' || p[i] == 'E') {
        i++;
        if (p[i] == '+' || p[i] == '-')
            i++;
        if (!sg_line_digit(p[i]))
            return 0;
        while (sg_line_digit(p[i]))
            i++;
    }
    return i;
}

/* true, false or null at p[i], the newline at p[end]: the index after it,
 * or 0. */
static inline size_t sg_line_literal(const unsigned char *p, size_t i, size_t end)
{
    unsigned w, t, f, u;        /* four bytes each, loaded alike: any byte order */
    if (end - i < 4)
        return 0;
    __builtin_memcpy(&w, p + i, 4);
    __builtin_memcpy(&t, "true", 4);
    __builtin_memcpy(&f, "fals", 4);
    __builtin_memcpy(&u, "null", 4);
    if (w == t || w == u)
        return i + 4;
    return w == f && end - i >= 5 && p[i + 4] == 'e' ? i + 5 : 0;
}

/* A top-level member name most messages have, at p[0], written with its
 * colon right after it ("id":, "result":): how many bytes that is, the
 * colon's included, with *key (as sg_name_key has it, less SG_RPC_NAME),
 * in one compare; 0 for anything else, which the caller reads as a name
 * like any other.  avail: the bytes at p before the line's newline. */
static inline size_t sg_line_common_name(const unsigned char *p, size_t avail, unsigned *key)
{
    /* by the name's first letter, whose low four bits differ */
    static const struct { char text[10]; unsigned char len, key; } names[16] = {
        ['i' & 15] = { "\"id\":", 5, SGK_ID },
        ['r' & 15] = { "\"result\":", 9, SGK_RESULT },
        ['m' & 15] = { "\"method\":", 9, SGK_METHOD },
        ['p' & 15] = { "\"params\":", 9, 0 },
        ['e' & 15] = { "\"error\":", 8, SGK_ERROR },
    };
    if (avail < 2)
        return 0;
    const __typeof__(names[0]) *n = &names[p[1] & 15];
    if (n->len == 0 || avail <= n->len)
        return 0;
    /* words loaded alike from both sides: equal in either byte order */
    unsigned long long a, b;
    unsigned c, d;
    if (n->len == 5) {
        __builtin_memcpy(&c, p, 4);
        __builtin_memcpy(&d, n->text, 4);
        if (c != d || p[4] != ':')
            return 0;
    } else {
        __builtin_memcpy(&a, p, 8);
        __builtin_memcpy(&b, n->text, 8);
        if (a != b || (n->len == 9 && p[8] != ':'))
            return 0;
    }
    *key = n->key;
    return n->len;
}

/* p[0..end] begins with '{' or '[' and ends with a newline (p[end]), the
 * first or not (one before it fails the line): if p[0..end) is a whole
 * message, end + 1, with *keys (as s->keys) if keys; else 0. */
__attribute__((always_inline)) static inline size_t sg_json_line_to(const unsigned char *p, size_t end,
                                                                    unsigned char *keys)
{
    size_t i = 0, at;
    unsigned long long arrays = 0;      /* bit d: level d+1 is an array */
    unsigned depth = 0, found = 0, record = p[0] == '[' ? 2 : 1;
    int batch = p[0] == '[', has_jsonrpc = 0, elements = 0;
    unsigned char c;
    if (end > SG_RPC_PREFIX_LEN && sg_rpc_prefix_at(p)) {
        /* as the bytes would leave it: the object open, "jsonrpc" read,
         * its value, the comma (most writers' first 17 bytes) */
        depth = 1;
        has_jsonrpc = elements = 1;
        found = SGK_JSONRPC;
        i = sg_line_white(p, SG_RPC_PREFIX_LEN);
        goto name;
    }
value:                          /* a value begins at p[i], white space before it */
    i = sg_line_white(p, i);
    c = p[i];
    if (c == '{' || c == '[') {
        if (depth == SG_LINE_DEPTH || (batch && depth == 1 && c != '{'))
            return 0;
        depth++;
        if (c == '[')
            arrays |= 1ULL << (depth - 1);
        else
            arrays &= ~(1ULL << (depth - 1));
        if (depth == record && c == '{') {
            has_jsonrpc = 0;
            elements = 1;
        }
        i = sg_line_white(p, i + 1);
        if (p[i] == (c == '{' ? '}' : ']'))
            goto close;
        if (c == '[')
            goto value;
        goto name;
    }
    if (depth == 0 || (batch && depth == 1))
        return 0;               /* (the line begins with its open) a batch holds objects */
    if (c == '"')
        i = sg_line_string(p, i + 1, end, 0);
    else if (c == '-' || sg_line_digit(c))
        i = sg_line_number(p, i);
    else
        i = sg_line_literal(p, i, end);
    if (i == 0)
        return 0;
after:                          /* after a value */
    i = sg_line_white(p, i);
    if (p[i] == '}' || p[i] == ']')
        goto close;
    if (p[i] != ',')
        return 0;
    i = sg_line_white(p, i + 1);
    if ((arrays >> (depth - 1)) & 1)
        goto value;
name:                           /* a member name at p[i], then its colon */
    if (depth == record) {
        unsigned key;
        size_t k = sg_line_common_name(p + i, end - i, &key);
        if (k) {
            found |= key;
            i += k;
            goto value;
        }
    }
    if (p[i] != '"' || (at = i + 1, i = sg_line_string(p, at, end, 1)) == 0)
        return 0;
    if (depth == record) {
        unsigned key = sg_name_key(p + at, i - 1 - at);
        has_jsonrpc |= (key & SGK_JSONRPC) != 0;
        found |= key & ~SG_RPC_NAME;
    }
    i = sg_line_white(p, i);
    if (p[i] != ':')
        return 0;
    i++;
    goto value;
close:                          /* p[i] closes level depth */
    c = p[i];
    if (((arrays >> (depth - 1)) & 1) != (c == ']'))
        return 0;
    if (c == '}' && depth == record && !has_jsonrpc)
        return 0;               /* an object without "jsonrpc" */
    if (c == ']' && batch && depth == 1 && !elements)
        return 0;               /* an empty batch */
    i++;
    if (--depth)
        goto after;
    if (sg_line_white(p, i) != end)
        return 0;
    if (keys)
        *keys = (unsigned char)found;
    return end + 1;
}

/* p[0..n) begins with '{' or '[': if it is a whole message and its
 * newline, as above, how many bytes that is, with *keys (as s->keys);
 * else 0. */
__attribute__((noinline)) static size_t sg_json_line(const unsigned char *p, size_t n, unsigned char *keys)
{
    const unsigned char *nl = __builtin_memchr(p, '\n', n < SG_LINE_MAX ? n : SG_LINE_MAX);
    return nl ? sg_json_line_to(p, (size_t)(nl - p), keys) : 0;
}

/* Can a JSON candidate start with c, between messages? */
static inline int sg_json_opens(unsigned char protocol, unsigned char c)
{
    return protocol != SG_FRAMED && (c == '{' || c == '[');
}

/* Is p[0..n) exactly one message and its newline, read in one pass (the
 * usual call: sg_stream_scan, from between messages, would take it whole
 * as the wire)?  No: the caller scans.  Its last byte is the newline the
 * parse stops at, not searched for: a newline before it fails the parse. */
static inline int sg_stream_one_line(unsigned char protocol, const unsigned char *p, size_t n)
{
    return n && n <= SG_LINE_MAX && p[n - 1] == '\n' && sg_json_opens(protocol, p[0]) &&
           sg_json_line_to(p, n - 1, NULL) == n;
}

/* Scan p[0..n).  Returns how many bytes it took (k), with *verdict: if
 * SG_WIRE or SG_JUNK, every byte fed so far through p[k-1] is decided so
 * (held bytes of earlier calls included); if SG_UNDECIDED, k == n and
 * s->held bytes at the end are not decided yet.  A call may take 0 bytes
 * when it decides held ones. */
static inline size_t sg_stream_scan(struct sg_stream *__restrict s, const unsigned char *__restrict p,
                                    size_t n, enum sg_verdict *__restrict verdict)
{
    size_t i = 0;
    *verdict = SG_UNDECIDED;
    while (i < n) {
        unsigned char c = p[i];
        switch (s->where) {
        case SW_OUTSIDE: {
            int json = sg_json_opens(s->protocol, c);
            int frame = s->protocol != SG_JSONL && (c == 'C' || c == 'c' || (s->bol && sg_is_tchar(c)));
            if (!json && !frame) {
                /* (a word with a byte that starts a candidate is no run) */
                size_t k = s->bol && s->protocol != SG_JSONL ? 0 : sg_plain_junk_bytes(p + i, n - i, s->protocol);
                if (k) {
                    i += k;
                    s->bol = 0;     /* (words without a newline, or jsonl: no frames) */
                } else {
                    i++;
                    s->bol = c == '\n';
                }
                *verdict = SG_JUNK;
                continue;
            }
            if (*verdict == SG_JUNK)
                return i;       /* the junk before the candidate */
            if (json) {
                size_t k = sg_json_line(p + i, n - i, &s->keys);
                if (k) {
                    sg_json_wire(s);
                    *verdict = SG_WIRE;
                    return i + k;
                }
                sg_json_start(s, c);
                if (sg_json_rpc_prefix(s, p + i, n - i)) {
                    i += SG_RPC_PREFIX_LEN;
                    break;
                }
            } else {
                s->where = SW_HEADER;
                s->hline = SH_NAME;
                sg_detect_init(&s->header);
                sg_reply_init(&s->reply);
                sg_field_byte(&s->header, c);
                s->held = 1;
            }
            i++;
            break;
        }
        case SW_JSON: {
            /* byte after byte of the candidate, without going back to the
             * switch above: it stays a candidate until one of the returns
             * (its byte count in a register meanwhile) */
            unsigned long long held = s->held;
            if (s->col0) {      /* (the last call ended with a newline) */
                s->col0 = 0;
                if (c == '{' || c == '[')
                    goto fail;
            }
            for (;;) {
                size_t k = sg_json_run(s, p + i, n - i, held);
                i += k;
                held += k;
                if (i == n)
                    break;
                c = p[i];
                if ((k = sg_json_run_end(s, p + i, n - i, held)) != 0) {
                    i += k;
                    held += k;
                    continue;
                }
                if (__builtin_expect(c == '\n', 0)) {
                    if (s->json == SJ_CLOSED) {
                        sg_json_wire(s);
                        *verdict = SG_WIRE;
                        return i + 1;
                    }
                    if (!sg_json_newline(s))
                        goto fail;
                    s->lines = 1;
                    if (++i, ++held == SG_HOLD_MAX)
                        return sg_json_bound(s, p, i, 0, verdict);
                    /* Over lines, a line that begins with '{' or '[' is a
                     * message of its own (a one-line answer after a junk
                     * line that ended in '[', ':' or ','), never inside
                     * one: pretty printers indent what they nest.  The
                     * candidate fails before it. */
                    if (i == n)
                        s->col0 = 1;
                    else if (p[i] == '{' || p[i] == '[')
                        goto fail;
                    continue;
                }
                int r = sg_json_candidate_byte(s, c);
                if (r == 0)
                    goto fail;
                i++;
                if (r == 2 || ++held == SG_HOLD_MAX)
                    return sg_json_bound(s, p, i, r == 2, verdict);
            }
            s->held = held;
            break;
        }
        case SW_HEADER: {
            int r = sg_header_candidate_byte(s, c);
            if (r == 0)
                goto fail;
            i++;
            if (r == 2) {
                s->body_left = s->header.length;
                if (s->protocol == SG_AUTO) {
                    s->where = SW_FRAME;    /* the body says (sg_reply_message) */
                    s->held++;
                    if (s->body_left == 0)
                        return sg_frame_decided(s, p, i, verdict);
                    break;
                }
                s->held = 0;
                s->protocol = SG_FRAMED;
                s->where = s->body_left ? SW_BODY : SW_OUTSIDE;
                s->bol = 1;
                *verdict = SG_WIRE;
                return i;
            }
            if (++s->held == SG_HEADER_MAX) {
                s->held = 0;
                s->where = SW_OUTSIDE;
                s->bol = c == '\n';
                *verdict = SG_JUNK;
                return i;
            }
            break;
        }
        case SW_FRAME:
            i = sg_frame_body(s, p, i, n, verdict);
            if (*verdict != SG_UNDECIDED)
                return i;
            break;
        case SW_VALUE:
            i += sg_value_bytes(s, p + i, n - i);
            *verdict = SG_WIRE;
            if (s->where == SW_VALUE)
                return i;
            break;
        case SW_LINE:
            i += sg_find_newline(p + i, n - i);
            if (i < n) {
                i++;
                s->where = SW_OUTSIDE;
                s->bol = 1;
            }
            *verdict = SG_WIRE;
            return i;
        default: {              /* SW_BODY */
            size_t take = n - i;
            if ((unsigned long long)take >= s->body_left) {
                take = (size_t)s->body_left;
                s->where = SW_OUTSIDE;
                s->bol = 1;     /* (a frame follows its body's last byte) */
            }
            s->body_left -= take;
            *verdict = SG_WIRE;
            return i + take;
        }
        }
    }
    /* (a candidate held on: where a failure at the next call's first byte
     * stands) */
    if (n)
        s->bol = p[n - 1] == '\n';
    return i;
fail:
    s->where = SW_OUTSIDE;
    s->held = 0;
    s->bol = i ? p[i - 1] == '\n' : s->bol;
    *verdict = SG_JUNK;
    return i;
}

/* Is the stream in a committed line (wire through its next newline)? */
static inline int sg_stream_in_line(const struct sg_stream *s)
{
    return s->where == SW_LINE;
}

/* How many bytes to come are the rest of a frame's body: wire whatever
 * they are (0 outside a body). */
static inline unsigned long long sg_stream_body_left(const struct sg_stream *s)
{
    return s->where == SW_BODY ? s->body_left : 0;
}

/* k (at most sg_stream_body_left()) body bytes went to the wire unseen. */
static inline void sg_stream_body_taken(struct sg_stream *s, unsigned long long k)
{
    s->body_left -= k;
    if (s->body_left == 0) {
        s->where = SW_OUTSIDE;
        s->bol = 1;
    }
}

/* End of input: the held bytes, if any, are junk (a partial line at exit). */
static inline enum sg_verdict sg_stream_end(struct sg_stream *s)
{
    enum sg_verdict v = s->held ? SG_JUNK : SG_UNDECIDED;
    s->held = 0;
    if (s->where == SW_JSON || s->where == SW_HEADER || s->where == SW_FRAME)
        s->where = SW_OUTSIDE;
    return v;
}

/* A message was just decided SG_WIRE (not the rest of a line or body
 * already decided): is it an answer, the proof that the server has read a
 * request?  A frame is if its body is (sg_reply_answer; one read to the
 * bound, if it may be: the fail-safe reads the body of a frame decided at
 * its header itself).  A JSON text is if it
 * has "jsonrpc", "id" and "result" or "error" at its top level (in a batch,
 * among its objects); one taken at the bound, if it has "result" or "error"
 * and no "method" so far.  (shim.c's fail-safe: a notification or request
 * the server writes before it can have read anything is no such proof.) */
static inline int sg_stream_answer(const struct sg_stream *s)
{
    unsigned k = s->keys;
    if (s->protocol == SG_FRAMED)
        return sg_reply_answer(&s->reply) || (s->reply.cut && sg_reply_may_answer(&s->reply));
    if (s->where == SW_LINE || s->where == SW_VALUE)
        return (k & (SGK_RESULT | SGK_ERROR)) && !(k & SGK_METHOD);
    return (k & SGK_JSONRPC) && (k & SGK_ID) && (k & (SGK_RESULT | SGK_ERROR));
}

#endif
