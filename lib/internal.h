/* SPDX-License-Identifier: MIT */
/* lib/internal.h - what the library's files share: the includes, the
 * macros (REAL, LOAD/STORE, EXPORT, say...), the real-function table, the
 * state (defined in shim.c) and the functions one file calls in another.
 * All of it is hidden (the visibility pragma below): only the
 * interposers, marked EXPORT, leave the library. */
#ifndef STDIOGATE_LIB_INTERNAL_H
#define STDIOGATE_LIB_INTERNAL_H

#undef _FORTIFY_SOURCE
#undef _FILE_OFFSET_BITS
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
/* glibc's extern inline getc_unlocked, getline... would clash with ours. */
#ifndef __NO_INLINE__
#define __NO_INLINE__ 1
#endif

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/auxv.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/kcmp.h>
#include <wchar.h>

#include "../protocol/detect.h"
#include "../common/env.h"
#include "../common/junk.h"
#include "../common/helper.h"
#include "../common/quiet.h"
#include "../common/inspect.h"
#include "../common/stall.h"
#include "iov.h"

/* Every symbol version the library needs costs each process that loads it
 * a lookup in libc's version table (issue 35's load): these few calls are
 * made without the versions they would add.  memcpy@GLIBC_2.14 is x86_64's
 * alone (its GLIBC_2.2.5 one copies as memmove does: correct for memcpy's
 * callers too); fstat (2.33), pipe2 (2.9) are system calls with nothing
 * added in libc; pthread_sigmask (2.32) is what sigprocmask does in a
 * thread; access tells what faccessat's AT_EACCESS (2.4) would, in a
 * process the library is active in (never one that gained privileges). */
#if defined(__x86_64__)
__asm__(".symver memcpy, memcpy@GLIBC_2.2.5");
#endif
static inline int sg_fstat(int fd, struct stat *st)
{
    return (int)syscall(SYS_fstat, fd, st);
}
static inline int sg_pipe2(int p[2], int flags)
{
    return (int)syscall(SYS_pipe2, p, flags);
}

#define EXPORT __attribute__((visibility("default")))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define LOAD(v) __atomic_load_n(&(v), __ATOMIC_ACQUIRE)
#define STORE(v, x) __atomic_store_n(&(v), (x), __ATOMIC_RELEASE)

/* (the names, as the library's files call them: ../common/env.h) */
#define MARKER SG_ENV_WIRE
#define HANDSHAKE SG_ENV_OPEN

/* glibc entry points that no header declares without fortify or at all. */
extern ssize_t __read_chk(int, void *, size_t, size_t);
extern ssize_t __pread_chk(int, void *, size_t, off_t, size_t);
extern ssize_t __pread64_chk(int, void *, size_t, off64_t, size_t);
extern ssize_t __recv_chk(int, void *, size_t, size_t, int);
extern ssize_t __recvfrom_chk(int, void *, size_t, size_t, int, struct sockaddr *, socklen_t *);
extern char *__fgets_chk(char *, size_t, int, FILE *);
extern char *__fgets_unlocked_chk(char *, size_t, int, FILE *);
extern size_t __fread_chk(void *, size_t, size_t, size_t, FILE *);
extern size_t __fread_unlocked_chk(void *, size_t, size_t, size_t, FILE *);
extern ssize_t __getdelim(char **, size_t *, int, FILE *);
extern int __uflow(FILE *);
extern int _IO_getc(FILE *);
extern int fcntl64(int, int, ...);
extern int __isoc99_scanf(const char *, ...);
extern int __isoc99_fscanf(FILE *, const char *, ...);
extern int __isoc99_vscanf(const char *, va_list);
extern int __isoc99_vfscanf(FILE *, const char *, va_list);
extern int __isoc23_scanf(const char *, ...);
extern int __isoc23_fscanf(FILE *, const char *, ...);
extern int __isoc23_vscanf(const char *, va_list);
extern int __isoc23_vfscanf(FILE *, const char *, va_list);
extern wint_t __wuflow(FILE *);
extern wchar_t *__fgetws_chk(wchar_t *, size_t, int, FILE *);
extern wchar_t *__fgetws_unlocked_chk(wchar_t *, size_t, int, FILE *);
extern int __isoc99_vfwscanf(FILE *, const wchar_t *, va_list);
extern int __isoc23_vfwscanf(FILE *, const wchar_t *, va_list);
/* Declared by glibc 2.34 and later only; interposed on any glibc (they
 * are system calls an older program may make through its own wrapper). */
