/* SPDX-License-Identifier: MIT */
/* diff.c - differential test of detect.h against protocol/reference.c.
 *
 *   diff [-s SEED] [-n ITERATIONS] [-t SECONDS] [-v]     random message streams
 *   diff FILE...                                          the given inputs
 *
 * Random streams are built from real first messages (MCP JSON lines, LSP/DAP
 * Content-Length frames) and hostile pieces (huge lines, deep nesting,
 * unbalanced quotes and escapes, NULs, invalid UTF-8, absurd, negative or
 * malformed Content-Length values, CR/LF in odd places), optionally mutated,
 * then split at random boundaries.  Every input is fed whole, byte by byte
 * and in several random chunkings (protocol/harness.h); all must report the end
 * offset the whole-buffer reference reports, with the detector's state in
 * bounds after every call.
 *
 * Deterministic for a given seed; bounded by ITERATIONS (default 20000) and
 * SECONDS (default 20), whichever comes first.  On disagreement each failing
 * input is shrunk to a minimal one (deleting bytes while it still fails) and
 * printed as a C string; distinct minimal inputs are listed (at most 20).
 * Exit status: 0 all agreed, 1 disagreement, 2 usage or I/O error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diff_main.h"
#include "harness.h"

#define SPLITS 6

static uint64_t rng_state;

static uint64_t rnd(void)
{
    return fz_splitmix(&rng_state);
}

static size_t below(size_t n)
{
    return n ? (size_t)(rnd() % n) : 0;
}

static void putc_(struct buf *b, uint8_t c)
{
    put(b, &c, 1);
}

static const char *const json_messages[] = {
    ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
     "\"capabilities\":{\"roots\":{\"listChanged\":true},\"sampling\":{}},\"clientInfo\":{\"name\":\"claude-ai\",\"version\":\"0.1.0\"}}}"),
    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":\"d1\",\"method\":\"server/discover\",\"params\":{}}",
    "{\"jsonrpc\": \"2.0\", \"method\": \"notifications/initialized\"}",
    "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]",
    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"a \\\"quoted\\\" }] \\\\ brace {[\"}}}",
    "{\"a\":\"\\u00e9\\ud83d\\ude00\",\"b\":[1,2,[3,{\"c\":null}]],\"d\":\"}\"}",
    "{}",
    "[]",
};

static const char *const bodies[] = {
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"processId\":1234,\"rootUri\":\"file:///tmp\",\"capabilities\":{}}}",
    "{\"seq\":1,\"type\":\"request\",\"command\":\"initialize\",\"arguments\":{\"clientID\":\"vscode\",\"adapterID\":\"python\",\"linesStartAt1\":true}}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}",
    "",
    "\n\n\r\n{",
};

static const char *const junk_pieces[] = {
    "{", "}", "[", "]", "\"", "\\", "\\\"", "\\\\", "\n", "\r", "\r\n", "\n\n", "\r\n\r\n", " ", "\t",
    ":", ",", "a", "Z", "0", "9", "-", "+", "Content-Length", "content-length", "CONTENT-LENGTH",
    "Content-Length:", "Content-Length: ", ": ", "Content-Type: application/vscode-jsonrpc; charset=utf-8",
    "\x00", "\xff", "\xc3", "\xc3\xa9", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x80\xa8", "\xef\xbb\xbf",
    "{\"jsonrpc\":\"2.0\"", "\"method\":\"initialize\"", "null", "true", "1e999", "Content-Length: 5",
};

static void gen_blank_prefix(struct buf *b)
{
    static const char *const ws[] = { "\n", "\r\n", " ", "\t", "\r", "\n\n" };
    size_t k = below(4) == 0 ? below(6) : 0;
    for (size_t i = 0; i < k; i++)
        puts_(b, ws[below(6)]);
}

static void gen_number(struct buf *b)
{
    char tmp[64];
    switch (below(10)) {
    case 0: puts_(b, "0"); break;
    case 1: puts_(b, "-1"); break;
    case 2: puts_(b, "18446744073709551616"); break;           /* 2^64 */
    case 3: puts_(b, "1099511627776"); break;                  /* 2^40 exactly */
    case 4: puts_(b, "1099511627777"); break;                  /* 2^40 + 1 */
    case 5: puts_(b, "00000000000000000000000000000000000003"); break;
    case 6: puts_(b, "99999999999999999999999999999999999999999999"); break;
    case 7: puts_(b, "0x10"); break;
    default:
        snprintf(tmp, sizeof tmp, "%zu", below(200));
        puts_(b, tmp);
    }
}

