/* SPDX-License-Identifier: MIT */
/* filter/launcher.c - stdiogate-filter: strict mode, and main.
 *
 *   stdiogate-filter [--protocol auto|jsonl|framed] [--discard] [--path FILE] [--unenterable] -- COMMAND [ARG]...
 *
 * The wrapper runs this for `stdiogate --strict`.  It starts a filter
 * process between a pipe and its own stdout (the wire), then execs COMMAND
 * in its own process (the pid the client started) with the pipe as fd 1.
 * The filter passes the protocol messages in the pipe to the wire byte for
 * byte, and sends everything else to stderr (detect.h, "The stream
 * classifier", says what is which).
 *
 *   client stdout <-- wire --- filter <-- pipe --- fd 1 of COMMAND (same pid)
 *   stderr <------------------- junk              client stdin --> fd 0
 *
 * The filter (relay.c) is a quiet child (quiet.h): `stdiogate-filter
 * --relay`, run from a middle process that the server's wait(-1) and
 * SIGCHLD never see, named to COMMAND by STDIOGATE_WIRE=filter:PID:MIDDLE,
 * so that the library, if COMMAND loads it, lets go of the pipe at exit,
 * waits for the filter and reaps the middle (lib/strict.c): where pid 1
 * reaps nothing, nothing is left.  Where that clone is refused (qemu-user),
 * it is forked twice instead (the middle reaped at once): nobody's child,
 * reparented.  COMMAND gets the signal dispositions and mask this program
 * was started with.  libc only; built statically, so that the LD_PRELOAD
 * the wrapper set does not load the library into this program.
 *
 * --path FILE: exec FILE with COMMAND [ARG]... as its argv (COMMAND is then
 * only argv[0]), as execve would: the library starts a program it cannot
 * enter this way, with the file it resolved and the argv it was given.
 * --unenterable (the wrapper's choice of the filter for such a COMMAND, and
 * implied by --path): COMMAND gets no marker naming the filter, as it
 * cannot load the library that would reap it.
 *
 * Exit status: COMMAND's (exec); 125 bad usage, 126 COMMAND not executable,
 * 127 COMMAND not found.  If the filter cannot be started (stdout closed, no
 * pipe or process), COMMAND runs unfiltered, with a warning.
 *
 *   stdiogate-filter --drain PID     (internal: libstdiogate.so runs it;
 *                                    drain.c)
 *   stdiogate-filter --relay PROTOCOL DISCARD NAME PID   (internal: the
 *                                    filter itself, started as above)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "filter.h"
#include "../common/quiet.h"

/* COMMAND cannot load the library (--path, --unenterable): the marker that
 * names the filter to it would only change its environment. */
static int g_unenterable;

static _Noreturn void run(const char *path, char **argv)
{
    if (path)
        execv(path, argv);
    else
        execvp(argv[0], argv);
    int e = errno;
    say(1, "cannot run %s: %s", path ? path : argv[0], strerror(e));
    exit(e == ENOENT ? 127 : 126);
}

/* The filter as a quiet child on the pipe's read end in: the middle's pid,
 * or -1 (errno set). */
static pid_t start_quiet(int in, enum sg_protocol protocol, int discard)
{
    static char relay[] = "--relay", name[] = SG_HELPER, pid[24];
    extern char **environ;
    (void)snprintf(pid, sizeof pid, "%ld", g_server_pid);
    char *argv[] = { name, relay, (char *)protocol_name(protocol), discard ? "1" : "0",
                     g_server, pid, NULL };
    struct sg_quiet q = { .path = "/proc/self/exe", .argv = argv, .envp = environ,
                          .fd = { in, WIRE, 2, -1 } };
    pid_t program;
    return sg_quiet_start(&q, &program);
}

/* The filter forked twice: nobody's child. */
static int start_forked(int in, enum sg_protocol protocol, int discard)
{
    sigset_t all, caller;
    /* No signal handler of the caller's may run in the children before
     * the filter has set its own dispositions. */
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &caller);
    pid_t middle = fork();
    if (middle == 0) {
        pid_t filter = fork();
        if (filter == 0)
            filter_run(in, protocol, discard);
        _exit(filter < 0);
    }
    int status = 1;
    if (middle > 0) {
        pid_t r;
        while ((r = waitpid(middle, &status, 0)) < 0 && errno == EINTR)
            ;
        if (r < 0)              /* ECHILD: SIGCHLD ignored, reaped by the kernel */
            status = 0;
    }
    sigprocmask(SIG_SETMASK, &caller, NULL);
    return middle > 0 && status == 0;
}

