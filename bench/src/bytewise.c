/* SPDX-License-Identifier: MIT */
/* bytewise.c N - a server that answers the client's first message, then
 * writes one message of N bytes of text one byte per write(2) (a writer
 * with no buffer of its own), and exits; on stderr "burst-ms MS CPU_MS":
 * from the first message read to the last write, wall and CPU time of this
 * process (bench/interpreters.py, issue 43: one byte per write). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double ms(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    char line[4096];
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 100000;
    if (!fgets(line, sizeof line, stdin))
        return 1;
    double t0 = ms(CLOCK_MONOTONIC), c0 = ms(CLOCK_PROCESS_CPUTIME_ID);
    static const char answer[] = "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}\n";
    if (write(1, answer, sizeof answer - 1) < 0)
        return 1;
    char *m = malloc(n + 128);
    if (!m)
        return 1;
    int k = sprintf(m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"");
    memset(m + k, 'x', n);
    strcpy(m + k + n, "\"}}\n");
    size_t len = strlen(m);
    for (size_t i = 0; i < len; i++)
        if (write(1, m + i, 1) != 1)
            return 1;
    fprintf(stderr, "burst-ms %.3f %.3f\n", ms(CLOCK_MONOTONIC) - t0, ms(CLOCK_PROCESS_CPUTIME_ID) - c0);
    return 0;
}