extern int close_range(unsigned int, unsigned int, int);
extern void closefrom(int);
extern int execveat(int, const char *, char *const[], char *const[], int);
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)   /* linux/close_range.h */
#endif

/* ------------------------------------------------------------------ */
/* The real functions, found lazily: a pass-through process pays only for
 * what it calls.  A diverting process resolves up front what may run where
 * dlsym must not (signal handlers, vfork children); stdio and the rest stay
 * lazy. */
#define EAGER_FUNCTIONS(X) \
    X(read) X(__read_chk) X(readv) X(pread) X(pread64) X(__pread_chk) \
    X(__pread64_chk) X(preadv) X(preadv64) X(preadv2) X(preadv64v2) \
    X(recv) X(__recv_chk) X(recvfrom) X(__recvfrom_chk) X(recvmsg) \
    X(dup) X(dup2) X(dup3) X(fcntl) X(fcntl64) X(close) X(close_range) \
    X(closefrom) X(execve) X(execvpe) X(execvp) X(fexecve) X(execveat) \
    X(posix_spawn) X(posix_spawnp) X(daemon)

#define LAZY_FUNCTIONS(X) \
    X(fgets) X(__fgets_chk) X(fgets_unlocked) X(__fgets_unlocked_chk) \
    X(getline) X(getdelim) X(__getdelim) X(fread) X(__fread_chk) \
    X(fread_unlocked) X(__fread_unlocked_chk) X(getc) X(fgetc) X(_IO_getc) \
    X(getchar) X(getc_unlocked) X(fgetc_unlocked) X(getchar_unlocked) \
    X(__uflow) X(ungetc) X(vfscanf) X(__isoc99_vfscanf) X(setenv) X(putenv)

/* The write entry points the fail-safe watches (glibc has no __write_chk).
 * A diverting process resolves up front the ones the fail-safe itself
 * writes with; the rare ones and stdio's fflush stay lazy. */
extern ssize_t __write(int, const void *, size_t);
extern ssize_t __send(int, const void *, size_t, int);
#define WRITE_FUNCTIONS(X) \
    X(write) X(writev) X(pwrite) X(pwrite64) X(send) X(sendto) X(sendmsg)
#define LAZY_WRITE_FUNCTIONS(X) \
    X(__write) X(pwritev) X(pwritev64) X(pwritev2) X(pwritev64v2) X(__send) X(fflush) \
    X(sendfile) X(sendfile64) X(splice) X(vmsplice)

/* C stdio's output functions (lib/stdout.c). */
extern int __printf_chk(int, const char *, ...);
extern int __fprintf_chk(FILE *, int, const char *, ...);
extern int __vprintf_chk(int, const char *, va_list);
extern int __vfprintf_chk(FILE *, int, const char *, va_list);
extern int __dprintf_chk(int, int, const char *, ...);
extern int __vdprintf_chk(int, int, const char *, va_list);
extern int __overflow(FILE *, int);
extern int _IO_putc(int, FILE *);
#define STDIO_FUNCTIONS(X) \
    X(vprintf) X(vfprintf) X(__vprintf_chk) X(__vfprintf_chk) X(vdprintf) X(__vdprintf_chk) \
    X(fputs) X(fputs_unlocked) X(puts) X(fwrite) X(fwrite_unlocked) X(fputc) X(putc) \
    X(_IO_putc) X(fputc_unlocked) X(putc_unlocked) X(putchar) X(putchar_unlocked) \
    X(__overflow) X(fflush_unlocked) X(fclose) X(system)

#define DECLARE_REAL(f) extern __attribute__((visibility("hidden"))) __typeof__(&f) real_##f;
EAGER_FUNCTIONS(DECLARE_REAL)
LAZY_FUNCTIONS(DECLARE_REAL)
WRITE_FUNCTIONS(DECLARE_REAL)
LAZY_WRITE_FUNCTIONS(DECLARE_REAL)
STDIO_FUNCTIONS(DECLARE_REAL)

/* Wide stdio, and the scanf names of glibc 2.38 and later (absent before:
 * dlsym gives NULL there, and no program that runs there calls them). */
