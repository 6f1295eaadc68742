/* SPDX-License-Identifier: MIT */
/* client - a JSON-RPC client for the per-message, throughput and
 * time-to-first-answer measurements.
 *
 *   client [-n REQUESTS] [-w] [-E] [-e NAME=VALUE]... [-u NAME]... -- CMD [ARG]...
 *
 * Starts CMD with its stdin and stdout on pipes (stderr /dev/null, or ours
 * with -E), sends an initialize request and waits for its answer (time to
 * first answer, from just before the spawn), then sends REQUESTS pings one
 * after the other, each after the previous answer arrived.  -w puts
 * STDIOGATE_WIRE=<identity of the server's stdout pipe> in CMD's
 * environment, as the wrapper would.  Lines that do not start with '{' are
 * skipped and counted (stray).  Prints one line:
 *   first_ns=.. requests=N total_ns=.. median_ns=.. p99_ns=.. min_ns=.. bytes=.. stray=..
 * total_ns covers the REQUESTS round trips only; min_ns is the fastest one;
 * srv_cpu_ns is the user+system CPU time of CMD and the children it waited
 * for (wait4), start-up included: less disturbed by other load than wall time. */
#include "common.h"
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#define BUFSZ (1 << 20)
static char buf[BUFSZ];
static size_t beg, end;
static int from_srv;
static long long stray, bytes;

/* Read one answer line; returns its length.  Checks that it is for id. */
static size_t read_answer(long id)
{
    char want[64], head[160];
    snprintf(want, sizeof want, "\"id\":%ld", id);
    for (;;) {
        size_t len = 0, hl = 0;
        for (;;) {
            if (beg == end) {
                ssize_t got = read(from_srv, buf, BUFSZ);
                if (got < 0 && errno == EINTR)
                    continue;
                if (got < 0)
                    die("read");
                if (got == 0) {
                    fprintf(stderr, "client: server closed its stdout (request %ld)\n", id);
                    exit(1);
                }
                beg = 0;
                end = (size_t)got;
            }
            char *nl = memchr(buf + beg, '\n', end - beg);
            size_t take = nl ? (size_t)(nl - (buf + beg)) + 1 : end - beg;
            if (hl < sizeof head - 1) {
                size_t h = take < sizeof head - 1 - hl ? take : sizeof head - 1 - hl;
                memcpy(head + hl, buf + beg, h);
                hl += h;
            }
            len += take;
            beg += take;
            if (nl)
                break;
        }
        head[hl] = 0;
        if (head[0] != '{') {
            stray++;
            continue;
        }
        if (!strstr(head, want)) {
            fprintf(stderr, "client: answer for another id (want %ld): %.80s\n", id, head);
            exit(1);
        }
        bytes += (long long)len;
        return len;
    }
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    struct run_opts o;
    int keep_stderr = 0, opt;
    run_opts_init(&o, 0);
    while ((opt = getopt(argc, argv, "+n:wEe:u:")) != -1) {
        if (opt == 'E')
            keep_stderr = 1;
        else if (!run_opt(&o, opt, optarg))
            return 2;
    }
    long n = o.n;
    if (optind >= argc) {
        fprintf(stderr, "usage: client [-n N] [-w] [-E] [-e NAME=VALUE]... -- CMD [ARG]...\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    int to[2], from[2];
    if (pipe2(to, O_CLOEXEC) != 0 || pipe2(from, O_CLOEXEC) != 0)
        die("pipe");
    char **env = run_env(&o, from[1]);
    int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, to[0], 0);
    posix_spawn_file_actions_adddup2(&fa, from[1], 1);
    if (!keep_stderr)
        posix_spawn_file_actions_adddup2(&fa, devnull, 2);

    static const char init[] =
        "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
        "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
        "\"clientInfo\":{\"name\":\"bench\",\"version\":\"0\"}}}\n";
    long long t0 = now_ns();
    pid_t pid = spawn_or_die(&fa, argv + optind, env);
    close(to[0]);
    close(from[1]);
    from_srv = from[0];
    write_all(to[1], init, sizeof init - 1, "write to server");
    read_answer(0);
    long long first = now_ns() - t0;
    bytes = 0;

    long long *lat = calloc((size_t)(n > 0 ? n : 1), sizeof *lat);
    char req[128];
    long long t1 = now_ns();
    for (long i = 1; i <= n; i++) {
        int len = snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"ping\"}\n", i);
        long long a = now_ns();
        write_all(to[1], req, (size_t)len, "write to server");
        read_answer(i);
        lat[i - 1] = now_ns() - a;
    }
    long long total = now_ns() - t1;
    close(to[1]);
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0)
        if (errno != EINTR)
            die("wait4");
    long long cpu = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
                    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
    long long median = 0, p99 = 0, min = 0;
    if (n > 0) {
        qsort(lat, (size_t)n, sizeof *lat, cmp_ll);
        median = lat[n / 2];
        p99 = lat[(n * 99) / 100];
        min = lat[0];
    }
    printf("first_ns=%lld requests=%ld total_ns=%lld median_ns=%lld p99_ns=%lld min_ns=%lld bytes=%lld "
           "stray=%lld srv_cpu_ns=%lld\n", first, n, total, median, p99, min, bytes, stray, cpu);
    return 0;
}
