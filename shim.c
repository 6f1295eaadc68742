/* shim.c - libstdiogate.so: keep a stdio server's startup output off its
 * protocol stream.
 *
 * Loaded with LD_PRELOAD by the stdiogate wrapper.  If this process's fd 1
 * is the wire (the identity in STDIOGATE_WIRE), the constructor keeps the
 * wire at a private close-on-exec descriptor and points fd 1 at stderr (or
 * /dev/null).  The gate opens, and fd 1 goes back to the wire, when the
 * program has read the client's first complete message from stdin, or when
 * it sets STDIOGATE_OPEN=1.  A diverted process that execs or spawns hands
 * the wire to the new program as its fd 1, together with the marker.
 *
 * Every interposer may run in a signal handler, a vfork child or many
 * threads at once: no heap, no stdio on our own behalf, no locks; shared
 * state is atomic, and a vfork child writes none of it.  Once the gate is
 * open (or was never shut) each interposer is its real function plus one
 * predictable branch.
 */
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "detect.h"
#include "inspect.h"

#define EXPORT __attribute__((visibility("default")))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define LOAD(v) __atomic_load_n(&(v), __ATOMIC_ACQUIRE)
#define STORE(v, x) __atomic_store_n(&(v), (x), __ATOMIC_RELEASE)

#define MARKER "STDIOGATE_WIRE"
#define HANDSHAKE "STDIOGATE_OPEN"

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
    X(posix_spawn) X(posix_spawnp)

#define LAZY_FUNCTIONS(X) \
    X(fgets) X(__fgets_chk) X(fgets_unlocked) X(__fgets_unlocked_chk) \
    X(getline) X(getdelim) X(__getdelim) X(fread) X(__fread_chk) \
    X(fread_unlocked) X(__fread_unlocked_chk) X(getc) X(fgetc) X(_IO_getc) \
    X(getchar) X(getc_unlocked) X(fgetc_unlocked) X(getchar_unlocked) \
    X(__uflow) X(ungetc) X(vfscanf) X(__isoc99_vfscanf) X(setenv) X(putenv)

#define DECLARE_REAL(f) static __typeof__(&f) real_##f;
EAGER_FUNCTIONS(DECLARE_REAL)
LAZY_FUNCTIONS(DECLARE_REAL)

#define REAL(f) ({ \
    __typeof__(&f) p_ = __atomic_load_n(&real_##f, __ATOMIC_RELAXED); \
    if (unlikely(!p_)) { \
        p_ = (__typeof__(&f))dlsym(RTLD_NEXT, #f); \
        __atomic_store_n(&real_##f, p_, __ATOMIC_RELAXED); \
    } \
    p_; })

static void resolve_eager(void)
{
#define RESOLVE(f) (void)REAL(f);
    EAGER_FUNCTIONS(RESOLVE)
}

/* ------------------------------------------------------------------ */
/* State.  Written by the constructor before any other thread exists, then
 * only with atomics, and never by a vfork child. */

enum gate { GATE_OPEN = 0, GATE_SHUT = 1, GATE_OPENING = 2 };

static int g_state;          /* enum gate; 0 before the constructor: pass-through */
static int g_wire = -1;      /* private descriptor holding the wire */
static int g_fd1_ours;       /* fd 1 still points at our diversion */
static pid_t g_pid;          /* the process the state belongs to */
static int g_level = 1;      /* STDIOGATE_DEBUG */
static int g_log_ok = 1;     /* fd 2 was open at start */

struct identity { dev_t dev; ino_t ino; int valid; };
static struct identity g_wire_id, g_stdin_id, g_div_id;
static int g_div_flags;      /* status flags of the diversion at start */
static char g_marker[64];    /* "STDIOGATE_WIRE=dev:ino" for exec'd programs */

/* Descriptors that are copies of the diversion (a shell's saved fd 1, an
 * SDK's private stdout): they follow fd 1 onto the wire when the gate opens. */
#define TRACKED 4096
#define WORD_BITS (8 * sizeof(unsigned long))
static unsigned long g_copies[TRACKED / WORD_BITS];
static int g_ncopies;

static struct sg_detect g_detect;
static int g_detect_busy;
static unsigned long long g_detect_bytes;

static inline int gated(void)
{
    return unlikely(__atomic_load_n(&g_state, __ATOMIC_RELAXED) != GATE_OPEN);
}

static inline int shut(void)
{
    return LOAD(g_state) == GATE_SHUT;
}

/* A vfork child shares our memory: it must leave the state alone.  fork
 * children get their own pid through the atfork handler. */
static int in_vfork_child(void)
{
    return getpid() != LOAD(g_pid);
}

static void atfork_child(void)
{
    STORE(g_pid, getpid());
}

/* ------------------------------------------------------------------ */
/* Diagnostics: one write(2) per line, no stdio, no heap. */

static char *fmt_num(char *end, unsigned long long v)
{
    *--end = '\0';
    do
        *--end = (char)('0' + v % 10);
    while (v /= 10);
    return end;
}

static pid_t g_say_as;        /* the drain process speaks for its server */

static void say(int level, const char *first, ...)
{
    char line[512], num[24];
    size_t n = 0;
    const char *s;
    va_list ap;
    int saved = errno;

    if (level > g_level || !g_log_ok)
        return;
    for (s = "stdiogate["; *s && n < sizeof line - 1; s++)
        line[n++] = *s;
    for (s = fmt_num(num + sizeof num, (unsigned long long)(g_say_as ? g_say_as : getpid())); *s; s++)
        line[n++] = *s;
    line[n++] = ']';
    line[n++] = ':';
    line[n++] = ' ';
    va_start(ap, first);
    for (s = first; s; s = va_arg(ap, const char *))
        while (*s && n < sizeof line - 1)
            line[n++] = *s++;
    va_end(ap);
    line[n++] = '\n';
    while (write(2, line, n) < 0 && errno == EINTR)
        ;
    errno = saved;
}

#define NUM(v) fmt_num(numbuf + sizeof numbuf, (unsigned long long)(v))

/* strerror may translate and allocate, and strerrorname_np is glibc's
 * alone (musl's loader could not resolve it): our own table of the errors
 * the calls we report can return. */
static const char *err_name(int e)
{
#define ERR(x) [x] = #x,
    static const char *const names[] = {
        ERR(EPERM) ERR(ENOENT) ERR(EINTR) ERR(EIO) ERR(ENXIO) ERR(EBADF) ERR(EAGAIN)
        ERR(ENOMEM) ERR(EACCES) ERR(EFAULT) ERR(EBUSY) ERR(EEXIST) ERR(ENODEV)
        ERR(ENOTDIR) ERR(EISDIR) ERR(EINVAL) ERR(ENFILE) ERR(EMFILE) ERR(ENOTTY)
        ERR(ETXTBSY) ERR(ENOSPC) ERR(ESPIPE) ERR(EROFS) ERR(EPIPE) ERR(ERANGE)
        ERR(ENAMETOOLONG) ERR(ENOSYS) ERR(ELOOP) ERR(EOVERFLOW) ERR(ENOTSOCK)
        ERR(EOPNOTSUPP) ERR(ECONNRESET) ERR(ENOTCONN)
    };
#undef ERR
    if (e > 0 && (size_t)e < sizeof names / sizeof names[0] && names[e])
        return names[e];
    return "unknown error";
}

/* ------------------------------------------------------------------ */
/* Descriptor identities. */

static int identify(int fd, struct identity *id)
{
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0)
        return id->valid = 0;
    id->dev = st.st_dev;
    id->ino = st.st_ino;
    return id->valid = 1;
}

static int is(int fd, const struct identity *id)
{
    struct identity here;
    return id->valid && identify(fd, &here) && here.dev == id->dev && here.ino == id->ino;
}

static int is_stdin(int fd)
{
    int saved = errno, r = is(fd, &g_stdin_id);
    errno = saved;
    return r;
}

/* ------------------------------------------------------------------ */
/* Copies of the diversion. */

static int is_copy(int fd)
{
    if (fd < 0 || fd >= TRACKED)
        return 0;
    return (int)((LOAD(g_copies[fd / WORD_BITS]) >> (fd % WORD_BITS)) & 1);
}

