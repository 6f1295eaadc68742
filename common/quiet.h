/* SPDX-License-Identifier: MIT */
/* quiet.h - a quiet child: a program of ours started from the server's
 * process that the server's wait(-1), waitpid(-1) and SIGCHLD never see,
 * that gets none of the program's signal handlers, and that the library
 * can reap.  The default mode's helper (lib/helper.c) and strict mode's
 * filter (filter/launcher.c) are started this way.
 *
 * An exec makes a process an ordinary child again (exit signal SIGCHLD),
 * so the program cannot be the server's child itself.  The server makes a
 * raw clone with no exit signal, the middle, which never execs: it starts
 * the program as its own child, tells the server the program's pid, lets go
 * of every descriptor and waits for it.  The server (the library) reaps
 * the middle with waitpid(pid, __WALL) once the program has ended.  (A
 * server that has exec'd since the clone gets a SIGCHLD when the middle
 * ends, which no wait(-1) of its explains: the kernel sends it then.)
 * Everything between the clone and the exec is raw system calls (the
 * server's memory is a copy there, its locks may be held), with every
 * signal blocked (the mask the middle is created with).
 *
 * The program's descriptors 0 to 3 are given in fd[] (-1: closed; its own
 * number: kept, its close-on-exec flag cleared: a program may have set it
 * on stderr since the start, as Node does); none of the others may be
 * below 5.  Descriptor 4 is the status pipe, closed by the exec: the pid
 * of the program (negated), then an errno if the exec failed, or the end
 * of file if it succeeded.
 */
#ifndef STDIOGATE_QUIET_H
#define STDIOGATE_QUIET_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper.h"

#define SG_QUIET_FDS 4
#define SG_QUIET_STATUS SG_QUIET_FDS

struct sg_quiet {
    const char *path;
    char *const *argv;
    char *const *envp;
    int fd[SG_QUIET_FDS];
    int status;         /* the status pipe's write end (the starter's) */
};

/* In the program's process, between clone and exec. */
__attribute__((noreturn)) static inline void sg_quiet_exec(const struct sg_quiet *q)
{
    int e = 0, out = q->status;
    for (int i = 0; i < SG_QUIET_FDS && !e; i++) {
        /* (a descriptor kept that is closed stays closed: stderr may be) */
        long r = q->fd[i] == i ? (syscall(SYS_fcntl, i, F_SETFD, 0) < 0 && errno != EBADF ? -1 : 0)
               : q->fd[i] >= 0 ? syscall(SYS_dup3, q->fd[i], i, 0)
               : (syscall(SYS_close, i), 0);
        if (r < 0)
            e = errno;
    }
    if (!e && syscall(SYS_dup3, q->status, SG_QUIET_STATUS, O_CLOEXEC) < 0)
        e = errno;
    if (!e) {
        out = SG_QUIET_STATUS;
        sg_close_from(SG_QUIET_STATUS + 1);
        (void)syscall(SYS_execve, q->path, q->argv, q->envp);
        e = errno;
    }
    (void)syscall(SYS_write, out, &e, sizeof e);
    (void)syscall(SYS_exit_group, 127);
    __builtin_unreachable();
}

/* The middle, named as ours (ps, and --check's count of what a server
 * leaves). */
__attribute__((noreturn)) static inline void sg_quiet_middle(const struct sg_quiet *q)
{
    int st;
    (void)syscall(SYS_prctl, PR_SET_NAME, (unsigned long)"stdiogate-wait", 0UL, 0UL, 0UL);
    pid_t child = (pid_t)syscall(SYS_clone, (unsigned long)SIGCHLD, 0UL, 0UL, 0UL, 0UL);
    if (child == 0)
        sg_quiet_exec(q);
    if (child < 0) {
        int e = errno;
        (void)syscall(SYS_write, q->status, &e, sizeof e);
        (void)syscall(SYS_exit_group, 127);
    }
    int told = -(int)child;      /* a pid, told apart from an errno by its sign */
    (void)syscall(SYS_write, q->status, &told, sizeof told);
    sg_close_from(0);
    while (syscall(SYS_wait4, child, &st, 0, NULL) < 0 && errno == EINTR)
        ;
    (void)syscall(SYS_exit_group, 0);
    __builtin_unreachable();
}

/* Reads one int of the status pipe: 1, 0 at its end, -1 on an error. */
static inline int sg_quiet_word(int fd, int *word)
{
    long r;
    while ((r = syscall(SYS_read, fd, word, sizeof *word)) < 0 && errno == EINTR)
        ;
    return r == (long)sizeof *word ? 1 : r == 0 ? 0 : -1;
}

/* Starts q: the middle's pid, *program the program's; or -1, errno set
 * (EINVAL where a clone without exit signal is refused, as by qemu-user).
 * Raw system calls only: the library's interposers are not involved. */
static inline pid_t sg_quiet_start(struct sg_quiet *q, pid_t *program)
{
    int st[2], word = 0, e;
    sigset_t all, caller;
    if (syscall(SYS_pipe2, st, O_CLOEXEC) != 0)
        return -1;
    /* both ends above the program's: with stderr closed, one would be 2 */
    for (int i = 0; i < 2; i++) {
        int high = (int)syscall(SYS_fcntl, st[i], F_DUPFD_CLOEXEC, SG_QUIET_STATUS + 1);
        (void)syscall(SYS_close, st[i]);
        st[i] = high;
    }
    q->status = st[1];
    if (st[0] < 0 || st[1] < 0) {
        e = errno;
        (void)syscall(SYS_close, st[0]);
        (void)syscall(SYS_close, st[1]);
        errno = e;
        return -1;
    }
    /* No handler of the program's may run in the children. */
    sigfillset(&all);
    (void)syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &caller, _NSIG / 8);
    pid_t pid = (pid_t)syscall(SYS_clone, 0UL, 0UL, 0UL, 0UL, 0UL);
    if (pid == 0)
        sg_quiet_middle(q);
    e = errno;
    (void)syscall(SYS_rt_sigprocmask, SIG_SETMASK, &caller, NULL, _NSIG / 8);
    (void)syscall(SYS_close, q->status);
    if (pid > 0) {
        e = EAGAIN;
        int r = sg_quiet_word(st[0], &word);
        if (r == 1 && word < 0) {
            *program = -word;
            r = sg_quiet_word(st[0], &word);
            e = r == 0 ? 0 : r == 1 ? word : EIO;
        } else if (r == 1 && word > 0) {
            e = word;
        }
        if (e)
            while (syscall(SYS_wait4, pid, NULL, __WCLONE, NULL) < 0 && errno == EINTR)
                ;
    }
    (void)syscall(SYS_close, st[0]);
    if (pid <= 0 || e) {
        errno = e ? e : EAGAIN;
        return -1;
    }
    return pid;
}

#endif
