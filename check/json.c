/* SPDX-License-Identifier: MIT */
/* check/json.c - stdiogate-check's JSON: reading what the server wrote
 * (strictly), and writing the report's strings. */
#include <stdio.h>
#include <string.h>

#include "check.h"

/* ------------------------------------------------------------------ */
/* Reading JSON: validation (as strict as JSON.parse) and member lookup in
 * text already validated.  Nothing is built: spans point into the text. */

#define JSON_DEPTH_MAX 1000

const char *json_ws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int hex_value(char c)
{
    if (is_digit(c))
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* p at a quote: past the closing quote, or NULL. */
static const char *json_string_end(const char *p, const char *e)
{
    for (p++; p < e; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"')
            return p + 1;
        if (c < 0x20)
            return NULL;
        if (c != '\\')
            continue;
        if (++p >= e)
            return NULL;
        if (*p == 'u') {
            if (e - p < 5)
                return NULL;
            for (int i = 1; i <= 4; i++)
                if (hex_value(p[i]) < 0)
                    return NULL;
            p += 4;
        } else if (*p == '\0' || !strchr("\"\\/bfnrt", *p)) {
            return NULL;
        }
    }
    return NULL;
}

static const char *json_digits(const char *p, const char *e)
{
    if (p >= e || !is_digit(*p))
        return NULL;
    while (p < e && is_digit(*p))
        p++;
    return p;
}

static const char *json_number_end(const char *p, const char *e)
{
    if (p < e && *p == '-')
        p++;
    if (p < e && *p == '0')
        p++;
    else if (!(p = json_digits(p, e)))
        return NULL;
    if (p < e && *p == '.' && !(p = json_digits(p + 1, e)))
        return NULL;
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            p++;
        p = json_digits(p, e);
    }
    return p;
}

const char *json_value_end(const char *p, const char *e, int depth);

/* p at '{' or '[': past the matching close, or NULL. */
static const char *json_container_end(const char *p, const char *e, int depth)
{
    char close = *p == '{' ? '}' : ']';
    if (depth >= JSON_DEPTH_MAX)
        return NULL;
    p = json_ws(p + 1, e);
    if (p < e && *p == close)
        return p + 1;
    for (;;) {
        if (close == '}') {
            if (p >= e || *p != '"' || !(p = json_string_end(p, e)))
                return NULL;
            p = json_ws(p, e);
            if (p >= e || *p != ':')
                return NULL;
            p = json_ws(p + 1, e);
        }
        if (!(p = json_value_end(p, e, depth + 1)))
            return NULL;
        p = json_ws(p, e);
        if (p >= e)
            return NULL;
        if (*p == close)
            return p + 1;
        if (*p != ',')
            return NULL;
        p = json_ws(p + 1, e);
    }
}

static const char *json_literal_end(const char *p, const char *e, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(e - p) >= n && memcmp(p, word, n) == 0 ? p + n : NULL;
}

const char *json_value_end(const char *p, const char *e, int depth)
{
    if (p >= e)
        return NULL;
    switch (*p) {
    case '"':
        return json_string_end(p, e);
    case '{':
    case '[':
        return json_container_end(p, e, depth);
    case 't':
        return json_literal_end(p, e, "true");
    case 'f':
        return json_literal_end(p, e, "false");
    case 'n':
        return json_literal_end(p, e, "null");
    default:
        return json_number_end(p, e);
    }
}

/* s, valid JSON, without the white space between its tokens: a value
 * given on several lines (pretty-printed --args) goes out in a message
 * that is one line. */
void json_squeeze(char *s)
{
    char *out = s;
    int in_string = 0;
    for (const char *p = s; *p; p++) {
        if (in_string) {
            if (*p == '\\' && p[1])
                *out++ = *p++;
            else if (*p == '"')
                in_string = 0;
        } else if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
            continue;
        } else if (*p == '"') {
            in_string = 1;
        }
        *out++ = *p;
    }
    *out = '\0';
}

/* Is [p, e) exactly one JSON object, white space around it allowed?  Sets
 * *obj to the object. */
int json_is_object(const char *p, const char *e, struct span *obj)
{
    const char *end;
    p = json_ws(p, e);
    if (p >= e || *p != '{' || !(end = json_value_end(p, e, 0)))
        return 0;
    if (json_ws(end, e) != e)
        return 0;
    obj->p = p;
    obj->e = end;
    return 1;
}

