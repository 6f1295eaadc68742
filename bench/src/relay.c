/* SPDX-License-Identifier: MIT */
/* relay - the floor for a filter process: a bare read/write relay between a
 * pipe and its own stdout, started the way stdiogate-filter starts its
 * filter (forked twice, COMMAND exec'd in this process with the pipe as fd 1).
 *
 *   relay [-g] COMMAND [ARG]...
 *
 * The relay reads 128 KiB at a time and writes what it read, nothing else.
 * -g gives its pipe and its stdout 1 MiB first (F_SETPIPE_SZ), as the
 * strict filter does for a large message: the same wake-ups, no filtering. */
#include "common.h"
#include <fcntl.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
    static char buf[128 * 1024];
    int p[2];
    int grow = argc > 1 && strcmp(argv[1], "-g") == 0;
    argv += grow;
    argc -= grow;
    if (argc < 2 || pipe(p) < 0)
        return 125;
    if (grow) {
        (void)fcntl(p[0], F_SETPIPE_SZ, 1 << 20);
        (void)fcntl(1, F_SETPIPE_SZ, 1 << 20);
    }
    pid_t middle = fork();
    if (middle == 0) {
        if (fork() == 0) {
            close(p[1]);
            close(0);
            for (;;) {
                ssize_t n = read(p[0], buf, sizeof buf);
                if (n <= 0)
                    _exit(0);
                for (ssize_t off = 0; off < n;) {
                    ssize_t w = write(1, buf + off, (size_t)(n - off));
                    if (w < 0)
                        _exit(1);
                    off += w;
                }
            }
        }
        _exit(0);
    }
    waitpid(middle, NULL, 0);
    dup2(p[1], 1);
    close(p[0]);
    close(p[1]);
    execvp(argv[1], argv + 1);
    return 127;
}
