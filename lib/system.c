/* SPDX-License-Identifier: MIT */
/* lib/system.c - system(3): the shell it starts on the wire keeps the
 * guard. */

#include "internal.h"

/* ------------------------------------------------------------------ */
/* system(3) after the gate.
 *
 * glibc's system starts /bin/sh with its own internal posix_spawn and the
 * environment as it is: the marker is not in it (the constructor took it
 * out, so that the server sees its environment as it was), so a shell
 * started there on the wire would run unguarded, and a tool's `echo` would
 * reach the client.  While the guard is on and fd 1 is the wire, system is
 * done here, through our own posix_spawn (lib/exec.c: the marker, or the
 * filter for a shell the library cannot enter), with what POSIX and glibc
 * do around it: SIGINT and SIGQUIT ignored while the shell runs (counted,
 * for threads calling it at once), SIGCHLD blocked, the shell given the
 * caller's mask and those two back to their defaults unless they were
 * ignored, 127 as the status when no shell could be started, and the shell
 * killed if the calling thread is cancelled.  A command line that begins
 * with '-' or '+' goes to glibc's own: there glibc versions differ in
 * whether they put "--" before it. */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_users;
static struct sigaction g_intr, g_quit;

static void signals_ignore(void)
{
    struct sigaction ign = { .sa_handler = SIG_IGN };
    pthread_mutex_lock(&g_lock);
    if (g_users++ == 0) {
        sigaction(SIGINT, &ign, &g_intr);
        sigaction(SIGQUIT, &ign, &g_quit);
    }
    pthread_mutex_unlock(&g_lock);
}

static void signals_restore(void)
{
    pthread_mutex_lock(&g_lock);
    if (--g_users == 0) {
        sigaction(SIGINT, &g_intr, NULL);
        sigaction(SIGQUIT, &g_quit, NULL);
    }
    pthread_mutex_unlock(&g_lock);
}

static void shell_cancelled(void *arg)
{
    pid_t pid = *(pid_t *)arg;
    syscall(SYS_kill, pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    signals_restore();
}

static int run_shell(const char *line)
{
    char *argv[] = { (char *)"sh", (char *)"-c", (char *)line, NULL };
    sigset_t chld, mask, reset;
    posix_spawnattr_t attr;
    pid_t pid;
    int status = -1;

    signals_ignore();
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &mask);
    sigemptyset(&reset);
    if (g_intr.sa_handler != SIG_IGN)
        sigaddset(&reset, SIGINT);
    if (g_quit.sa_handler != SIG_IGN)
        sigaddset(&reset, SIGQUIT);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setsigmask(&attr, &mask);
    posix_spawnattr_setsigdefault(&attr, &reset);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    int r = posix_spawn(&pid, "/bin/sh", NULL, &attr, argv, environ);
    posix_spawnattr_destroy(&attr);
    if (r == 0) {
        pthread_cleanup_push(shell_cancelled, &pid);
        while (waitpid(pid, &status, 0) < 0)
            if (errno != EINTR) {
                status = -1;
                break;
            }
        pthread_cleanup_pop(0);
    } else {
        status = 127 << 8;      /* as if the shell had exited with 127 */
    }
    signals_restore();
    sigprocmask(SIG_SETMASK, &mask, NULL);
    return status;
}

EXPORT int system(const char *line)
{
    int fl;
    if (shut() && line)
        drain_now("system");   /* the shell writes to the diversion unseen */
    if (!line || !guarding() || in_vfork_child() || line[0] == '-' || line[0] == '+' ||
        (fl = REAL(fcntl)(1, F_GETFD)) < 0 || (fl & FD_CLOEXEC) || !is(1, &g_core.wire_id))
        return REAL(system)(line);
    say(3, "system: the shell starts on the wire with the guard");
    return run_shell(line);
}