/* Decodes the JSON string token s (validated) into out (NUL-terminated,
 * truncated to cap - 1 bytes).  \u escapes become UTF-8; a lone surrogate
 * becomes U+FFFD. */
void json_string_copy(struct span s, char *out, size_t cap)
{
    size_t n = 0;
    const char *p = s.p + 1, *e = s.e - 1;
    while (p < e && n + 4 < cap) {
        unsigned c = (unsigned char)*p++;
        if (c == '\\') {
            char x = *p++;
            switch (x) {
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'u':
                c = 0;
                for (int i = 0; i < 4; i++)
                    c = c * 16 + (unsigned)hex_value(*p++);
                if (c >= 0xd800 && c <= 0xdfff)
                    c = 0xfffd;
                break;
            default: c = (unsigned char)x; break;
            }
            if (c >= 0x800) {
                out[n++] = (char)(0xe0 | (c >> 12));
                out[n++] = (char)(0x80 | ((c >> 6) & 0x3f));
                out[n++] = (char)(0x80 | (c & 0x3f));
                continue;
            }
            if (c >= 0x80) {
                out[n++] = (char)(0xc0 | (c >> 6));
                out[n++] = (char)(0x80 | (c & 0x3f));
                continue;
            }
        }
        out[n++] = (char)c;
    }
    out[n] = '\0';
}

/* Is the JSON string token s (validated) the text word? */
int json_string_is(struct span s, const char *word)
{
    char buf[64];
    if (s.p >= s.e || *s.p != '"' || (size_t)(s.e - s.p) > sizeof buf)
        return 0;
    json_string_copy(s, buf, sizeof buf);
    return strcmp(buf, word) == 0;
}

/* The value of member key in the validated object obj (the last one if the
 * key repeats, as JSON.parse keeps). */
int json_member(struct span obj, const char *key, struct span *value)
{
    int found = 0;
    const char *p = json_ws(obj.p + 1, obj.e);
    while (p < obj.e && *p == '"') {
        struct span k = { p, json_string_end(p, obj.e) };
        struct span v;
        if (!k.e)
            break;  /* (obj was validated: cannot happen) */
        v.p = json_ws(json_ws(k.e, obj.e) + 1, obj.e);
        v.e = json_value_end(v.p, obj.e, 0);
        if (!v.e)
            break;
        if (json_string_is(k, key)) {
            *value = v;
            found = 1;
        }
        p = json_ws(v.e, obj.e);
        if (p >= obj.e || *p != ',')
            break;
        p = json_ws(p + 1, obj.e);
    }
    return found;
}

int json_kind(struct span v, char first)
{
    return v.p < v.e && *v.p == first;
}

/* ------------------------------------------------------------------ */
/* Writing: JSON strings and escaped excerpts. */

/* Length of the valid UTF-8 sequence at p (n bytes left), or 0. */
static size_t utf8_length(const unsigned char *p, size_t n)
{
    size_t len = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 && p[0] < 0xe0 ? 2 : 0;
    if (len == 0 || len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    return len;
}

void put_json_bytes(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    putchar('"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = p[i];
        if (c == '"' || c == '\\') {
            printf("\\%c", c);
        } else if (c == '\n') {
            fputs("\\n", stdout);
        } else if (c < 0x20 || c == 0x7f) {
            printf("\\u%04x", c);
        } else if (c < 0x80) {
            putchar(c);
        } else {
            size_t len = utf8_length(p + i, n - i);
            if (len == 0) {
                fputs("\\ufffd", stdout);
            } else {
                fwrite(p + i, 1, len, stdout);
                i += len - 1;
            }
        }
    }
    putchar('"');
}

void put_json_string(const char *s)
{
    if (s)
        put_json_bytes(s, strlen(s));
    else
        fputs("null", stdout);
}

/* Bytes as a C-style escaped text, ASCII only: what the server wrote,
 * exactly, and safe to print anywhere. */
void escape_bytes(const unsigned char *p, size_t n, char *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k + 5 < cap; i++) {
        unsigned char c = p[i];
        const char *esc = c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t"
                        : c == '\\' ? "\\\\" : c == '"' ? "\\\"" : NULL;
        if (esc)
            k += (size_t)snprintf(out + k, cap - k, "%s", esc);
        else if (c >= 0x20 && c < 0x7f)
            out[k++] = (char)c;
        else
            k += (size_t)snprintf(out + k, cap - k, "\\x%02x", c);
    }
    out[k] = '\0';
}