/* Start the filter on the read end of a pipe and put the write end on fd 1.
 * Returns 0 if it could not, everything left as it was. */
static int start_filter(enum sg_protocol protocol, int discard)
{
    struct stat st;
    int p[2];

    if (fstat(WIRE, &st) < 0) {
        say(1, "strict: stdout is closed: running without the filter");
        return 0;
    }
    if (pipe2(p, O_CLOEXEC) < 0 || (p[0] = above(p[0], SG_QUIET_STATUS + 1)) < 0 ||
        (p[1] = above(p[1], 3)) < 0) {
        say(1, "strict: cannot create a pipe (%s): running without the filter", strerror(errno));
        return 0;
    }
    pid_t middle = start_quiet(p[0], protocol, discard);
    int started = middle > 0 || (errno == EINVAL && start_forked(p[0], protocol, discard));
    close(p[0]);
    if (!started) {
        close(p[1]);
        say(1, "strict: cannot start the filter: running without it");
        return 0;
    }
    if (dup2(p[1], WIRE) < 0 || fstat(WIRE, &st) < 0)
        _exit(125);
    close(p[1]);
    /* The filter must see every byte COMMAND writes: the library, if
     * COMMAND loads it, finds no wire named and diverts nothing (a diversion
     * would send the start of an answer written in pieces to stderr); it
     * finds the filter to wait for at exit instead. */
    if (middle > 0 && !g_unenterable) {
        char marker[64];
        (void)snprintf(marker, sizeof marker, SG_MARKER_FILTER "%ld:%ld", g_server_pid, (long)middle);
        setenv(SG_ENV_WIRE, marker, 1);
    } else {
        unsetenv(SG_ENV_WIRE);
    }
    return 1;
}

static _Noreturn void usage_error(const char *what)
{
    (void)fprintf(stderr, "stdiogate-filter: %s\n"
            "Usage: stdiogate-filter [--protocol auto|jsonl|framed] [--discard] [--path FILE] [--unenterable] -- COMMAND [ARG]...\n",
            what);
    exit(125);
}

/* auto, jsonl or framed; -1 for anything else. */
static int protocol_named(const char *v)
{
    return !v ? -1 : strcmp(v, "auto") == 0 ? SG_AUTO : strcmp(v, "jsonl") == 0 ? SG_JSONL
         : strcmp(v, "framed") == 0 ? SG_FRAMED : -1;
}

int main(int argc, char **argv)
{
    /* Without --protocol (the library starts a program it cannot enter
     * this way): what the user chose for the session, STDIOGATE_PROTOCOL. */
    int protocol = (int)sg_env_protocol(getenv(SG_ENV_PROTOCOL));
    int discard = sg_env_discard(getenv(SG_ENV_DISCARD)), i;
    const char *path = NULL;

    (void)sg_env_debug(getenv(SG_ENV_DEBUG), &g_level);
    if (argc == 3 && strcmp(argv[1], "--drain") == 0) {
        g_as = (pid_t)strtol(argv[2], NULL, 10);
        drain_run(discard);
    }
    if (argc == 6 && strcmp(argv[1], "--relay") == 0 && protocol_named(argv[2]) >= 0) {
        /* the filter itself, started by start_quiet: PROTOCOL DISCARD NAME PID */
        (void)snprintf(g_server, sizeof g_server, "%s", argv[4]);
        g_server_pid = strtol(argv[5], NULL, 10);
        filter_run(0, (enum sg_protocol)protocol_named(argv[2]), strcmp(argv[3], "1") == 0);
    }
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else if (strcmp(argv[i], "--discard") == 0) {
            discard = 1;
        } else if (strcmp(argv[i], "--path") == 0 && i + 1 < argc) {
            path = argv[++i];
            g_unenterable = 1;      /* the library's exec path: a program it cannot enter */
        } else if (strcmp(argv[i], "--unenterable") == 0) {
            g_unenterable = 1;
        } else if (strcmp(argv[i], "--protocol") == 0 && i + 1 < argc) {
            if ((protocol = protocol_named(argv[++i])) < 0)
                usage_error("--protocol takes auto, jsonl or framed");
        } else {
            usage_error("unknown option");
        }
    }
    if (i >= argc)
        usage_error("no COMMAND given");
    /* the log names the server: COMMAND, in this process after the exec */
    const char *base = strrchr(argv[i], '/');
    (void)snprintf(g_server, sizeof g_server, "%s", base ? base + 1 : argv[i]);
    g_server_pid = (long)getpid();
    (void)start_filter(protocol < 0 ? SG_AUTO : (enum sg_protocol)protocol, discard);
    run(path, argv + i);
}
