/* SPDX-License-Identifier: MIT */
/* reader - a loop of small reads from stdin, timed after the first message.
 *
 *   reader [-s SIZE] [-g | -c] MSGLEN
 *
 * stdin is a pipe holding the client's first message (MSGLEN bytes) and
 * then data.  The reads that cover the message are not timed (they open the
 * gate); from the first read after it to end of input every call is timed
 * as a whole.  -s: bytes per read(2) (default 32).  -g: getline(3) on stdin
 * instead (lines from the stdio buffer, a read(2) only when it runs dry);
 * -c: getc(3), one call per byte.
 *
 * The loop is also timed in chunks of CHUNK calls; best= is the fastest
 * chunk's time per call, which leaves out the chunks another process or an
 * interrupt got into (this machine is shared).
 *
 * Prints {"jsonrpc":"2.0","method":"reader","params":{"calls":N,"ns":T,
 * "best_ps":P}} on stdout at the end (P: picoseconds per call in the best
 * chunk): after the gate opened, so in the diverting state the line reaching
 * stdout proves the gate opened (a JSON-RPC notification: the session guard
 * lets it through). */
#include "common.h"

#define CHUNK 512

static long long best = -1, chunk_t0;
static long long chunk_calls;

static inline void tick(void)
{
    if (++chunk_calls == CHUNK) {
        long long t = now_ns();
        if (best < 0 || t - chunk_t0 < best)
            best = t - chunk_t0;
        chunk_t0 = t;
        chunk_calls = 0;
    }
}

int main(int argc, char **argv)
{
    size_t size = 32;
    int use_getline = 0, use_getc = 0, opt;
    while ((opt = getopt(argc, argv, "s:gc")) != -1) {
        switch (opt) {
        case 's': size = (size_t)atol(optarg); break;
        case 'g': use_getline = 1; break;
        case 'c': use_getc = 1; break;
        default: return 2;
        }
    }
    if (optind >= argc)
        return 2;
    size_t msglen = (size_t)atol(argv[optind]);
    long long calls = 0, t0 = 0;
    size_t seen = 0;

    if (use_getc) {
        int c;
        while (seen < msglen && (c = getc(stdin)) != EOF)
            seen++;
        t0 = chunk_t0 = now_ns();
        while (getc(stdin) != EOF) {
            calls++;
            tick();
        }
    } else if (use_getline) {
        char *line = NULL;
        size_t cap = 0;
        ssize_t got;
        while (seen < msglen && (got = getline(&line, &cap, stdin)) > 0)
            seen += (size_t)got;
        t0 = chunk_t0 = now_ns();
        while (getline(&line, &cap, stdin) > 0) {
            calls++;
            tick();
        }
    } else {
        char *buf = malloc(size);
        ssize_t got;
        while (seen < msglen && (got = read(0, buf, size)) > 0)
            seen += (size_t)got;
        t0 = chunk_t0 = now_ns();
        while ((got = read(0, buf, size)) > 0) {
            calls++;
            tick();
        }
        if (got < 0)
            die("read");
    }
    long long t = now_ns() - t0;
    printf("{\"jsonrpc\":\"2.0\",\"method\":\"reader\",\"params\":{\"calls\":%lld,\"ns\":%lld,\"best_ps\":%lld}}\n",
           calls, t, best * 1000 / CHUNK);
    return 0;
}