static void set_copy(int fd, int on)
{
    unsigned long bit, old;
    if (fd < 0 || fd >= TRACKED)
        return;
    bit = 1UL << (fd % WORD_BITS);
    if (on)
        old = __atomic_fetch_or(&g_copies[fd / WORD_BITS], bit, __ATOMIC_ACQ_REL);
    else
        old = __atomic_fetch_and(&g_copies[fd / WORD_BITS], ~bit, __ATOMIC_ACQ_REL);
    if (!(old & bit) != !on)
        __atomic_fetch_add(&g_ncopies, on ? 1 : -1, __ATOMIC_ACQ_REL);
}

/* Does fd point at the diversion, as far as the program knows? */
static int is_diversion(int fd)
{
    return (fd == 1 && LOAD(g_fd1_ours)) || is_copy(fd);
}

/* ------------------------------------------------------------------ */
/* Private descriptors live high, where shells and programs don't look. */

static int high_dup(int fd)
{
    struct rlimit rl;
    long top = 1000;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (long)rl.rlim_cur - 1 < top)
        top = (long)rl.rlim_cur - 1;
    for (; top > 2; top--) {
        int r = REAL(fcntl)(fd, F_DUPFD_CLOEXEC, (int)top);
        if (r >= 0)
            return r;
        if (errno != EMFILE && errno != EINVAL)
            return -1;
    }
    errno = EMFILE;
    return -1;
}

/* The program wants the number the wire sits on: move the wire away. */
static void move_wire(void)
{
    char numbuf[24];
    int old = LOAD(g_wire), moved = high_dup(old);
    if (moved < 0) {
        say(1, "cannot move the wire off descriptor ", NUM(old), ": ", err_name(errno), NULL);
        return;
    }
    STORE(g_wire, moved);
    REAL(close)(old);
    say(3, "moved the wire to descriptor ", NUM(moved), NULL);
}

/* ------------------------------------------------------------------ */
/* Opening the gate. */

/* Startup bytes still in C stdio's stdout buffer belong on stderr. */
static void flush_stdout(void)
{
    for (int tries = 0; tries < 100; tries++) {
        if (ftrylockfile(stdout) == 0) {
            fflush_unlocked(stdout);
            funlockfile(stdout);
            return;
        }
        sched_yield();
    }
    say(3, "stdout is locked by another thread: not flushed", NULL);
}

/* Node marks its stdout O_NONBLOCK when it starts: that belongs to the
 * wire, and stderr gets its own mode back. */
static void carry_nonblock(int wire)
{
    int now = REAL(fcntl)(1, F_GETFL);
    if (now < 0 || !(now & O_NONBLOCK) || (g_div_flags & O_NONBLOCK))
        return;
    int wf = REAL(fcntl)(wire, F_GETFL);
    if (wf >= 0)
        REAL(fcntl)(wire, F_SETFL, wf | O_NONBLOCK);
    REAL(fcntl)(1, F_SETFL, now & ~O_NONBLOCK);
}

static void point_copy_at_wire(int fd, int wire)
{
    char numbuf[24];
    set_copy(fd, 0);
    if (!is(fd, &g_div_id))
        return;   /* closed behind our back and reused */
    int fl = REAL(fcntl)(fd, F_GETFD);
    if (REAL(dup3)(wire, fd, (fl > 0 && (fl & FD_CLOEXEC)) ? O_CLOEXEC : 0) < 0)
        say(1, "cannot put descriptor ", NUM(fd), " on the wire: ", err_name(errno), NULL);
    else
        say(3, "descriptor ", NUM(fd), " follows fd 1 onto the wire", NULL);
}

/* Calls fn(fd, arg) for each copy of the diversion in [first, last]. */
static void each_copy(unsigned first, unsigned last, void (*fn)(int, int), int arg)
{
    for (size_t w = 0; w < TRACKED / WORD_BITS && LOAD(g_ncopies) > 0; w++) {
        unsigned long bits = LOAD(g_copies[w]);
        while (bits) {
            unsigned fd = (unsigned)(w * WORD_BITS) + (unsigned)__builtin_ctzl(bits);
            bits &= bits - 1;
            if (fd >= first && fd <= last)
                fn((int)fd, arg);
        }
    }
}

static void point_copies_at_wire(int wire)
{
    each_copy(0, ~0U, point_copy_at_wire, wire);
}

static void wait_drained(void);