/* A Content-Length framed message, with many variations. */
static void gen_framed(struct buf *b)
{
    const char *body = bodies[below(sizeof bodies / sizeof *bodies)];
    size_t blen = strlen(body);
    const char *eol = below(4) == 0 ? "\n" : "\r\n";
    int extra_before = below(4) == 0, extra_after = below(4) == 0;
    if (extra_before) {
        puts_(b, below(2) ? "Content-Type: application/vscode-jsonrpc; charset=utf-8" : "X-Thing:");
        puts_(b, eol);
    }
    int ncl = below(8) == 0 ? 2 : (below(10) == 0 ? 0 : 1);
    for (int i = 0; i < ncl; i++) {
        static const char *const names[] = { "Content-Length", "content-length", "CONTENT-LENGTH",
                                             "Content-Lengt", "Content-Lengthx", "Content-Length " };
        puts_(b, below(6) == 0 ? names[below(6)] : "Content-Length");
        puts_(b, ":");
        switch (below(6)) {
        case 0: break;
        case 1: puts_(b, "\t "); break;
        case 2: puts_(b, "   "); break;
        default: puts_(b, " ");
        }
        if (below(3) == 0) {
            gen_number(b);
        } else {
            char tmp[32];
            snprintf(tmp, sizeof tmp, "%zu", blen + (below(6) == 0 ? below(5) : 0) - (below(8) == 0 && blen ? 1 : 0));
            puts_(b, tmp);
        }
        switch (below(10)) {
        case 0: puts_(b, " "); break;
        case 1: puts_(b, "\t"); break;
        case 2: puts_(b, "x"); break;
        case 3: puts_(b, " 5"); break;
        default: break;
        }
        puts_(b, eol);
    }
    if (extra_after) {
        puts_(b, "Content-Type: application/json");
        puts_(b, eol);
    }
    puts_(b, below(6) == 0 ? (below(2) ? "\n" : "\r\r\n") : eol);
    puts_(b, body);
}

/* Nested JSON with hostile strings. */
static void gen_nested(struct buf *b, int depth)
{
    putc_(b, below(2) ? '{' : '[');
    size_t items = below(4);
    for (size_t i = 0; i < items; i++) {
        switch (below(6)) {
        case 0:
            if (depth < 40)
                gen_nested(b, depth + 1);
            break;
        case 1: puts_(b, "\"str\\\"ing\\\\\""); break;
        case 2: puts_(b, "\"}]{[\""); break;
        case 3: puts_(b, "\"\\u0022\""); break;
        case 4: gen_number(b); break;
        default: puts_(b, "\"k\":null,"); break;
        }
    }
    putc_(b, below(2) ? '}' : ']');
}

static void gen_piece(struct buf *b)
{
    switch (below(12)) {
    case 0: case 1: case 2:
        gen_blank_prefix(b);
        puts_(b, json_messages[below(sizeof json_messages / sizeof *json_messages)]);
        puts_(b, below(5) == 0 ? "\r\n" : "\n");
        break;
    case 3: case 4:
        gen_blank_prefix(b);
        gen_framed(b);
        break;
    case 5:
        gen_nested(b, 0);
        if (below(2))
            putc_(b, '\n');
        break;
    case 6: {                                   /* deep nesting */
        size_t d = 1 + below(3000);
        for (size_t i = 0; i < d; i++)
            putc_(b, below(2) ? '{' : '[');
        size_t c = below(4) == 0 ? below(d) : d;
        for (size_t i = 0; i < c; i++)
            putc_(b, below(2) ? '}' : ']');
        break;
    }
    case 7: {                                   /* a huge line */
        size_t len = 1000 + below(100000);
        uint8_t c = (uint8_t)"a{\"x \\"[below(6)];
        for (size_t i = 0; i < len; i++)
            putc_(b, below(50) == 0 ? (uint8_t)"\"\\{}"[below(4)] : c);
        if (below(2))
            putc_(b, '\n');
        break;
    }
    case 8: {                                   /* random bytes */
        size_t len = below(64);
        for (size_t i = 0; i < len; i++)
            putc_(b, (uint8_t)rnd());
        break;
    }
    default: {                                  /* junk pieces */
        size_t k = 1 + below(12);
        for (size_t i = 0; i < k; i++) {
            const char *j = junk_pieces[below(sizeof junk_pieces / sizeof *junk_pieces)];
            put(b, j, j[0] ? strlen(j) : 1);    /* "\x00" is one NUL byte */
        }
        break;
    }
    }
}

static void mutate(struct buf *b)
{
    size_t m = below(4);
    for (size_t i = 0; i < m && b->n; i++) {
        size_t at = below(b->n);
        switch (below(4)) {
        case 0: b->p[at] = (uint8_t)rnd(); break;
        case 1: b->p[at] = (uint8_t)"\n\r\"\\{}[]: 0"[below(11)]; break;
        case 2: memmove(b->p + at, b->p + at + 1, b->n - at - 1); b->n--; break;
        default: {
            uint8_t c = (uint8_t)"\n\r\"\\{}[]: \x00"[below(11)];
            put(b, "", 1);
            memmove(b->p + at + 1, b->p + at, b->n - at - 1);
            b->p[at] = c;
        }
        }
    }
}

