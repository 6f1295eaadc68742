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
    long n = 10;
    int wire = 0, opt;
    struct envb env;
    env_init(&env);
    char *sets[64];
    int nsets = 0;
    while ((opt = getopt(argc, argv, "+n:we:u:")) != -1) {
        switch (opt) {
        case 'n': n = atol(optarg); break;
        case 'w': wire = 1; break;
        case 'e': if (nsets < 64) sets[nsets++] = optarg; break;
        case 'u': env_unset(&env, optarg); break;
        default: return 2;
        }
    }
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
    for (int i = 0; i < nsets; i++)
        env_set(&env, sets[i]);
    if (wire)
        env_set(&env, wire_of(out[1]));

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, devnull, 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, devnull, 2);

    long long *t = calloc((size_t)n, sizeof *t);
    int failed = 0;
    char sink[65536];
    for (long i = 0; i < n; i++) {
        pid_t pid;
        int status;
        long long t0 = now_ns();
        int rc = posix_spawn(&pid, argv[optind], &fa, NULL, argv + optind, env.v);
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
    for (long i = 0; i < n; i++)
        printf("%lld\n", t[i]);
    if (failed)
        fprintf(stderr, "spawnloop: %s failed at least once\n", argv[optind]);
    return failed;
}