static void open_gate(const char *how, unsigned long long bytes, int eof)
{
    char numbuf[24];
    int expected = GATE_SHUT, saved = errno;

    if (in_vfork_child())
        return;
    if (!__atomic_compare_exchange_n(&g_state, &expected, GATE_OPENING, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return;
    flush_stdout();
    wait_drained();
    int wire = LOAD(g_wire);
    if (LOAD(g_fd1_ours) && is(1, &g_div_id)) {
        carry_nonblock(wire);
        if (REAL(dup2)(wire, 1) < 0) {
            say(1, "cannot put stdout back on the wire: ", err_name(errno), NULL);
            _exit(1);
        }
    }
    point_copies_at_wire(wire);
    REAL(close)(wire);
    STORE(g_wire, -1);
    STORE(g_fd1_ours, 0);
    STORE(g_state, GATE_OPEN);
    if (!how)
        say(2, "gate opened by handshake", NULL);
    else if (eof)
        say(2, "gate opened by ", how, " at end of input", NULL);
    else
        say(2, "gate opened by ", how, " after ", NUM(bytes), " bytes", NULL);
    errno = saved;
}

/* Nothing points at the diversion any more (fd 1 is the program's, no copy
 * is left): the wire can never be needed here.  Let it go, so that a
 * daemon forked from here does not hold the client's stdout open. */
static void release_if_unused(void)
{
    int expected = GATE_SHUT;
    if (LOAD(g_fd1_ours) || LOAD(g_ncopies) > 0)
        return;
    if (!__atomic_compare_exchange_n(&g_state, &expected, GATE_OPENING, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return;
    int wire = LOAD(g_wire);
    REAL(close)(wire);
    STORE(g_wire, -1);
    STORE(g_state, GATE_OPEN);
    say(3, "stdout is the program's own now: letting the wire go", NULL);
}

/* ------------------------------------------------------------------ */
/* Watching stdin. */

static int lock_detector(void)
{
    for (int tries = 0; tries < 1000; tries++) {
        int expected = 0;
        if (__atomic_compare_exchange_n(&g_detect_busy, &expected, 1, 0,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return 1;
        sched_yield();
    }
    return 0;
}

/* Reads of stdin in flight.  When two overlap (threads, a signal handler)
 * the order their bytes were queued in is lost, and only what does not
 * depend on order can be trusted: the first newline anyone read ends the
 * first line, since everything before it has left the pipe by then. */
static int g_readers;
static int g_overlapped;

static int scan_newline(const void *p, size_t n, size_t *k)
{
    const char *nl = memchr(p, '\n', n);
    *k = nl ? (size_t)(nl - (const char *)p) + 1 : n;
    return nl != NULL;
}

/* n == 0 means end of input. */
static void feed(const void *p, size_t n, const char *how)
{
    unsigned long long total;
    size_t k = 0;
    int done;

    if (!lock_detector()) {
        /* Another reader (or the code this signal handler interrupted)
         * holds the detector: input is flowing, so err towards the wire. */
        open_gate(how, g_detect_bytes, 0);
        return;
    }
    if (n == 0) {
        done = 1;
    } else if (LOAD(g_overlapped)) {
        done = scan_newline(p, n, &k);
    } else {
        k = sg_detect_feed(&g_detect, p, n);
        done = k != 0 || sg_detect_done(&g_detect);
        k = k ? k : n;
    }
    g_detect_bytes += k;
    total = g_detect_bytes;
    __atomic_store_n(&g_detect_busy, 0, __ATOMIC_RELEASE);
    if (g_level >= 4) {
        char numbuf[24];
        say(4, how, " read ", NUM(n), " bytes of stdin", NULL);
    }
    if (done)
        open_gate(how, total, n == 0);
}

/* Before a read: is it one of stdin, while the gate is shut? */
static int watch(int fd)
{
    if (!shut() || !is_stdin(fd))
        return 0;
    if (__atomic_add_fetch(&g_readers, 1, __ATOMIC_ACQ_REL) > 1)
        STORE(g_overlapped, 1);
    return 1;
}

static void unwatch(void)
{
    __atomic_sub_fetch(&g_readers, 1, __ATOMIC_ACQ_REL);
}

/* A read that asked for nothing and got nothing says nothing of the end. */
static void saw(const void *buf, size_t asked, ssize_t r, const char *how)
{
    if (r >= 0 && (r > 0 || asked > 0) && shut())
        feed(buf, (size_t)r, how);
    unwatch();
}

static size_t iov_total(const struct iovec *iov, int cnt)
{
    size_t total = 0;
    for (int i = 0; i < cnt; i++)
        total += iov[i].iov_len;
    return total;
}

static void saw_iov(const struct iovec *iov, int cnt, ssize_t r, const char *how)
{
    if (r == 0 && iov_total(iov, cnt) && shut())
        feed(NULL, 0, how);
    for (int i = 0; i < cnt && r > 0 && shut(); i++) {
        size_t n = iov[i].iov_len < (size_t)r ? iov[i].iov_len : (size_t)r;
        if (n)
            feed(iov[i].iov_base, n, how);
        r -= (ssize_t)n;
    }
    unwatch();
}

static int is_stdin_file(FILE *fp)
{
    return fp && shut() && is_stdin(fp->_fileno);
}

/* Bytes the program pushed back with ungetc come round again: they are
 * not new input. */
static unsigned long g_pushed_back;

static size_t skip_pushed_back(size_t n)
{
    unsigned long pushed = LOAD(g_pushed_back);
    while (pushed && n) {
        unsigned long take = pushed < n ? pushed : n;
        if (__atomic_compare_exchange_n(&g_pushed_back, &pushed, pushed - take, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return take;
    }
    return 0;
}

/* A stdio reader handed the program n bytes, or hit end of input. */
static void saw_file(FILE *fp, const void *p, size_t n, const char *how)
{
    if (!is_stdin_file(fp))
        return;
    size_t skip = skip_pushed_back(n);
    if (n > skip)
        feed((const char *)p + skip, n - skip, how);
    else if (!n && feof_unlocked(fp))
        feed(NULL, 0, how);
}

/* ------------------------------------------------------------------ */
/* The constructor. */

static int parse_marker(const char *s, struct identity *id)
{
    unsigned long long dev = 0, ino = 0;
    const char *p = s;
    if (*p < '0' || *p > '9')
        return 0;
    while (*p >= '0' && *p <= '9')
        dev = dev * 10 + (unsigned)(*p++ - '0');
    if (*p++ != ':' || *p < '0' || *p > '9')
        return 0;
    while (*p >= '0' && *p <= '9')
        ino = ino * 10 + (unsigned)(*p++ - '0');
    if (*p)
        return 0;
    id->dev = (dev_t)dev;
    id->ino = (ino_t)ino;
    return id->valid = 1;
}

/* Go reads and writes with raw syscalls: a diversion would never be lifted.
 * The Go linker leaves a note named "Go" of type 4 (its build ID). */
static int go_note_in(const char *p, size_t len)
{
    while (len >= sizeof(ElfW(Nhdr))) {
        const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
        size_t name = (nh->n_namesz + 3) & ~3UL, desc = (nh->n_descsz + 3) & ~3UL;
        size_t size = sizeof *nh + name + desc;
        if (size > len)
            return 0;
        if (nh->n_type == 4 && (nh->n_namesz == 3 || nh->n_namesz == 4) &&
            memcmp(p + sizeof *nh, "Go", 3) == 0)
            return 1;
        p += size;
        len -= size;
    }
    return 0;
}

static int main_program_is_go(struct dl_phdr_info *info, size_t size, void *found)
{
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_NOTE &&
            go_note_in((const char *)(info->dlpi_addr + ph->p_vaddr), ph->p_memsz))
            *(int *)found = 1;
    }
    return 1;   /* the first object is the program itself */
}

static int is_go_program(void)
{
    int found = 0;
    dl_iterate_phdr(main_program_is_go, &found);
    return found;
}

static int stderr_takes_diversion(void)
{
    const char *discard = getenv("STDIOGATE_DISCARD");
    int fl = REAL(fcntl)(2, F_GETFL);
    if (discard && *discard && strcmp(discard, "0") != 0)
        return 0;
    if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY)
        return 0;
    /* Node reopens a terminal on fd 1 by name: never give it one. */
    if (isatty(2))
        return 0;
    /* 2>&1 would put the junk right back on the wire. */
    if (is(2, &g_wire_id))
        return 0;
    /* A pipe nobody reads any more would kill the server with SIGPIPE over
     * a banner that unwrapped went to the client. */
    struct pollfd p = { .fd = 2, .events = POLLOUT };
    return !(poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)));
}

/* ------------------------------------------------------------------ */
/* The drain.  A diverted fd 1 must be something a program accepts as its
 * stdout (asyncio's pipe transport refuses a regular file), and writing to
 * it must never block (a stderr pipe that nobody reads fills at 64 KiB,
 * where unwrapped the bytes went to a client that skips bad lines).  Unless
 * stderr is a character device, fd 1 becomes a pipe that a small drain
 * process copies to stderr: it keeps up to DRAIN_SIZE bytes while stderr is
 * full, drops what does not fit and reports the count; a dead stderr makes
 * it drop everything (no SIGPIPE for the server).  It is forked twice, so
 * that the server's wait() never sees it, and ends when the last copy of
 * the pipe's write end is closed: when the gate opens, at exec (the wire is
 * handed on), or at exit.  Those three wait, bounded, until what was written
 * so far has reached stderr, so that a log file is complete when the
 * server is gone. */

#define DRAIN_SIZE 65536
#define DRAIN_WAIT_MS 2000

/* Shared with the drain process (a MAP_SHARED page). */
struct drain_state {
    unsigned long long taken;    /* bytes the drain took from the pipe */
    unsigned long long settled;  /* ... and wrote to stderr or dropped */
    unsigned long long dropped;
    int stuck;                   /* holding bytes that stderr will not take */
};

static struct drain_state *g_drain;

static void drain_out(struct drain_state *d, const char *buf, size_t *head, size_t *len,
                      int kind, int *alive)
{
    size_t chunk = *len;
    if (kind != S_IFREG && chunk > 4096)
        chunk = 4096;   /* a pipe or socket said POLLOUT: this much fits */
    ssize_t w = kind == S_IFSOCK ? send(2, buf + *head, chunk, MSG_DONTWAIT)
                                 : write(2, buf + *head, chunk);
    if (w < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (w <= 0) {   /* stderr is gone: drop everything from now on */
        *alive = 0;
        w = (ssize_t)*len;
        __atomic_add_fetch(&d->dropped, (unsigned long long)w, __ATOMIC_RELAXED);
    }
    *head += (size_t)w;
    *len -= (size_t)w;
    if (!*len)
        *head = 0;
    __atomic_add_fetch(&d->settled, (unsigned long long)w, __ATOMIC_RELEASE);
}

static void drain_in(struct drain_state *d, char *buf, size_t *head, size_t *len, int alive,
                     int *open_in, short revents)
{
    static char scratch[4096];
    int avail = 0;
    if (ioctl(0, FIONREAD, &avail) != 0 || avail <= 0) {
        if (!(revents & POLLIN))
            *open_in = 0;   /* hung up, nothing left */
        return;
    }
    if (*head && *head + *len > DRAIN_SIZE / 2) {
        memmove(buf, buf + *head, *len);
        *head = 0;
    }
    size_t space = alive ? DRAIN_SIZE - *head - *len : 0;
    char *to = space ? buf + *head + *len : scratch;
    size_t take = (size_t)avail < (space ? space : sizeof scratch) ? (size_t)avail
                                                                   : (space ? space : sizeof scratch);
    /* Counted before the read: the gate-opener must never see the pipe
     * empty and these bytes not yet counted. */
    __atomic_add_fetch(&d->taken, take, __ATOMIC_RELEASE);
    ssize_t n = read(0, to, take);
    if (n < 0)
        n = 0;
    if ((size_t)n < take)
        __atomic_sub_fetch(&d->taken, take - (size_t)n, __ATOMIC_RELEASE);
    if (space) {
        *len += (size_t)n;
    } else {
        __atomic_add_fetch(&d->dropped, (unsigned long long)n, __ATOMIC_RELAXED);
        __atomic_add_fetch(&d->settled, (unsigned long long)n, __ATOMIC_RELEASE);
    }
}

/* The drain process: pipe on fd 0, stderr on fd 2, nothing else. */
__attribute__((noreturn)) static void drain(struct drain_state *d)
{
    static char buf[DRAIN_SIZE];
    char numbuf[24];
    size_t head = 0, len = 0;
    int open_in = 1, alive = 1;
    struct stat st;
    int kind = fstat(2, &st) == 0 ? (int)(st.st_mode & S_IFMT) : 0;

    (void)signal(SIGPIPE, SIG_IGN);
    while (open_in || (len && alive)) {
        struct pollfd p[2] = { { open_in ? 0 : -1, POLLIN, 0 }, { len && alive ? 2 : -1, POLLOUT, 0 } };
        int r = poll(p, 2, open_in ? -1 : 5000);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;  /* stderr has not moved for 5 s after the end: give up */
        if (p[1].revents & POLLOUT)
            drain_out(d, buf, &head, &len, kind, &alive);
        else if (p[1].revents)
            alive = 0;
        STORE(d->stuck, len && !(p[1].revents & POLLOUT));
        if (p[0].revents)
            drain_in(d, buf, &head, &len, alive, &open_in, p[0].revents);
    }
    unsigned long long lost = LOAD(d->dropped) + (alive ? len : 0);
    struct pollfd e = { 2, POLLOUT, 0 };
    if (lost && alive && poll(&e, 1, 5000) == 1 && (e.revents & POLLOUT))
        say(1, NUM(lost), " bytes of startup output were dropped: stderr was full (nobody read it)",
            NULL);
    _exit(0);
}

static void close_all_but_drain(void)
{
    if (REAL(close_range)(3, ~0U, 0) != 0)
        for (int fd = 3; fd < 4096; fd++)
            REAL(close)(fd);
    REAL(close)(1);
}

/* Starts the drain; returns the pipe's write end, or -1. */
static int start_drain(void)
{
    int p[2];
    struct drain_state *d = mmap(NULL, sizeof *d, PROT_READ | PROT_WRITE,
                                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (d == MAP_FAILED)
        return -1;
    if (pipe2(p, O_CLOEXEC) != 0) {
        munmap(d, sizeof *d);
        return -1;
    }
    int from = p[0], into = p[1];
    pid_t server = getpid(), middle = fork();
    if (middle == 0) {
        if (fork() == 0) {
            g_say_as = server;
            (void)prctl(PR_SET_NAME, "stdiogate-drain");
            if (REAL(dup2)(from, 0) == 0) {
                close_all_but_drain();
                drain(d);
            }
        }
        _exit(0);
    }
    REAL(close)(from);
    if (middle < 0) {
        REAL(close)(into);
        munmap(d, sizeof *d);
        return -1;
    }
    while (waitpid(middle, NULL, 0) < 0 && errno == EINTR)
        ;
    g_drain = d;
    return into;
}

/* What was written to the diversion so far has reached stderr (or is held
 * by a drain that stderr will not take): bounded, never a hang. */
static void wait_drained(void)
{
    struct drain_state *d = g_drain;
    struct timespec ms = { 0, 1000000 };
    if (!d || !is(1, &g_div_id))
        return;
    for (int i = 0; i < DRAIN_WAIT_MS; i++) {
        int queued = 0;
        if (ioctl(1, FIONREAD, &queued) != 0)
            return;
        if (queued == 0 && (LOAD(d->taken) == LOAD(d->settled) || LOAD(d->stuck)))
            return;
        nanosleep(&ms, NULL);
    }
}

/* Does stderr need the drain (anything but a character device)? */
static int stderr_needs_drain(void)
{
    struct stat st;
    return fstat(2, &st) == 0 && !S_ISCHR(st.st_mode);
}

static void divert(void)
{
    char numbuf[24];
    int to_stderr = stderr_takes_diversion();
    int wire = high_dup(1);
    int drained = 0;

    if (wire < 0) {
        say(1, "cannot keep the wire (", err_name(errno), "): stdout left as it is", NULL);
        return;
    }
    /* /dev/null may land on a closed fd 0 or 2 for a moment: it is closed
     * again right after, so they stay closed. */
    int target = 2;
    if (to_stderr && stderr_needs_drain()) {
        target = start_drain();
        drained = target >= 0;
        if (!drained) {
            struct stat st;
            if (fstat(2, &st) == 0 && S_ISREG(st.st_mode)) {
                say(1, "cannot start the drain process (", err_name(errno),
                    "): startup output goes to /dev/null", NULL);
                to_stderr = 0;
            }
            target = 2;
        }
    }
    if (!to_stderr)
        target = open("/dev/null", O_WRONLY | O_CLOEXEC);
    int ours = !to_stderr || drained;   /* a descriptor to close after the dup2 */
    if (target < 0) {
        say(1, "cannot open /dev/null (", err_name(errno), "): stdout left as it is", NULL);
        REAL(close)(wire);
        return;
    }
    int r = REAL(dup2)(target, 1);
    int err = errno;
    if (ours)
        REAL(close)(target);
    if (r < 0) {
        say(1, "cannot divert stdout (", err_name(err), "): stdout left as it is", NULL);
        REAL(close)(wire);
        return;
    }
    identify(1, &g_div_id);
    g_div_flags = REAL(fcntl)(1, F_GETFL);
    sg_detect_init(&g_detect);
    g_wire = wire;
    g_fd1_ours = 1;
    g_pid = getpid();
    pthread_atfork(NULL, NULL, atfork_child);
    STORE(g_state, GATE_SHUT);
    say(2, "diverting stdout to ", to_stderr ? "stderr" : "/dev/null", NULL);
    if (drained)
        say(3, "through a drain process", NULL);
    say(3, "the wire is kept at descriptor ", NUM(wire), NULL);
}

/* A process that exits while diverted: its startup output is in the log
 * before it is gone.  (exit() flushes stdio after the destructors.) */
__attribute__((destructor)) static void stdiogate_fini(void)
{
    if (g_drain && shut() && !in_vfork_child() && LOAD(g_fd1_ours)) {
        flush_stdout();
        wait_drained();
    }
}

static void check_spawn_layout(void);

/* STDIOGATE_DEBUG is one digit from 0 to 4.  Anything else is warned
 * about and replaced by the nearest level, in this process's environment
 * too, so that the programs it starts do not warn again.  (The wrapper
 * checks it first; this is for a marker set by hand.) */
static void set_level(void)
{
    const char *d = getenv("STDIOGATE_DEBUG");
    static char fixed[] = "STDIOGATE_DEBUG=1";
    if (!d || !*d)
        return;
    if (d[0] >= '0' && d[0] <= '4' && !d[1]) {
        g_level = d[0] - '0';
        return;
    }
    int negative = d[0] == '-', digits = d[negative] != '\0', value = 0;
    for (const char *p = d + negative; *p; p++) {
        digits &= *p >= '0' && *p <= '9';
        value = value * 10 + (*p - '0');
        value = value > 4 ? 4 : value;
    }
    g_level = !digits ? 1 : negative ? 0 : value;
    fixed[sizeof fixed - 2] = (char)('0' + g_level);
    say(1, "STDIOGATE_DEBUG=", d, " is not a level from 0 to 4: using ",
        fixed + sizeof fixed - 2, NULL);
    putenv(fixed);
}

__attribute__((constructor)) static void stdiogate_init(void)
{
    const char *m = getenv(MARKER);
    if (!m)
        return;     /* not under the wrapper, or not on the wire: pass-through */

    set_level();
    g_log_ok = REAL(fcntl)(2, F_GETFD) >= 0;
    if (is_go_program()) {
        /* The marker stays: the programs it starts may take part. */
        say(2, "Go program: not diverting", NULL);
        return;
    }
    struct identity wire;
    int valid = parse_marker(m, &wire);
    size_t len = strlen(m);
    if (valid && len + sizeof MARKER + 1 <= sizeof g_marker) {
        memcpy(g_marker, MARKER "=", sizeof MARKER);
        memcpy(g_marker + sizeof MARKER, m, len + 1);
    }
    unsetenv(MARKER);
    if (!valid) {
        say(1, "ignoring a malformed " MARKER, NULL);
        return;
    }
    if (!is(1, &wire)) {
        say(3, "stdout is not the wire: pass-through", NULL);
        return;
    }
    const char *h = getenv(HANDSHAKE);
    if (h && strcmp(h, "1") == 0) {
        say(2, HANDSHAKE "=1 already: not diverting", NULL);
        return;
    }
    g_wire_id = wire;
    identify(0, &g_stdin_id);
    resolve_eager();
    check_spawn_layout();
    divert();
}

/* ------------------------------------------------------------------ */
/* Read paths on stdin. */

/* Readers are on the server's hot path: with the gate open and the real
 * function known, an interposer is a load, two tests and a jump.  Its body
 * lives out of line, so that this path needs no stack frame.  Deciding
 * before the call is safe: once open, the gate never shuts again. */
#define READER(ret, name, params, args, ...)                                    \
    __attribute__((noinline, cold)) static ret slow_##name params __VA_ARGS__     \
    EXPORT ret name params                                                        \
    {                                                                             \
        __typeof__(&name) p_ = __atomic_load_n(&real_##name, __ATOMIC_RELAXED);   \
        if (likely(p_ != NULL) && !gated())                                       \
            return p_ args;                                                       \
        return slow_##name args;                                                  \
    }

#define FD_READER(name, params, args)                   \
    READER(ssize_t, name, params, args, {               \
        int watched = gated() && watch(fd);             \
        ssize_t r = REAL(name) args;                    \
        if (watched)                                    \
            saw(buf, n, r, #name);                      \
        return r;                                       \
    })
FD_READER(read, (int fd, void *buf, size_t n), (fd, buf, n))
FD_READER(__read_chk, (int fd, void *buf, size_t n, size_t len), (fd, buf, n, len))
FD_READER(pread, (int fd, void *buf, size_t n, off_t off), (fd, buf, n, off))
FD_READER(pread64, (int fd, void *buf, size_t n, off64_t off), (fd, buf, n, off))
FD_READER(__pread_chk, (int fd, void *buf, size_t n, off_t off, size_t len), (fd, buf, n, off, len))
FD_READER(__pread64_chk, (int fd, void *buf, size_t n, off64_t off, size_t len), (fd, buf, n, off, len))

#define IOV_READER(name, params, args)                  \
    READER(ssize_t, name, params, args, {               \
        int watched = gated() && watch(fd);             \
        ssize_t r = REAL(name) args;                    \
        if (watched)                                    \
            saw_iov(iov, cnt, r, #name);                \
        return r;                                       \
    })
IOV_READER(readv, (int fd, const struct iovec *iov, int cnt), (fd, iov, cnt))
IOV_READER(preadv, (int fd, const struct iovec *iov, int cnt, off_t off), (fd, iov, cnt, off))
IOV_READER(preadv64, (int fd, const struct iovec *iov, int cnt, off64_t off), (fd, iov, cnt, off))
IOV_READER(preadv2, (int fd, const struct iovec *iov, int cnt, off_t off, int fl), (fd, iov, cnt, off, fl))
IOV_READER(preadv64v2, (int fd, const struct iovec *iov, int cnt, off64_t off, int fl), (fd, iov, cnt, off, fl))

/* A peek leaves the bytes for the next read: it consumed nothing. */
#define SOCKET_READER(name, params, args)                               \
    READER(ssize_t, name, params, args, {                               \
        int watched = gated() && !(flags & MSG_PEEK) && watch(fd);      \
        ssize_t r = REAL(name) args;                                    \
        if (watched)                                                    \
            saw(buf, n, r, #name);                                      \
        return r;                                                       \
    })
SOCKET_READER(recv, (int fd, void *buf, size_t n, int flags), (fd, buf, n, flags))
SOCKET_READER(__recv_chk, (int fd, void *buf, size_t n, size_t len, int flags), (fd, buf, n, len, flags))
SOCKET_READER(recvfrom, (int fd, void *buf, size_t n, int flags, struct sockaddr *a, socklen_t *alen),
              (fd, buf, n, flags, a, alen))
SOCKET_READER(__recvfrom_chk,
              (int fd, void *buf, size_t n, size_t len, int flags, struct sockaddr *a, socklen_t *alen),
              (fd, buf, n, len, flags, a, alen))

READER(ssize_t, recvmsg, (int fd, struct msghdr *msg, int flags), (fd, msg, flags), {
    int watched = gated() && !(flags & MSG_PEEK) && watch(fd);
    ssize_t r = REAL(recvmsg)(fd, msg, flags);
    if (watched)
        saw_iov(msg->msg_iov, (int)msg->msg_iovlen, r, "recvmsg");
    return r;
})

/* C stdio fills its buffer with glibc-internal reads that no interposer
 * sees; what its readers hand the program is what counts. */

#define STRING_READER(name, params, args)                       \
    READER(char *, name, params, args, {                        \
        char *r = REAL(name) args;                              \
        if (gated())                                            \
            saw_file(fp, r, r ? strlen(r) : 0, #name);          \
        return r;                                               \
    })
STRING_READER(fgets, (char *s, int n, FILE *fp), (s, n, fp))
STRING_READER(fgets_unlocked, (char *s, int n, FILE *fp), (s, n, fp))
STRING_READER(__fgets_chk, (char *s, size_t size, int n, FILE *fp), (s, size, n, fp))
STRING_READER(__fgets_unlocked_chk, (char *s, size_t size, int n, FILE *fp), (s, size, n, fp))

#define LINE_READER(name, params, args)                                         \
    READER(ssize_t, name, params, args, {                                       \
        ssize_t r = REAL(name) args;                                            \
        if (gated())                                                            \
            saw_file(fp, r > 0 ? *line : NULL, r > 0 ? (size_t)r : 0, #name);   \
        return r;                                                               \
    })
LINE_READER(getline, (char **line, size_t *cap, FILE *fp), (line, cap, fp))
LINE_READER(getdelim, (char **line, size_t *cap, int delim, FILE *fp), (line, cap, delim, fp))
LINE_READER(__getdelim, (char **line, size_t *cap, int delim, FILE *fp), (line, cap, delim, fp))

#define BLOCK_READER(name, params, args)                \
    READER(size_t, name, params, args, {                \
        size_t r = REAL(name) args;                     \
        if (gated())                                    \
            saw_file(fp, p, r * size, #name);           \
        return r;                                       \
    })
BLOCK_READER(fread, (void *p, size_t size, size_t n, FILE *fp), (p, size, n, fp))
BLOCK_READER(fread_unlocked, (void *p, size_t size, size_t n, FILE *fp), (p, size, n, fp))
BLOCK_READER(__fread_chk, (void *p, size_t len, size_t size, size_t n, FILE *fp), (p, len, size, n, fp))
BLOCK_READER(__fread_unlocked_chk, (void *p, size_t len, size_t size, size_t n, FILE *fp),
             (p, len, size, n, fp))

static void saw_char(FILE *fp, int c, const char *how)
{
    unsigned char b = (unsigned char)c;
    saw_file(fp, &b, c == EOF ? 0 : 1, how);
}

#define CHAR_READER(name, params, args, fp)     \
    READER(int, name, params, args, {           \
        int c = REAL(name) args;                \
        if (gated())                            \
            saw_char(fp, c, #name);             \
        return c;                               \
    })
CHAR_READER(getc, (FILE *fp), (fp), fp)
CHAR_READER(fgetc, (FILE *fp), (fp), fp)
CHAR_READER(_IO_getc, (FILE *fp), (fp), fp)
CHAR_READER(getc_unlocked, (FILE *fp), (fp), fp)
CHAR_READER(fgetc_unlocked, (FILE *fp), (fp), fp)
CHAR_READER(getchar, (void), (), stdin)
CHAR_READER(getchar_unlocked, (void), (), stdin)

/* An inline getc_unlocked calls __uflow only to refill the buffer, then
 * takes the rest of it without calling anything: what was just buffered is
 * as good as read. */
EXPORT int __uflow(FILE *fp)
{
    int c = REAL(__uflow)(fp);
    if (gated() && c == EOF)
        saw_file(fp, NULL, 0, "__uflow");
    else if (gated())
        saw_file(fp, fp->_IO_read_ptr - 1, (size_t)(fp->_IO_read_end - fp->_IO_read_ptr) + 1,
                 "__uflow");
    return c;
}

EXPORT int ungetc(int c, FILE *fp)
{
    int r = REAL(ungetc)(c, fp);
    if (gated() && r != EOF && is_stdin_file(fp))
        __atomic_fetch_add(&g_pushed_back, 1, __ATOMIC_ACQ_REL);
    return r;
}

/* scanf consumes an unknown number of bytes: compare the buffer before and
 * after (a refill in the middle of one call is not seen). */
struct scan_view {
    int active;
    const char *ptr, *end, *base;
    size_t len;
    char copy[4096];
};

static void scan_before(struct scan_view *v, FILE *fp)
{
    v->active = gated() && is_stdin_file(fp);
    if (!v->active)
        return;
    v->ptr = fp->_IO_read_ptr;
    v->end = fp->_IO_read_end;
    v->base = fp->_IO_read_base;
    v->len = v->ptr && v->end > v->ptr ? (size_t)(v->end - v->ptr) : 0;
    if (v->len > sizeof v->copy)
        v->len = sizeof v->copy;
    memset(v->copy, 0, sizeof v->copy);
    if (v->len)
        memcpy(v->copy, v->ptr, v->len);
}

static void scan_after(struct scan_view *v, FILE *fp, int r, const char *how)
{
    const char *p = fp->_IO_read_ptr;
    if (!v->active || !shut())
        return;
    if (fp->_IO_read_base == v->base && fp->_IO_read_end == v->end && p >= v->ptr &&
        (size_t)(p - v->ptr) <= v->len) {
        if (p > v->ptr)
            feed(v->copy, (size_t)(p - v->ptr), how);
    } else {
        if (v->len)
            feed(v->copy, v->len, how);
        if (shut() && p && fp->_IO_read_base && p > fp->_IO_read_base)
            feed(fp->_IO_read_base, (size_t)(p - fp->_IO_read_base), how);
    }
    if (r == EOF && shut() && feof_unlocked(fp))
        feed(NULL, 0, how);
}

static int scan(FILE *fp, const char *how, int c99, const char *fmt, va_list ap)
{
    struct scan_view v;
    scan_before(&v, fp);
    int r = c99 ? REAL(__isoc99_vfscanf)(fp, fmt, ap) : REAL(vfscanf)(fp, fmt, ap);
    scan_after(&v, fp, r, how);
    return r;
}

/* stdio.h may rename scanf and friends to their __isoc99_ forms: the
 * symbols are named explicitly. */
EXPORT int hook_vfscanf(FILE *, const char *, va_list) __asm__("vfscanf");
EXPORT int hook_isoc99_vfscanf(FILE *, const char *, va_list) __asm__("__isoc99_vfscanf");
EXPORT int hook_vscanf(const char *, va_list) __asm__("vscanf");
EXPORT int hook_isoc99_vscanf(const char *, va_list) __asm__("__isoc99_vscanf");
EXPORT int hook_fscanf(FILE *, const char *, ...) __asm__("fscanf");
EXPORT int hook_isoc99_fscanf(FILE *, const char *, ...) __asm__("__isoc99_fscanf");
EXPORT int hook_scanf(const char *, ...) __asm__("scanf");
EXPORT int hook_isoc99_scanf(const char *, ...) __asm__("__isoc99_scanf");

int hook_vfscanf(FILE *fp, const char *fmt, va_list ap) { return scan(fp, "vfscanf", 0, fmt, ap); }
int hook_isoc99_vfscanf(FILE *fp, const char *fmt, va_list ap) { return scan(fp, "vfscanf", 1, fmt, ap); }
int hook_vscanf(const char *fmt, va_list ap) { return scan(stdin, "vscanf", 0, fmt, ap); }
int hook_isoc99_vscanf(const char *fmt, va_list ap) { return scan(stdin, "vscanf", 1, fmt, ap); }

#define SCANF(hook, fp, how, c99, ...)        \
    int hook(__VA_ARGS__, const char *fmt, ...) \
    {                                           \
        va_list ap;                             \
        va_start(ap, fmt);                      \
        int r = scan(fp, how, c99, fmt, ap);    \
        va_end(ap);                             \
        return r;                               \
    }
SCANF(hook_fscanf, fp, "fscanf", 0, FILE *fp)
SCANF(hook_isoc99_fscanf, fp, "fscanf", 1, FILE *fp)

int hook_scanf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = scan(stdin, "scanf", 0, fmt, ap);
    va_end(ap);
    return r;
}

int hook_isoc99_scanf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = scan(stdin, "scanf", 1, fmt, ap);
    va_end(ap);
    return r;
}

/* ------------------------------------------------------------------ */
/* The explicit handshake. */

EXPORT int setenv(const char *name, const char *value, int overwrite)
{
    int r = REAL(setenv)(name, value, overwrite);
    if (gated() && r == 0 && shut() && strcmp(name, HANDSHAKE) == 0 &&
        strcmp(value, "1") == 0)
        open_gate(NULL, 0, 0);
    return r;
}

EXPORT int putenv(char *s)
{
    int r = REAL(putenv)(s);
    if (gated() && r == 0 && shut() && strcmp(s, HANDSHAKE "=1") == 0)
        open_gate(NULL, 0, 0);
    return r;
}

/* ------------------------------------------------------------------ */
/* Descriptor bookkeeping: copies of fd 1, and our private wire. */

/* newfd now refers to what oldfd referred to. */
static void note_copy(int oldfd, int newfd)
{
    char numbuf[24];
    int div = is_diversion(oldfd);

    if (in_vfork_child()) {
        /* This child's fd table is its own: dropping the wire from it is
         * how it remembers that fd 1 left the diversion. */
        if (newfd == 1 && !div)
            REAL(close)(LOAD(g_wire));
        return;
    }
    if (newfd == 1)
        STORE(g_fd1_ours, div);
    else
        set_copy(newfd, div);
    if (div && newfd != 1)
        say(3, "descriptor ", NUM(newfd), " is a copy of the diverted stdout", NULL);
    else if (newfd == 1)
        say(3, div ? "fd 1 points at the diversion again" : "fd 1 is the program's now", NULL);
    if (!div)
        release_if_unused();
}

static void note_closed(int fd)
{
    if (fd != 1 && !is_copy(fd))
        return;
    if (in_vfork_child()) {
        if (fd == 1)
            REAL(close)(LOAD(g_wire));
        return;
    }
    if (fd == 1)
        STORE(g_fd1_ours, 0);
    else
        set_copy(fd, 0);
    release_if_unused();
}

EXPORT int dup(int fd)
{
    int r = REAL(dup)(fd);
    if (gated() && r >= 0 && shut())
        note_copy(fd, r);
    return r;
}

static int dup_onto(int old, int new, int flags, int three)
{
    int saved;
    if (shut() && new == LOAD(g_wire) && new != old && !in_vfork_child())
        move_wire();
    int r = three ? REAL(dup3)(old, new, flags) : REAL(dup2)(old, new);
    if (r >= 0 && old != new && shut()) {
        saved = errno;
        note_copy(old, new);
        errno = saved;
    }
    return r;
}

EXPORT int dup2(int old, int new)
{
    if (likely(!gated()))
        return REAL(dup2)(old, new);
    return dup_onto(old, new, 0, 0);
}

EXPORT int dup3(int old, int new, int flags)
{
    if (likely(!gated()))
        return REAL(dup3)(old, new, flags);
    return dup_onto(old, new, flags, 1);
}

static int fcntl_arg_dups(int cmd)
{
    return cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC;
}

EXPORT int fcntl(int fd, int cmd, ...)
{
    va_list ap;
    va_start(ap, cmd);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    int r = REAL(fcntl)(fd, cmd, arg);
    if (gated() && r >= 0 && fcntl_arg_dups(cmd) && shut())
        note_copy(fd, r);
    return r;
}

EXPORT int fcntl64(int fd, int cmd, ...)
{
    va_list ap;
    va_start(ap, cmd);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    int r = REAL(fcntl64)(fd, cmd, arg);
    if (gated() && r >= 0 && fcntl_arg_dups(cmd) && shut())
        note_copy(fd, r);
    return r;
}

/* Programs close what they don't know about (a daemon, CPython's
 * subprocess child): the wire is not theirs to close. */
EXPORT int close(int fd)
{
    if (likely(!gated()))
        return REAL(close)(fd);
    if (fd >= 0 && fd == LOAD(g_wire)) {
        errno = EBADF;
        return -1;
    }
    int r = REAL(close)(fd);
    if (shut() && (r == 0 || errno != EBADF)) {
        int saved = errno;
        note_closed(fd);
        errno = saved;
    }
    return r;
}

static void copy_closed(int fd, int unused)
{
    (void)unused;
    note_closed(fd);
}

static void note_range_closed(unsigned first, unsigned last)
{
    if (first <= 1 && last >= 1)
        note_closed(1);
    if (!in_vfork_child())
        each_copy(first, last, copy_closed, 0);
}

EXPORT int close_range(unsigned first, unsigned last, int flags)
{
    if (likely(!gated()))
        return REAL(close_range)(first, last, flags);
    int wire = LOAD(g_wire), r;
    if (wire >= 0 && (unsigned)wire >= first && (unsigned)wire <= last) {
        r = 0;
        if ((unsigned)wire > first)
            r = REAL(close_range)(first, (unsigned)wire - 1, flags);
        if (r == 0 && (unsigned)wire < last)
            r = REAL(close_range)((unsigned)wire + 1, last, flags);
    } else {
        r = REAL(close_range)(first, last, flags);
    }
    if (r == 0 && !(flags & CLOSE_RANGE_CLOEXEC) && shut())
        note_range_closed(first, last);
    return r;
}

EXPORT void closefrom(int low)
{
    if (likely(!gated())) {
        REAL(closefrom)(low);
        return;
    }
    int wire = LOAD(g_wire);
    if (low < 0 || wire < low) {
        REAL(closefrom)(low);
    } else {
        if (wire > low)
            REAL(close_range)((unsigned)low, (unsigned)wire - 1, 0);
        REAL(close_range)((unsigned)wire + 1, ~0U, 0);
    }
    if (shut())
        note_range_closed((unsigned)low, ~0U);
}

/* ------------------------------------------------------------------ */
/* exec and spawn: hand the wire to the next program.
 *
 * These run in vfork children too: everything lives on the caller's stack,
 * and nothing shared is written. */

/* Is fd 1 still the inherited diversion, with the wire at hand?  fd 1 is
 * looked at too: libuv closes it with a raw system call and reopens it on
 * /dev/null in the child, where no interposer sees it. */
static int should_hand_wire(void)
{
    return shut() && LOAD(g_fd1_ours) && is(1, &g_div_id) && is(LOAD(g_wire), &g_wire_id);
}

static int is_marker(const char *e)
{
    return strncmp(e, MARKER "=", sizeof MARKER) == 0;
}

/* A marker that is not the program's own business: the one this process
 * was started with, come round again through a copy of its environment.
 * A marker the program set itself after it started is its own: a stdiogate
 * wrapper run by a shell that already has the library preloaded exports
 * one for the server it is about to exec, and that server's gate must act. */
static int stale_marker(const char *e)
{
    return is_marker(e) && g_marker[0] && strcmp(e, g_marker) == 0;
}

static size_t env_count(char *const *env, int *has_stale, const char **preload)
{
    size_t n = 0;
    *has_stale = 0;
    *preload = NULL;
    for (; env && env[n]; n++) {
        if (stale_marker(env[n]))
            *has_stale = 1;
        else if (strncmp(env[n], "LD_PRELOAD=", 11) == 0)
            *preload = env[n];
    }
    return n;
}

/* ------------------------------------------------------------------ */
/* Programs whose loader cannot resolve this library (musl's, linked
 * dynamically, exits 127 with "Error relocating libstdiogate.so"): they
 * are started without it, as if it were a static one.  The check reads the
 * file (a #! interpreter one level down, "#!/usr/bin/env NAME" included)
 * with pread into small buffers: it runs in vfork children too. */

#define LIB_NAME "libstdiogate.so"
#define EXEC_PATH_SIZE 512

/* Is name one of our LD_PRELOAD entries?  (Entries split on spaces and
 * colons, as ld.so splits them.) */
static int preload_entry_is_ours(const char *p, size_t len)
{
    size_t base = len;
    while (base > 0 && p[base - 1] != '/')
        base--;
    return len - base == sizeof LIB_NAME - 1 && memcmp(p + base, LIB_NAME, len - base) == 0;
}

static int preload_has_us(const char *value)
{
    for (const char *p = value; *p;) {
        size_t len = strcspn(p, " :");
        if (len && preload_entry_is_ours(p, len))
            return 1;
        p += len;
        if (*p)
            p++;
    }
    return 0;
}

/* The file execvp would run for name, into out ("" if none). */
static void exec_search(const char *name, int search, char *out)
{
    out[0] = '\0';
    if (!search || strchr(name, '/')) {
        if (strlen(name) < EXEC_PATH_SIZE)
            memcpy(out, name, strlen(name) + 1);
        return;
    }
    const char *path = getenv("PATH");
    for (const char *p = path ? path : "/bin:/usr/bin";; p++) {
        size_t len = strcspn(p, ":"), nlen = strlen(name);
        if (len + 1 + nlen < EXEC_PATH_SIZE) {
            memcpy(out, len ? p : ".", len ? len : 1);
            size_t k = len ? len : 1;
            out[k] = '/';
            memcpy(out + k + 1, name, nlen + 1);
            if (faccessat(AT_FDCWD, out, X_OK, AT_EACCESS) == 0)
                return;
        }
        out[0] = '\0';
        p += len;
        if (!*p)
            return;
    }
}

/* The next word of a #! line at *p (NUL-terminated), or NULL. */
static char *shebang_word(char **p)
{
    char *w = *p + strspn(*p, " \t");
    size_t len = strcspn(w, " \t");
    if (!len)
        return NULL;
    *p = w + len + (w[len] != '\0');
    w[len] = '\0';
    return w;
}

/* The program the "#!" line in line runs, into path: the interpreter, or
 * for "#!/usr/bin/env [-S] NAME", NAME searched in PATH.  0 if none. */
static int script_program(char *line, char *path)
{
    char *end = strchr(line, '\n'), *p = line + 2, *w;
    if (!end)
        return 0;   /* longer than we read */
    *end = '\0';
    char *interp = shebang_word(&p);
    if (!interp || strlen(interp) >= EXEC_PATH_SIZE)
        return 0;
    const char *base = strrchr(interp, '/');
    if (strcmp(base ? base + 1 : interp, "env") != 0) {
        memcpy(path, interp, strlen(interp) + 1);
        return 1;
    }
    while ((w = shebang_word(&p)) && (w[0] == '-' || strchr(w, '=')))
        ;
    if (!w)
        return 0;
    exec_search(w, 1, path);
    return path[0] != '\0';
}

/* Does the ELF file at path have an interpreter that is not glibc's?  A
 * "#!" script is judged by its interpreter, one level down.  (path is
 * overwritten.) */
static int runs_foreign_loader(char *path)
{
    char buf[256];
    int saved = errno, r = 0;
    for (int depth = 0; depth < 2; depth++) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            break;
        ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
        int script = n >= 2 && buf[0] == '#' && buf[1] == '!';
        if (!script)
            r = sg_elf_interp(fd, buf, sizeof buf) == 1 && !sg_interp_is_glibc(buf);
        REAL(close)(fd);
        if (!script)
            break;
        buf[n] = '\0';
        if (depth > 0 || !script_program(buf, path))
            break;
    }
    errno = saved;
    return r;
}

static int foreign_program(const char *file, int search)
{
    char path[EXEC_PATH_SIZE];
    exec_search(file, search, path);
    return path[0] && runs_foreign_loader(path);
}

/* Environment arrays this large are not edited (and the program still
 * gets the wire, unguarded). */
#define MAX_ENV 32768

struct exec_plan {
    int hand;           /* give the new program the wire as fd 1 */
    int edit_env;       /* build a new environment */
    int foreign;        /* the program's loader cannot resolve us: leave it out */
    int saved;          /* our fd 1 while the exec is tried */
    const char *preload; /* the LD_PRELOAD entry of env */
    size_t n;
};

/* check: 0 do not look at the program, 1 what is its path, 2 its name,
 * searched in PATH.  Returns the size of the environment array to build. */
static size_t plan_exec(struct exec_plan *x, char *const *env, const char *what, int check)
{
    int has_stale;
    x->hand = gated() && should_hand_wire();
    x->saved = -1;
    x->n = env_count(env, &has_stale, &x->preload);
    x->foreign = check && x->preload && preload_has_us(x->preload + 11) &&
                 foreign_program(what, check == 2);
    x->edit_env = (x->hand || has_stale || x->foreign) && x->n < MAX_ENV;
    if (x->foreign)
        say(x->hand ? 1 : 2, "exec: ", what, " has a loader that cannot load " LIB_NAME
            ": it runs without it", x->hand ? ", unguarded" : "", NULL);
    return x->edit_env ? x->n + 2 : 1;
}

/* The size of the buffer our LD_PRELOAD entry is rewritten into. */
static size_t plan_preload(const struct exec_plan *x)
{
    return x->foreign && x->edit_env ? strlen(x->preload) + 1 : 1;
}

/* "LD_PRELOAD=..." without our entries into out; NULL if none is left. */
static char *preload_without_us(const char *entry, char *out)
{
    size_t k = 11;
    memcpy(out, entry, 11);
    for (const char *p = entry + 11; *p;) {
        size_t len = strcspn(p, " :");
        if (len && !preload_entry_is_ours(p, len)) {
            if (k > 11)
                out[k++] = ' ';
            memcpy(out + k, p, len);
            k += len;
        }
        p += len;
        if (*p)
            p++;
    }
    out[k] = '\0';
    return k > 11 ? out : NULL;
}

/* Copy env without a stale marker (without any when handing the wire,
 * which takes ours); a program left without us gets neither marker nor our
 * LD_PRELOAD entry. */
static char *const *exec_env(struct exec_plan *x, char *const *env, char **out, char *preload)
{
    size_t k = 0;
    if (!x->edit_env)
        return env;
    for (size_t i = 0; i < x->n; i++) {
        if (is_marker(env[i]) && (x->hand || x->foreign || stale_marker(env[i])))
            continue;
        if (x->foreign && env[i] == x->preload) {
            if ((out[k] = preload_without_us(env[i], preload)))
                k++;
            continue;
        }
        out[k++] = env[i];
    }
    if (x->hand && !x->foreign && g_marker[0])
        out[k++] = g_marker;
    out[k] = NULL;
    return out;
}

/* Point fd 1 at the wire for the new program; keep ours to come back to. */
static void exec_begin(struct exec_plan *x, const char *what)
{
    if (!x->hand)
        return;
    wait_drained();
    x->saved = REAL(fcntl)(1, F_DUPFD_CLOEXEC, 3);
    if (x->saved < 0 || REAL(dup2)(LOAD(g_wire), 1) < 0) {
        if (x->saved >= 0)
            REAL(close)(x->saved);
        x->saved = -1;
        x->hand = 0;
        return;
    }
    say(2, "exec: handing the wire to ", what ? what : "a program", NULL);
}

/* The exec failed: divert again, keep errno. */
static void exec_failed(struct exec_plan *x)
{
    int saved = errno;
    if (x->saved >= 0) {
        REAL(dup2)(x->saved, 1);
        REAL(close)(x->saved);
    }
    errno = saved;
}

/* A shell's PATH search tries execve on every directory: only a file that
 * can run is worth handing the wire to. */
static int runnable(const char *path)
{
    int saved = errno, r = faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) == 0;
    errno = saved;
    return r;
}

#define EXEC_WITH(env, what, exact, check, call)            \
    do {                                                    \
        struct exec_plan x_;                                \
        char *out_[plan_exec(&x_, (env), (what), (check))]; \
        char pre_[plan_preload(&x_)];                       \
        if (x_.hand && (exact) && !runnable(what))          \
            x_.hand = 0;                                    \
        char *const *envp_ = exec_env(&x_, (env), out_, pre_); \
        exec_begin(&x_, (what));                            \
        int r_ = (call);                                    \
        exec_failed(&x_);                                   \
        return r_;                                          \
    } while (0)

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    EXEC_WITH(envp, path, 1, 1, REAL(execve)(path, argv, envp_));
}

EXPORT int execv(const char *path, char *const argv[])
{
    EXEC_WITH(environ, path, 1, 1, REAL(execve)(path, argv, envp_));
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    EXEC_WITH(envp, file, 0, 2, REAL(execvpe)(file, argv, envp_));
}

EXPORT int execvp(const char *file, char *const argv[])
{
    EXEC_WITH(environ, file, 0, 2, REAL(execvpe)(file, argv, envp_));
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    EXEC_WITH(envp, "a descriptor", 0, 0, REAL(fexecve)(fd, argv, envp_));
}

EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
    EXEC_WITH(envp, path, 0, 0, REAL(execveat)(dirfd, path, argv, envp_, flags));
}

/* The execl family: gather the arguments on the stack. */
static size_t count_args(const char *arg0, va_list ap)
{
    size_t n = 1;
    if (!arg0)
        return 0;
    while (va_arg(ap, const char *))
        n++;
    return n;
}

static void collect_args(char **argv, const char *arg0, size_t n, va_list ap)
{
    argv[0] = (char *)arg0;
    for (size_t i = 1; i < n; i++)
        argv[i] = va_arg(ap, char *);
    argv[n] = NULL;
}

/* Declares argv[] holding arg0 and the arguments after it, and leaves ap
 * just past the NULL that ends them (where execle's envp is). */
#define GATHER_ARGS(arg0, ap)                       \
    va_list ap, ap2_;                               \
    va_start(ap, arg0);                             \
    va_copy(ap2_, ap);                              \
    size_t n_ = count_args(arg0, ap2_);             \
    va_end(ap2_);                                   \
    char *argv[n_ + 1];                             \
    collect_args(argv, arg0, n_, ap);               \
    if (n_)                                         \
        (void)va_arg(ap, char *)

EXPORT int execl(const char *path, const char *arg0, ...)
{
    GATHER_ARGS(arg0, ap);
    va_end(ap);
    return execve(path, argv, environ);
}

EXPORT int execlp(const char *file, const char *arg0, ...)
{
    GATHER_ARGS(arg0, ap);
    va_end(ap);
    return execvpe(file, argv, environ);
}

EXPORT int execle(const char *path, const char *arg0, ...)
{
    GATHER_ARGS(arg0, ap);
    char *const *envp = va_arg(ap, char *const *);
    va_end(ap);
    return execve(path, argv, envp);
}

/* posix_spawn: glibc applies file actions in its own vfork child with
 * internal calls, so the wire goes in as a file action of its own, put
 * first: the program's own actions still decide fd 1 after it, and the
 * parent's fd 1 is never touched.  glibc's action array is private but
 * stable; its layout is checked once, and if it does not match, the
 * parent's fd 1 is pointed at the wire for the length of the call. */
struct spawn_action {
    int tag;
    union {
        struct { int fd; } close_action;
        struct { int fd; int newfd; } dup2_action;
        struct { int fd; char *path; int oflag; mode_t mode; } open_action;
    } action;
};

static int g_spawn_layout;   /* 0 unknown, 1 known, -1 unusable */
static int g_spawn_dup2_tag;

/* Run by a diverting constructor: it allocates, which the hook must not. */
static void check_spawn_layout(void)
{
    posix_spawn_file_actions_t fa;
    int known = -1;
    if (posix_spawn_file_actions_init(&fa) == 0) {
        if (posix_spawn_file_actions_adddup2(&fa, 0, 1) == 0 &&
            posix_spawn_file_actions_adddup2(&fa, 2, 0) == 0 && fa.__used == 2) {
            const struct spawn_action *a = (const struct spawn_action *)fa.__actions;
            if (a[0].tag == a[1].tag && a[0].action.dup2_action.fd == 0 &&
                a[0].action.dup2_action.newfd == 1 && a[1].action.dup2_action.fd == 2 &&
                a[1].action.dup2_action.newfd == 0) {
                g_spawn_dup2_tag = a[0].tag;
                known = 1;
            }
        }
        posix_spawn_file_actions_destroy(&fa);
    }
    STORE(g_spawn_layout, known);
}

#define MAX_SPAWN_ACTIONS 1024

static int spawn_with(int search, pid_t *pid, const char *file,
                      const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
                      char *const argv[], char *const envp[])
{
    struct exec_plan x;
    char *out[plan_exec(&x, envp, file, search ? 2 : 1)];
    char pre[plan_preload(&x)];
    char *const *env = exec_env(&x, envp, out, pre);
    int used = fa ? fa->__used : 0;
    int prepend = x.hand && used >= 0 && used < MAX_SPAWN_ACTIONS &&
                  LOAD(g_spawn_layout) == 1;
    struct spawn_action acts[prepend ? used + 1 : 1];
    posix_spawn_file_actions_t mine;
    int r;

    if (prepend) {
        memset(&mine, 0, sizeof mine);
        memset(&acts[0], 0, sizeof acts[0]);
        acts[0].tag = g_spawn_dup2_tag;
        acts[0].action.dup2_action.fd = LOAD(g_wire);
        acts[0].action.dup2_action.newfd = 1;
        if (used)
            memcpy(&acts[1], fa->__actions, (size_t)used * sizeof acts[0]);
        mine.__allocated = used + 1;
        mine.__used = used + 1;
        mine.__actions = (struct __spawn_action *)(void *)acts;
        fa = &mine;
        say(2, "exec: handing the wire to ", file, NULL);
    } else {
        exec_begin(&x, file);
    }
    r = search ? REAL(posix_spawnp)(pid, file, fa, attr, argv, env)
               : REAL(posix_spawn)(pid, file, fa, attr, argv, env);
    exec_failed(&x);
    return r;
}

EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                       const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    return spawn_with(0, pid, path, fa, attr, argv, envp);
}

EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                        const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    return spawn_with(1, pid, file, fa, attr, argv, envp);
}
