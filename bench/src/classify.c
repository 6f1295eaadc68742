/* SPDX-License-Identifier: MIT */
/* classify - the stream classifier alone (protocol/detect.h), for its
 * instruction counts under callgrind: the session guard's scan of each
 * ping answer on a stream started per call (lib/guard.c guard_whole), and
 * the filter's scan of 8 MiB answers in 256 KiB reads.
 *
 *   classify [PINGS [BIGS [ts]]]   (default 10000 10)
 *
 *   valgrind --tool=callgrind bench/bin/classify 10000 0
 *   callgrind_annotate --inclusive=yes callgrind.out.PID | grep ping_once
 *
 * gives the instructions per ping (divide by PINGS); `0 10` the 8 MiB side.
 * The ping answer is {"jsonrpc":"2.0","id":N,"result":{}} (the Python and
 * Go SDKs' order), or with `ts` {"result":{},"jsonrpc":"2.0","id":N} (the
 * TypeScript SDK's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../protocol/detect.h"

static __attribute__((noinline)) int ping_once(const unsigned char *p, size_t n)
{
    struct sg_stream s;
    enum sg_verdict v;
    size_t off = 0;
    sg_stream_start(&s, SG_JSONL);
    while (off < n) {
        off += sg_stream_scan(&s, p + off, n - off, &v);
        if (v == SG_UNDECIDED)
            return 0;
    }
    return s.where == SW_OUTSIDE && !s.held;
}

static struct sg_stream g_big;

static int big_once(const unsigned char *b, size_t total)
{
    for (size_t off = 0; off < total;) {
        size_t piece = total - off < 262144 ? total - off : 262144, at = 0;
        while (at < piece) {
            enum sg_verdict v;
            at += sg_stream_scan(&g_big, b + off + at, piece - at, &v);
            if (v == SG_UNDECIDED)
                break;
        }
        off += piece;
    }
    return g_big.where == SW_OUTSIDE;
}

int main(int argc, char **argv)
{
    int pings = argc > 1 ? atoi(argv[1]) : 10000, bigs = argc > 2 ? atoi(argv[2]) : 10;
    int ts = argc > 3 && strcmp(argv[3], "ts") == 0;
    char msg[128];
    long ok = 0;
    for (int i = 0; i < pings; i++) {
        int n = ts ? snprintf(msg, sizeof msg, "{\"result\":{},\"jsonrpc\":\"2.0\",\"id\":%d}\n", i)
                   : snprintf(msg, sizeof msg, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{}}\n", i);
        ok += ping_once((const unsigned char *)msg, (size_t)n);
    }
    const char *head = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"";
    const char *tail = "\"}]}}\n";
    size_t len = (size_t)8 << 20, h = strlen(head), t = strlen(tail);
    unsigned char *b = malloc(len + t);
    if (!b)
        return 1;
    memcpy(b, head, h);
    memset(b + h, 'x', len - h);
    memcpy(b + len, tail, t);
    sg_stream_init(&g_big, SG_AUTO);
    for (int r = 0; r < bigs; r++)
        ok += big_once(b, len + t);
    free(b);
    printf("%ld of %d whole\n", ok, pings + bigs);
    return ok != pings + bigs;
}
