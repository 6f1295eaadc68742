/* SPDX-License-Identifier: MIT */
/* stream_diff.c - differential test of detect.h's stream classifier.
 *
 *   stream_diff [-s SEED] [-n ITERATIONS] [-t SECONDS] [-v]    random server output
 *   stream_diff FILE...                                         the given inputs (first byte: protocol)
 *
 * Random streams are built from what servers write: JSON-RPC lines (escaped
 * names, batches, BOM, trailing CR and spaces), the same pretty-printed over
 * lines (indented or not, junk lines ending in '[' or ':' before them and
 * one-line messages after), JSON log lines, text, glued
 * junk, frames with and without Content-Length, lines past the bound
 * (protocol-like and log-like), deep nesting, NULs, invalid UTF-8, random
 * bytes, optionally mutated.  Each is checked under every protocol as
 * protocol/stream_harness.h does: the verdict of every byte whole, byte by byte
 * and in random pieces, the bound, and for jsonl the wire against the
 * whole-buffer reference.  Exit status: 0 all agreed, 1 a failure (the input
 * is written to stream-failure.bin, protocol byte first), 2 usage error.
 */
#include "diff_main.h"
#include "stream_harness.h"

static uint64_t rng_state;

static size_t below(size_t n)
{
    return n ? (size_t)(fz_splitmix(&rng_state) % n) : 0;
}

static const char *const messages[] = {
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}",
    "{\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"a } ] \\\" { [ \\\\\"}]},\"jsonrpc\":\"2.0\",\"id\":7}",
    "{\"jsonrpc\": \"2.0\", \"method\": \"notifications/message\", \"params\": {\"level\": \"info\"}}",
    "{\"json\\u0072pc\":\"2.0\",\"id\":\"x\",\"result\":null}",
    "{\"id\":0,\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32601,\"message\":\"no\",\"data\":[1,-2.5e-3,0,true,false,null]}}",
    "[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}},{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}]",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"\\ud83d\\ude00\xc3\xa9\"}",
    "{\"jsonrpc\": \"2.0\", \"id\": 3, \"result\": {\"x\": NaN, \"y\": [Infinity, -Infinity]}}",
};

static const char *const junk[] = {
    "Starting server...\n", "{\"level\":30,\"time\":1,\"msg\":\"request\"}\n",
    "{\"event\": \"tool called\", \"logger\": \"app\", \"level\": \"info\"}\n", "progress 50%",
    "[INFO] ready\n", "[]\n", "[1,2]\n", "{}\n", "{\"jsonrpc\" is broken}\n", "\xef\xbb\xbf", "\r\n", "\n",
    "\x00\x01\xff\xfe", "Content-Type: text/plain\r\n\r\n", "Content-Length: 12x\r\n\r\n", "Connecting...",
    "{\"jsonrpc\":\"2.0\",\n\"id\":1}\n", "{\"a\":01}\n", "{\"jsonrpc\":\"2.0\",\"x\":nan}\n", "{\"jsonrpc\":\"2.0\",\"x\":-Inf}\n", "{\"jsonrpc\":\"2.0\"}junk\n", "\"", "\\", "{", "[",
    "Content-Length:", "Content-Length: 5\r\n", "\t", " ",
    "[\n", "{\n", "config = [\n", "{\"a\":\n", "{\n  \"jsonrpc\": \"2.0\",\n",
};

/* A message pretty-printed: a newline and an indent after each '{', '['
 * and ',' and before each '}' and ']' outside strings (indent 0 puts
 * nested openers at the start of a line: the classifier fails those). */
static void gen_pretty(struct buf *b)
{
    const char *m = messages[below(sizeof messages / sizeof *messages)];
    size_t indent = below(4), depth = 0;
    int in_string = 0, escaped = 0;
    for (; *m; m++) {
        char c = *m;
        if (in_string) {
            put(b, (const uint8_t *)m, 1);
            in_string = escaped || c != '"';
            escaped = !escaped && c == '\\';
            continue;
        }
        if (c == '}' || c == ']') {
            depth--;
            puts_(b, "\n");
            for (size_t i = 0; i < indent * depth; i++)
                puts_(b, " ");
        }
        put(b, (const uint8_t *)m, 1);
        in_string = c == '"';
        depth += c == '{' || c == '[';
        if (c == '{' || c == '[' || c == ',') {
            puts_(b, below(8) ? "\n" : "\r\n");
            for (size_t i = 0; i < indent * depth; i++)
                puts_(b, " ");
        }
    }
    puts_(b, "\n");
}

static void gen_frame(struct buf *b)
{
    char head[128];
    const char *body = messages[below(sizeof messages / sizeof *messages)];
    size_t len = strlen(body);
    if (below(8) == 0)
        len = below(len + 20);  /* a wrong length */
    switch (below(6)) {
    case 0:
        snprintf(head, sizeof head, "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: %zu\r\n\r\n", len);
        break;
    case 4:
        snprintf(head, sizeof head, "X-Request-Id: 7\r\nContent-Length: %zu\r\n\r\n", len);
        break;
    case 5:
        snprintf(head, sizeof head, "Content-Length: %zu\r\nX_Request_Id: 8\r\n\r\n", len);
        break;
    case 1:
        snprintf(head, sizeof head, "content-length:%zu\r\n\r\n", len);
        break;
    default:
        snprintf(head, sizeof head, "Content-Length: %zu\r\n\r\n", len);
    }
    puts_(b, head);
    puts_(b, body);
}