static void generate(struct buf *b)
{
    b->n = 0;
    size_t pieces = 1 + below(4);
    for (size_t i = 0; i < pieces; i++)
        gen_piece(b);
    if (below(3) == 0)
        mutate(b);
}

/* Shrink a failing input: delete windows of bytes while it keeps failing. */
static size_t shrink(uint8_t *p, size_t n)
{
    char msg[256];
    uint8_t *t = malloc(n ? n : 1);
    if (t == NULL)
        exit(2);
    for (size_t w = n / 2 ? n / 2 : 1; w >= 1; w /= 2) {
        int progress = 1;
        while (progress) {
            progress = 0;
            for (size_t at = 0; at + w <= n;) {
                memcpy(t, p, at);
                memcpy(t + at, p + at + w, n - at - w);
                if (h_check(t, n - w, SPLITS, msg, sizeof msg) != NULL) {
                    memcpy(p, t, n - w);
                    n -= w;
                    progress = 1;
                } else {
                    at++;
                }
            }
        }
        if (w == 1)
            break;
    }
    /* Then canonicalise bytes, so that one cause gives one minimal input:
     * replace each with the first of 'a', '1', ' ', its lower case that
     * keeps the input failing. */
    for (size_t i = 0; i < n; i++) {
        uint8_t old = p[i];
        uint8_t cand[4] = { 'a', '1', ' ', (old >= 'A' && old <= 'Z') ? (uint8_t)(old + 32) : old };
        for (int c = 0; c < 4; c++) {
            if (cand[c] == old)
                break;
            p[i] = cand[c];
            if (h_check(p, n, SPLITS, msg, sizeof msg) != NULL)
                break;
            p[i] = old;
        }
    }
    free(t);
    return n;
}

#define MAX_REPORTS 20

struct report {
    uint8_t *p;
    size_t n;
};

static struct report reports[MAX_REPORTS];
static int nreports, nfail;

static void report(const uint8_t *p, size_t n, const char *origin)
{
    char msg[256];
    nfail++;
    if (nreports == MAX_REPORTS)
        return;
    uint8_t *c = malloc(n ? n : 1);
    if (c == NULL)
        exit(2);
    memcpy(c, p, n);
    size_t m = shrink(c, n);
    for (int i = 0; i < nreports; i++) {
        if (reports[i].n == m && memcmp(reports[i].p, c, m) == 0) {
            free(c);
            return;
        }
    }
    reports[nreports++] = (struct report){ c, m };
    const char *why = h_check(c, m, SPLITS, msg, sizeof msg);
    struct sg_detect d;
    sg_detect_init(&d);
    size_t k = sg_detect_feed(&d, c, m);
    printf("DISAGREEMENT (%s, original %zu bytes) minimal input (%zu bytes): ", origin, n, m);
    h_print_c(stdout, c, m);
    printf("\n    %s; whole-buffer detector: %zu, reference: %zu\n", why ? why : "(flaky?)", k,
           ref_first_message_end(c, m));
    fflush(stdout);
}

static int run_files(int argc, char **argv)
{
    char msg[256];
    int bad = 0;
    for (int i = 0; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (f == NULL) {
            perror(argv[i]);
            return 2;
        }
        struct buf b = { 0 };
        uint8_t tmp[65536];
        size_t got;
        while ((got = fread(tmp, 1, sizeof tmp, f)) > 0)
            put(&b, tmp, got);
        fclose(f);
        if (h_check(b.p, b.n, SPLITS, msg, sizeof msg) != NULL) {
            bad = 1;
            report(b.p, b.n, argv[i]);
        }
        free(b.p);
    }
    return bad;
}

int main(int argc, char **argv)
{
    struct diff_opts o;
    int i = diff_options(argc, argv, &o);
    if (i < 0)
        return 2;
    if (i < argc)
        return run_files(argc - i, argv + i);

    char msg[256];
    struct buf b = { 0 };
    rng_state = o.seed;
    unsigned long n;
    size_t ended = 0, bytes = 0;
    for (n = 0; n < o.iterations; n++) {
        generate(&b);
        bytes += b.n;
        if (ref_first_message_end(b.p, b.n))
            ended++;
        if (h_check(b.p, b.n, SPLITS, msg, sizeof msg) != NULL) {
            char origin[64];
            snprintf(origin, sizeof origin, "seed %llu iteration %lu", (unsigned long long)o.seed, n);
            uint64_t saved = rng_state;     /* shrinking must not disturb the stream */
            report(b.p, b.n, origin);
            rng_state = saved;
        }
        if ((n & 255) == 0 && diff_time_is_up(&o))
            break;
    }
    if (o.verbose || nfail)
        printf("%lu inputs (%zu bytes, %zu with a complete first message), %d disagreed, %d distinct minimal inputs\n",
               n, bytes, ended, nfail, nreports);
    free(b.p);
    return nfail ? 1 : 0;
}
