/* SPDX-License-Identifier: MIT */
/* relay - the floor for a filter process: a bare read/write relay between a
 * pipe and its own stdout, started the way stdiogate-filter starts its
 * filter (forked twice, COMMAND exec'd in this process with the pipe as fd 1).
 *
 *   relay COMMAND [ARG]...
 *
 * The relay reads 128 KiB at a time and writes what it read, nothing else. */
#include "common.h"
#include <sys/wait.h>

int main(int argc, char **argv)
{
    static char buf[128 * 1024];
    int p[2];
    if (argc < 2 || pipe(p) < 0)
        return 125;
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
