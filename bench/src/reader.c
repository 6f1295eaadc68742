/* reader - a loop of small reads from stdin, timed after the first message.
 *
 *   reader [-s SIZE] [-g] MSGLEN
 *
 * stdin is a pipe holding the client's first message (MSGLEN bytes) and
 * then data.  The reads that cover the message are not timed (they open the
 * gate); from the first read after it to end of input every call is timed
 * as a whole.  -s: bytes per read(2) (default 32).  -g: getline(3) on stdin
 * instead (lines from the stdio buffer, a read(2) only when it runs dry).
 *
 * Prints "calls=N ns=T" on stdout at the end: after the gate opened, so in
 * the diverting state the line reaching stdout proves the gate opened. */
#include "common.h"

int main(int argc, char **argv)
{
    size_t size = 32;
    int use_getline = 0, opt;
    while ((opt = getopt(argc, argv, "s:g")) != -1) {
        switch (opt) {
        case 's': size = (size_t)atol(optarg); break;
        case 'g': use_getline = 1; break;
        default: return 2;
        }
    }
    if (optind >= argc)
        return 2;
    size_t msglen = (size_t)atol(argv[optind]);
    long long calls = 0, t0 = 0;
    size_t seen = 0;

    if (use_getline) {
        char *line = NULL;
        size_t cap = 0;
        ssize_t got;
        while (seen < msglen && (got = getline(&line, &cap, stdin)) > 0)
            seen += (size_t)got;
        t0 = now_ns();
        while (getline(&line, &cap, stdin) > 0)
            calls++;
    } else {
        char *buf = malloc(size);
        ssize_t got;
        while (seen < msglen && (got = read(0, buf, size)) > 0)
            seen += (size_t)got;
        t0 = now_ns();
        while ((got = read(0, buf, size)) > 0)
            calls++;
        if (got < 0)
            die("read");
    }
    long long t = now_ns() - t0;
    printf("calls=%lld ns=%lld\n", calls, t);
    return 0;
}