#define WIDE_FUNCTIONS(X) \
    X(fgetwc) X(getwc) X(fgetwc_unlocked) X(getwc_unlocked) X(getwchar) \
    X(getwchar_unlocked) X(__wuflow) X(fgetws) X(fgetws_unlocked) \
    X(__fgetws_chk) X(__fgetws_unlocked_chk) X(vfwscanf) X(__isoc99_vfwscanf) \
    X(__isoc23_vfwscanf) X(__isoc23_vfscanf)
WIDE_FUNCTIONS(DECLARE_REAL)

#define REAL(f) ({ \
    __typeof__(&f) p_ = __atomic_load_n(&real_##f, __ATOMIC_RELAXED); \
    if (unlikely(!p_)) { \
        p_ = (__typeof__(&f))dlsym(RTLD_NEXT, #f); \
        __atomic_store_n(&real_##f, p_, __ATOMIC_RELAXED); \
    } \
    p_; })

/* fd becomes a copy of to, its own close-on-exec flag kept (dup3 would
 * clear it): where fd 1 or a copy of it is pointed somewhere else. */
static inline int repoint(int to, int fd)
{
    int fl = REAL(fcntl)(fd, F_GETFD);
    return REAL(dup3)(to, fd, (fl > 0 && (fl & FD_CLOEXEC)) ? O_CLOEXEC : 0);
}

extern int __open_2(const char *, int);
extern int __open64_2(const char *, int);
extern int __openat_2(int, const char *, int);
extern int __openat64_2(int, const char *, int);

#define REOPEN_FUNCTIONS(X) \
    X(open) X(open64) X(openat) X(openat64) X(__open_2) X(__open64_2) \
    X(__openat_2) X(__openat64_2) X(epoll_ctl) X(fopen) X(fopen64) X(freopen) X(freopen64)
REOPEN_FUNCTIONS(DECLARE_REAL)

#define RESOLVE(f) (void)REAL(f);

/* ------------------------------------------------------------------ */
/* Macros and types of more than one file. */

/* say(level, string...): say_line with the sentinel its loop stops at. */
#define say(...) say_line(__VA_ARGS__, (const char *)0)

#define NUM(v) fmt_num(numbuf + sizeof numbuf, (unsigned long long)(v))
/* A second number in the same line needs a buffer of its own. */
#define NUM_IN(buf, v) fmt_num((buf) + sizeof (buf), (unsigned long long)(v))

enum gate { GATE_OPEN = 0, GATE_SHUT = 1, GATE_OPENING = 2 };

/* How long the gate's opening waits for the helper to end (it does at
 * once, unless a child of the server holds the pipe too). */
#define HELPER_END_MS 20

struct identity { dev_t dev; ino_t ino; int valid; };

/* Descriptors that are copies of the diversion (a shell's saved fd 1, an
 * SDK's private stdout): they follow fd 1 onto the wire when the gate opens.
 * One bit per descriptor number, up to the hard RLIMIT_NOFILE: a diverting
 * constructor maps a bitmap that large (untouched pages cost nothing);
 * g_top bounds the walks. */
#define TRACKED_STATIC 4096
#define TRACKED_MAX (1UL << 26)
#define WORD_BITS (8 * sizeof(unsigned long))

/* A posix_spawn file action as glibc lays it out (see lib/glibc.c). */
struct spawn_action {
    int tag;
    union {
        struct { int fd; } close_action;
        struct { int fd; int newfd; } dup2_action;
        struct { int fd; char *path; int oflag; mode_t mode; } open_action;
        struct { char *path; } chdir_action;
    } action;
};

/* What an action does to the child's fd 1 (lib/glibc.c reads the tags). */
enum spawn_kind { SPAWN_UNKNOWN, SPAWN_DUP2, SPAWN_ON_FD, SPAWN_ELSEWHERE };

/* eof: 1 at end of input; GATE_BY_ANSWER when the fail-safe saw an answer. */
#define GATE_BY_ANSWER 2

/* Readers are on the server's hot path: with the gate open and the real
 * function known, an interposer is a load, two tests and a jump.  Its body
 * lives out of line, so that this path needs no stack frame.  Deciding
 * before the call is safe: once open, the gate never shuts again. */
#define READER(ret, name, params, args, ...) FAST_PATH(gated, ret, name, params, args, __VA_ARGS__)

/* An interposer whose fast path is its real function while busy() (one or
 * two relaxed loads) says there is nothing to do: the body is the slow
 * path, out of line. */
#define FAST_PATH(busy, ret, name, params, args, ...)                           \
    __attribute__((noinline, cold)) static ret slow_##name params __VA_ARGS__     \
    EXPORT ret name params                                                        \
    {                                                                             \
        __typeof__(&name) p_ = __atomic_load_n(&real_##name, __ATOMIC_RELAXED);   \
        if (likely(p_ != NULL) && !busy())                                        \
            return p_ args;                                                       \
        return slow_##name args;                                                  \
    }

/* Everything declared from here on is internal to the library. */
#pragma GCC visibility push(hidden)

/* The wire and the diversion in this process: the state shim.c keeps
 * (g_core), written by the constructor before any other thread exists, then
 * only with atomics, and never by a vfork child. */
struct core {
    int state;                      /* enum gate; 0 before the constructor: pass-through */
    int wire;                       /* private descriptor holding the wire */
    int div;                        /* private descriptor holding the diversion (or -1) */
    int fd1_ours;                   /* fd 1 still points at our diversion */
    pid_t pid;                      /* the process the state belongs to */
    int err;                        /* private non-blocking handle on stderr (a pipe), or -1 */
    struct identity wire_id;        /* the wire, as the marker names it */
    struct identity stdin_id;       /* stdin at start */
    struct identity div_id;         /* the diversion */
    int div_flags;                  /* status flags of the diversion at start */
    const char *div_name;           /* what the diversion is, for diagnostics */
};
extern struct core g_core;

/* The rest of the state defined in shim.c, and what shim.c gives the other
 * files. */
extern char g_marker[80];
extern char *g_marker_out;
void hand_marker(void);
extern char *g_marker_guarded;
void flush_stdout(void);
int open_gate_with(const char *how, unsigned long long bytes, int eof,
                   const struct iovec *first, int nfirst);
void open_gate(const char *how, unsigned long long bytes, int eof);
void wait_while_opening(void);
void release_if_unused(void);

static inline int gated(void)
{
    return unlikely(__atomic_load_n(&g_core.state, __ATOMIC_RELAXED) != GATE_OPEN);
}

static inline int shut(void)
{
    return LOAD(g_core.state) == GATE_SHUT;
}

/* A vfork child shares our memory: it must leave the state alone.  fork
 * children get their own pid through the atfork handler. */
static inline int in_vfork_child(void)
{
    return getpid() != LOAD(g_core.pid);
}

/* ------------------------------------------------------------------ */
/* lib/real.c: the real functions. */

void resolve_eager(void);

/* ------------------------------------------------------------------ */
/* lib/interpreters.c: the environment's NAME, as getenv gives it (the
 * library's own lookups: no binding of getenv or of the libc calls it
 * makes). */

char *env_value(const char *name);

/* ------------------------------------------------------------------ */
/* lib/say.c: diagnostics. */

extern int g_level;
extern int g_log_ok;
char *fmt_num(char *end, unsigned long long v);
int stderr_handle(void);
void close_stderr_handle(int fd);
int stderr_waits(const struct stat *st);
int stderr_is_wire(const struct stat *st);
void say_line(int level, const char *first, ...);
const char *err_name(int e);

/* ------------------------------------------------------------------ */
/* lib/glibc.c: glibc internals. */

extern int g_spawn_layout;
extern int g_spawn_dup2_tag;
enum spawn_kind spawn_action_kind(int tag);
extern posix_spawn_file_actions_t g_spawn_wire_only;
extern int g_spawn_wire_only_fd;
void check_spawn_layout(void);
void prepare_spawn_fallback(int wire);
void check_versions(void);
void check_stdio_lock(void);
/* FILE's _flags bits glibc keeps private (libio.h), checked by check_stdio_flags(). */
#define SG_IO_UNBUFFERED 0x0002
#define SG_IO_LINE_BUF 0x0200
#define SG_IO_CURRENTLY_PUTTING 0x0800
int stdio_flags_probe(void);
extern int g_stdio_flags_known;
static inline int stdio_flags_known(void)
{
    int known = __atomic_load_n(&g_stdio_flags_known, __ATOMIC_RELAXED);
    return known ? known > 0 : stdio_flags_probe();
}
int stdout_locked_here(void);

/* ------------------------------------------------------------------ */
/* lib/fds.c: descriptors. */

int identify(int fd, struct identity *id);
int is(int fd, const struct identity *id);
int is_stdin(int fd);
void fds_changed(void);
int same_open_file(int a, int b);
int on_diversion(int fd);
void set_copy(int fd, int on);
int is_diversion(int fd);
int high_dup(int fd);
/* A lock of a few non-blocking system calls' length: a bounded spin, after
 * which the caller goes on unlocked (a signal handler that interrupted the
 * holder on its own thread would otherwise wait for ever).  1 if taken. */
static inline int spin_lock(int *busy)
{
    for (int tries = 0; tries < 1000; tries++) {
        int expected = 0;
        if (__atomic_compare_exchange_n(busy, &expected, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return 1;
        sched_yield();
    }
    return 0;
}

int lock_wire(void);
void unlock_wire(int held);
void wire_lock_after_fork(void);
extern int g_ncopies;
void map_copies(void);
void each_copy(unsigned first, unsigned last, void (*fn)(int, int), int arg);
void drop_privates(void);
void fd_closed(int fd);

/* ------------------------------------------------------------------ */
/* lib/reads.c: the read paths on stdin, and the first message's detector. */

extern int g_client_framing;        /* enum sg_protocol: the first message's */
void detect_start(void);

/* ------------------------------------------------------------------ */
/* lib/helper.c: the drain. */

extern pid_t g_helper;            /* the helper's parent this process started, until reaped */
extern pid_t g_helper_inherited;  /* one started before an exec (the marker's :pid) */
extern pid_t g_helper_pid;
extern char g_helper_path[4096];
extern int g_auto_strict;         /* lib/exec.c: start programs we cannot enter under the filter */
void find_helper(void);
int reap_helper(pid_t *which, int ms);
int start_drain(int to_stderr, const char *log, int lazy);
extern int g_drain_in;            /* the lazy pipe's read end, until a helper has it */
void drain_now(const char *why);
size_t drain_direct(const struct iovec *v, int n);
ssize_t stderr_try(const struct iovec *v, int n);        /* lib/guard.c */
void drain_if_needed(const char *why, int others, int let_go);
/* Bytes about to reach the diversion: the helper, if it is lazy still. */
static inline void carry(const char *why)
{
    if (__builtin_expect(__atomic_load_n(&g_drain_in, __ATOMIC_RELAXED) >= 0, 0))
        drain_now(why);
}
void wait_drained(void);
int stderr_needs_drain(void);
int drained_count(unsigned long long *bytes, unsigned long long *lines);
void helper_at_exit(void);
int helper_pending(void);
void helper_fini(void);

/* lib/strict.c: strict mode's end. */
void strict_noted(const struct sg_marker *marker);
int strict_pending(void);
void strict_fini(int flush);

/* ------------------------------------------------------------------ */
/* lib/write.c: the write path: the entry points, where a call goes, and
 * putting its bytes out the way the program asked. */

enum put_kind { PUT_WRITE, PUT_PWRITE, PUT_SEND };

struct put {
    int fd, kind, flags;
    off64_t off;                    /* PUT_PWRITE: where the next byte goes */
    const struct sockaddr *addr;    /* PUT_SEND: sendto's address */
    socklen_t alen;
};

ssize_t put_bytes(struct put *c, const void *p, size_t n);
ssize_t put_range(struct put *c, const struct iovec *iov, int cnt, size_t from, size_t to);
size_t write_whole(int fd, const void *p, size_t n, int bounded);
int to_diversion(int fd);

/* ------------------------------------------------------------------ */
/* lib/failsafe.c: the fail-safe, and what it shares with the guard: the
 * hold. */

/* The stream of what the program writes on fd 1 and its copies, through
 * the classifier (detect.h), for the whole session: before the gate (the
 * fail-safe) and after it (the guard).  One thread feeds it at a time. */
struct hold {
    unsigned long owner;            /* the thread feeding it (this_thread()), 0: none */
    size_t len;                     /* buf[0..len): undecided, held */
    size_t pend_at, pend;           /* (guard) buf[pend_at..+pend): the wire's, not written yet */
    int pend_fd;                    /* ... on this descriptor */
    size_t owed;                    /* (guard) the next bytes of the stream, by any thread: the
                                     * rest of a message the wire took in part, decided */
    unsigned char owed_sig[32];     /* ... the first of them, to know the rest by */
    size_t owed_sig_len;
    unsigned long open_by;          /* (guard) the thread whose call left a message open on
                                     * the wire (its write came back short, or the message
                                     * goes on past the call) */
    sigset_t open_mask;             /* ... and its signal mask then */
    struct sg_stream s;
    unsigned char frame;            /* (fail-safe) a frame's header is held: its body decides */
    unsigned char buf[SG_HOLD_MAX];
};
extern struct hold g_hold;
extern unsigned long long g_div_bytes, g_div_lines;

/* The calling thread, without a system call (a vfork child's is its
 * parent's thread's: it never takes the hold). */
static inline unsigned long this_thread(void)
{
    return (unsigned long)pthread_self();
}
int hold_lock_how(int try);
void hold_unlock(void);
void hold_forget(void);
void hold_settle(const char *how, int try);
ssize_t divert_call(struct put *c, const struct iovec *iov, int cnt, const char *how);
void stdout_into_hold(const char *how);
/* (only while the gate is not open: after it, every fflush of stdout) */
static inline void stdout_through_hold(const char *how)
{
    if (gated())
        stdout_into_hold(how);
}

/* ------------------------------------------------------------------ */
/* lib/interpreters.c: their stdout unbuffered where no guard comes. */

void answer_interpreters(void);

/* ------------------------------------------------------------------ */
/* lib/guard.c: the session guard. */

extern int g_guard;                 /* on: what reaches the wire is classified */
extern int g_guard_wanted;          /* the guard starts when the gate opens (STDIOGATE_GUARD) */
extern enum sg_protocol g_protocol; /* STDIOGATE_PROTOCOL */
void guard_start(const char *why);
/* Does the guard look at writes to fd: the wire, or a copy of it? */
static inline int guard_fd(int fd)
{
    return is_diversion(fd);
}
int guard_whole(const struct iovec *iov, int cnt);
ssize_t guard_call(struct put *c, const struct iovec *iov, int cnt, const char *how);
ssize_t guard_locked(struct put *c, const struct iovec *iov, int cnt);
ssize_t guard_write_all(int fd, const struct iovec *iov, int cnt, const char *how, int through_signals);
enum settle { SETTLE_SPAWN, SETTLE_EXEC, SETTLE_EXIT };
void guard_settle(const char *how, enum settle at);
void guard_summary(void);

static inline int guarding(void)
{
    return unlikely(__atomic_load_n(&g_guard, __ATOMIC_RELAXED) != 0);
}

/* Does a write (or a descriptor's bookkeeping) need a look: the gate
 * shut, or the guard on? */
static inline int minding(void)
{
    return unlikely((__atomic_load_n(&g_core.state, __ATOMIC_RELAXED) |
                     __atomic_load_n(&g_guard, __ATOMIC_RELAXED)) != 0);
}

/* Does the descriptor bookkeeping run: copies of the diversion while the
 * gate is shut, copies of the wire while the guard watches them? */
static inline int tracking(void)
{
    return shut() || (guarding() && !in_vfork_child());
}

/* ------------------------------------------------------------------ */
/* lib/stdout.c: C stdio's buffers on the wire, through the guard. */

void stdout_through_guard(const char *how);

/* ------------------------------------------------------------------ */
/* lib/scratch.c: memory for an exec's copies beyond the stack. */

struct scratch {
    void *p;
    size_t mapped;          /* bytes mapped for this call alone, or 0 */
    struct lease *lease;    /* a vfork child's lease, or NULL */
};
/* returns: the call comes back (a spawn), even in a vfork child. */
void *scratch_get(struct scratch *s, size_t size, int returns);
void scratch_put(struct scratch *s);
void scratch_after_fork(void);

/* ------------------------------------------------------------------ */
/* lib/reopen.c: opening stdout by name. */

void resolve_reopen(void);
int on_reopened(int fd);
void forget_reopened(int fd);
void unmark_reopened(void);
void point_reopened_at_wire(void);
void drop_reopened(void);
int note_reopened_epoll(int epfd, int op, int fd, const struct epoll_event *ev);

/* lib/epoll.c: epoll registrations of the diversion, made again on the wire. */
void epoll_detach(void);
void epoll_reattach(void);

#pragma GCC visibility pop

#endif
