/* SPDX-License-Identifier: MIT */
/* spawnloop - start a program N times and print each start-to-exit time.
 *
 *   spawnloop -n N [-w] [-e NAME=VALUE]... [-u NAME]... -- PROG [ARG]...
 *
 * The child gets stdin /dev/null, stdout a pipe that is drained between
 * runs, stderr /dev/null.  -w puts STDIOGATE_WIRE=<identity of that pipe>
 * in the child's environment (the diverting state).  One line per run on
 * stdout: nanoseconds from posix_spawn to waitpid.  Exit 1 if any run
 * failed. */
#include "common.h"
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
    struct run_opts o;
    int opt;
    run_opts_init(&o, 10);
    while ((opt = getopt(argc, argv, "+n:we:u:")) != -1)
        if (!run_opt(&o, opt, optarg))
            return 2;
    if (optind >= argc) {
        fprintf(stderr, "usage: spawnloop -n N [-w] [-e NAME=VALUE]... -- PROG [ARG]...\n");
        return 2;
    }
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0)
        die("pipe");
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (devnull < 0)
        die("/dev/null");
    char **env = run_env(&o, out[1]);

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, devnull, 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, devnull, 2);

    long long *t = calloc((size_t)o.n, sizeof *t);
    int failed = 0;
    char sink[65536];
    for (long i = 0; i < o.n; i++) {
        pid_t pid;
        int status;
        long long t0 = now_ns();
        int rc = posix_spawn(&pid, argv[optind], &fa, NULL, argv + optind, env);
        if (rc != 0) {
            errno = rc;
            die(argv[optind]);
        }
        while (waitpid(pid, &status, 0) < 0)
            if (errno != EINTR)
                die("waitpid");
        t[i] = now_ns() - t0;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            failed = 1;
        while (read(out[0], sink, sizeof sink) > 0)
            ;
    }
    for (long i = 0; i < o.n; i++)
        printf("%lld\n", t[i]);
    if (failed)
        fprintf(stderr, "spawnloop: %s failed at least once\n", argv[optind]);
    return failed;
}
