/* SPDX-License-Identifier: MIT */
/* reference.c - an independent, whole-buffer statement of the rules that
 * detect.h implements incrementally.  It is written for obviousness, not
 * speed: it sees the whole buffer at once, looks lines up by index and
 * re-scans freely.  The differential tests (protocol/diff.c, protocol/fuzz_detect.c)
 * check that the streaming detector agrees with it on every input and every
 * way of splitting that input.
 *
 * The rules (detect.h's header comment, with the details it leaves open
 * pinned down here; "newline" is the byte 0x0a):
 *
 *  R1  Leading white space (space, tab, CR, LF) before the message is skipped.
 *      Let s be the first other byte.
 *  R2  s is '{' or '[': newline-delimited JSON.  The message ends at the
 *      earlier of
 *        - the first newline after s, wherever it is (inside a string too,
 *          even right after a backslash: a JSON text on one line holds no raw
 *          newline, so a line reader has the line at that byte), and
 *        - the '}' or ']' outside strings that brings the nesting depth back
 *          to zero (brackets are counted, not matched: '{' and '[' open, '}'
 *          and ']' close).  Strings start and end at '"' outside a string;
 *          inside one, a backslash escapes the next byte.
 *  R3  s is an ASCII letter: a header block, if the first line (from s up to
 *      its newline) holds a ':'.  If it holds none, it was a plain line and
 *      the message ends at its newline.  Otherwise header lines follow one
 *      another up to the first empty line; CR bytes in the header block are
 *      ignored everywhere (so "\r\n" and "\n" both end a line and a line of
 *      CRs is empty).  The header block ends with the empty line's newline.
 *        A Content-Length line is one whose text before its first ':' is
 *      "content-length" in any case, nothing else.  It is valid when the
 *      text after that ':' is: optional blanks (space, tab), one or more
 *      decimal digits, optional blanks, and nothing else, and the number is
 *      at most 2^40 (SG_MAX_CONTENT_LENGTH).
 *        If the block has at least one Content-Length line, every one of them
 *      is valid, and the last one's number L is not zero, the message ends
 *      L bytes after the header block (the body's last byte).  Otherwise
 *      (no Content-Length, an invalid one, or zero) it ends with the header
 *      block.
 *  R4  Any other s: a plain line, ending at the first newline after s.
 *
 * Deliberately no shared code with detect.h.
 */
#include "reference.h"

#include <stdlib.h>
#include <string.h>

#define REF_MAX_LENGTH (1ULL << 40)

static int is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int is_letter(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Index of the first newline in buf[from..n), or n if there is none. */
static size_t find_newline(const unsigned char *buf, size_t from, size_t n)
{
    for (size_t i = from; i < n; i++)
        if (buf[i] == '\n')
            return i;
    return n;
}

/* R2: JSON text starting at buf[s] ('{' or '['). */
static size_t json_end(const unsigned char *buf, size_t s, size_t n)
{
    size_t nl = find_newline(buf, s, n);
    /* Look for the closing bracket before the newline. */
    unsigned long long depth = 0;
    int in_string = 0;
    for (size_t i = s; i < nl; i++) {
        unsigned char c = buf[i];
        if (in_string) {
            if (c == '\\')
                i++;            /* skip the escaped byte (if that is the newline, the loop ends: R2) */
            else if (c == '"')
                in_string = 0;
            continue;
        }
        if (c == '"') {
            in_string = 1;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            depth--;
            if (depth == 0)
                return i + 1;
        }
    }
    return nl < n ? nl + 1 : 0;
}

static unsigned char lower(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c - 'A' + 'a') : c;
}

/* Classify one header line buf[a..b) (no newline).
 * Returns 0: not a Content-Length line; 1: valid (value in *value); 2: invalid. */
static int content_length_line(const unsigned char *buf, size_t a, size_t b, unsigned long long *value)
{
    static const char name[] = "content-length";
    const size_t name_len = sizeof name - 1;
    /* Name: the CR-less bytes before the first ':' */
    size_t i = a, got = 0;
    for (; i < b; i++) {
        unsigned char c = buf[i];
        if (c == '\r')
            continue;
        if (c == ':')
            break;
        if (got >= name_len || lower(c) != (unsigned char)name[got])
            return 0;
        got++;
    }
    if (i == b || got != name_len)
        return 0;           /* no ':' or a shorter name */
    i++;                    /* past ':' */

    /* Value: the rest of the line, CR bytes dropped. */
    unsigned char *text = malloc(b - i + 1);
    if (text == NULL)
        abort();
    size_t len = 0, j = 0;
    for (size_t k = i; k < b; k++)
        if (buf[k] != '\r')
            text[len++] = buf[k];
    while (j < len && (text[j] == ' ' || text[j] == '\t'))
        j++;
    size_t start = j;
    unsigned long long v = 0;
    int big = 0;
    while (j < len && text[j] >= '0' && text[j] <= '9') {
        if (!big) {
            v = v * 10 + (unsigned)(text[j] - '0');
            if (v > REF_MAX_LENGTH)
                big = 1;
        }
        j++;
    }
    if (j == start) {
        free(text);
        return 2;           /* no digits */
    }
    while (j < len && (text[j] == ' ' || text[j] == '\t'))
        j++;
    int ok = j == len && !big;
    free(text);
    if (!ok)
        return 2;
    *value = v;
    return 1;
}

/* Is buf[a..b) empty once CR bytes are ignored? */
static int blank_line(const unsigned char *buf, size_t a, size_t b)
{
    for (size_t i = a; i < b; i++)
        if (buf[i] != '\r')
            return 0;
    return 1;
}

/* R3: starts at buf[s], an ASCII letter. */
static size_t header_end(const unsigned char *buf, size_t s, size_t n)
{
    size_t nl = find_newline(buf, s, n);
    if (nl == n)
        return 0;
    if (memchr(buf + s, ':', nl - s) == NULL)
        return nl + 1;      /* a plain first line */

    int have = 0, bad = 0;
    unsigned long long length = 0;
    size_t line = s;
    for (;;) {
        size_t end = find_newline(buf, line, n);
        if (end == n)
            return 0;       /* header block not finished */
        if (line != s && blank_line(buf, line, end)) {
            /* end of the header block at buf[end] */
            if (!have || bad || length == 0)
                return end + 1;
            if (length > (unsigned long long)(n - (end + 1)))
                return 0;   /* body not all here */
            return end + 1 + (size_t)length;
        }
        unsigned long long v;
        switch (content_length_line(buf, line, end, &v)) {
        case 1:
            have = 1;
            length = v;
            break;
        case 2:
            bad = 1;
            break;
        default:
            break;
        }
        line = end + 1;
    }
}

size_t ref_first_message_end(const unsigned char *buf, size_t n)
{
    size_t s = 0;
    while (s < n && is_ws(buf[s]))
        s++;
    if (s == n)
        return 0;
    if (buf[s] == '{' || buf[s] == '[')
        return json_end(buf, s, n);
    if (is_letter(buf[s]))
        return header_end(buf, s, n);
    size_t nl = find_newline(buf, s, n);
    return nl < n ? nl + 1 : 0;
}