static void gen_big(struct buf *b)
{
    size_t len = SG_HOLD_MAX - 40 + below(200);
    if (below(4) == 0)
        puts_(b, "{\n  \"result\": {\n    \"text\": \"");     /* over lines */
    else if (below(2))
        puts_(b, "{\"result\":{\"text\":\"");
    else
        puts_(b, "{\"level\":\"info\",\"msg\":\"");
    for (size_t i = 0; i < len; i++) {
        uint8_t c = (uint8_t)"abcxyz {}[]"[below(11)];
        put(b, &c, 1);
    }
    puts_(b, below(2) ? "\"},\"jsonrpc\":\"2.0\",\"id\":1}" : "\"}");
    if (below(4))
        puts_(b, "\n");
    if (below(4) == 0)
        puts_(b, "\n}\n");  /* the close of one over lines */
}

static void gen_piece(struct buf *b)
{
    switch (below(14)) {
    case 12: case 13:
        gen_pretty(b);
        break;
    case 0: case 1: case 2: case 3:
        if (below(4) == 0)
            puts_(b, junk[below(sizeof junk / sizeof *junk)]);
        puts_(b, messages[below(sizeof messages / sizeof *messages)]);
        puts_(b, below(5) == 0 ? "\r\n" : below(8) == 0 ? "  \n" : "\n");
        break;
    case 4: case 5:
        gen_frame(b);
        break;
    case 6: {
        size_t d = 1 + below(SG_DEPTH_MAX + 100);
        puts_(b, "{\"jsonrpc\":\"2.0\",\"result\":");
        for (size_t i = 0; i < d; i++)
            puts_(b, "[");
        for (size_t i = 0; i < d; i++)
            puts_(b, "]");
        puts_(b, "}\n");
        break;
    }
    case 7:
        if (below(8) == 0) {
            gen_big(b);
            break;
        }
        /* fall through */
    case 8: {
        size_t k = below(64);
        for (size_t i = 0; i < k; i++) {
            uint8_t c = (uint8_t)fz_splitmix(&rng_state);
            put(b, &c, 1);
        }
        break;
    }
    default: {
        size_t k = 1 + below(6);
        for (size_t i = 0; i < k; i++)
            puts_(b, junk[below(sizeof junk / sizeof *junk)]);
    }
    }
}

static void generate(struct buf *b)
{
    b->n = 0;
    size_t pieces = 1 + below(8);
    for (size_t i = 0; i < pieces; i++)
        gen_piece(b);
    size_t m = below(3) == 0 ? below(4) : 0;
    for (size_t i = 0; i < m && b->n; i++)
        b->p[below(b->n)] = (uint8_t)"\n\r\"\\{}[]: ,0Cx"[below(14)];
}

static int fail(const uint8_t *p, size_t n, enum sg_protocol proto, const char *why)
{
    uint8_t pb = (uint8_t)proto;
    FILE *f = fopen("stream-failure.bin", "wb");
    if (f) {
        fwrite(&pb, 1, 1, f);
        fwrite(p, 1, n, f);
        fclose(f);
    }
    printf("FAILURE: %s (protocol %d, %zu bytes; written to stream-failure.bin)\n", why, (int)proto, n);
    fflush(stdout);
    return 1;
}

int main(int argc, char **argv)
{
    struct diff_opts o;
    unsigned long it;
    char msg[256];
    int i = diff_options(argc, argv, &o);
    if (i < 0)
        return 2;
    struct buf b = { 0 };
    if (i < argc) {
        for (; i < argc; i++) {
            FILE *f = fopen(argv[i], "rb");
            uint8_t tmp[65536];
            size_t got;
            if (!f) {
                perror(argv[i]);
                return 2;
            }
            b.n = 0;
            while ((got = fread(tmp, 1, sizeof tmp, f)) > 0)
                put(&b, tmp, got);
            fclose(f);
            if (b.n == 0)
                continue;
            enum sg_protocol proto = (enum sg_protocol)(b.p[0] % 3);
            const char *why = sh_check(b.p + 1, b.n - 1, proto, 6, msg, sizeof msg);
            if (why) {
                printf("%s: ", argv[i]);
                int r = fail(b.p + 1, b.n - 1, proto, why);
                free(b.p);
                return r;
            }
        }
        free(b.p);
        return 0;
    }
    rng_state = o.seed;
    size_t bytes = 0;
    for (it = 0; it < o.iterations; it++) {
        generate(&b);
        bytes += b.n;
        for (int proto = SG_AUTO; proto <= SG_FRAMED; proto++) {
            const char *why = sh_check(b.p, b.n, (enum sg_protocol)proto, 3, msg, sizeof msg);
            if (why) {
                int r = fail(b.p, b.n, (enum sg_protocol)proto, why);
                free(b.p);
                return r;
            }
        }
        if ((it & 63) == 0 && diff_time_is_up(&o))
            break;
    }
    if (o.verbose)
        printf("%lu streams (%zu bytes) x 3 protocols: all agreed\n", it, bytes);
    free(b.p);
    return 0;
}
