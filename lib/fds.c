/* SPDX-License-Identifier: MIT */
/* lib/fds.c - descriptors: identities, copies of the diversion, private
 * descriptors, and the bookkeeping interposers (dup, dup2, dup3, fcntl,
 * close, close_range, closefrom, daemon). */

#include "internal.h"

/* ------------------------------------------------------------------ */
/* Descriptor identities. */

int identify(int fd, struct identity *id)
{
    struct stat st;
    if (fd < 0 || sg_fstat(fd, &st) != 0)
        return id->valid = 0;
    id->dev = st.st_dev;
    id->ino = st.st_ino;
    return id->valid = 1;
}

int is(int fd, const struct identity *id)
{
    struct identity here;
    return id->valid && identify(fd, &here) && here.dev == id->dev && here.ino == id->ino;
}

/* While the gate is shut every read asks whether its descriptor is stdin,
 * and a program may read a file a line at a time before stdin (Node reads
 * OpenSSL's configuration with ~4,000 fgets): one fstat per number, not per
 * call.  A number found not to be stdin stays so until a call the library
 * sees makes some descriptor a copy of stdin's file (dup, dup2, dup3,
 * fcntl's F_DUPFD, an open by name, a descriptor received): each such call
 * starts a new epoch (fds_changed), after the real call, and an answer holds
 * only in the epoch it was found in, read before its fstat.  Closes need
 * none: a closed number is not stdin, and nothing but those calls (or raw
 * system calls, docs/LIMITS.md) makes it stdin again.  Only "not stdin" is
 * kept; one word per slot, so that threads and signal handlers see a whole
 * answer or none. */
#define NOT_STDIN_SLOTS 16
#define NOT_STDIN_FD_BITS 24
static unsigned long long g_fd_epoch;
static unsigned long long g_not_stdin[NOT_STDIN_SLOTS];

void fds_changed(void)
{
    if (shut() && !in_vfork_child())
        __atomic_add_fetch(&g_fd_epoch, 1, __ATOMIC_ACQ_REL);
}

/* The slot's word for fd in this epoch (never 0); 0 if fd is not kept. */
static unsigned long long not_stdin_key(int fd, unsigned long long epoch)
{
    if (fd < 0 || fd >= (1 << NOT_STDIN_FD_BITS))
        return 0;
    return ((epoch << NOT_STDIN_FD_BITS) | (unsigned long long)fd) + 1;
}

/* A vfork child's reads are not the server's, and must not touch its
 * detector: in a vfork child nothing is stdin (and it keeps no answer: its
 * descriptors are not the parent's). */
__attribute__((noinline)) static int look_if_stdin(int fd, unsigned long long key,
                                                   unsigned long long *slot)
{
    int saved = errno;
    errno = 0;
    /* sure: fstat answered, or said there is no such descriptor */
    int r = is(fd, &g_core.stdin_id), sure = errno == 0 || errno == EBADF;
    if (r)
        r = !in_vfork_child();
    else if (sure && key && !in_vfork_child())
        __atomic_store_n(slot, key, __ATOMIC_RELAXED);
    errno = saved;
    return r;
}

int is_stdin(int fd)
{
    unsigned long long key = not_stdin_key(fd, LOAD(g_fd_epoch));
    unsigned long long *slot = &g_not_stdin[(unsigned)fd % NOT_STDIN_SLOTS];
    if (key && __atomic_load_n(slot, __ATOMIC_RELAXED) == key)
        return 0;
    return look_if_stdin(fd, key, slot);
}

/* 1: a and b are the same open file; 0: not; -1: cannot tell (no kcmp). */
int same_open_file(int a, int b)
{
    pid_t me = getpid();
    long r = syscall(SYS_kcmp, me, me, KCMP_FILE, a, b);
    return r == 0 ? 1 : r > 0 ? 0 : -1;
}

/* Is fd our diversion itself, not merely the same file?  A program that
 * opens /dev/null (or /dev/stderr) on fd 1 by itself, through calls no
 * interposer sees (freopen, daemon), has made its own choice. */
int on_diversion(int fd)
{
    int div = LOAD(g_core.div), saved = errno, r = -1;
    if (div >= 0)
        r = same_open_file(fd, div);
    if (r < 0)
        r = is(fd, &g_core.div_id);
    if (r == 0)
        r = on_reopened(fd);
    errno = saved;
    return r;
}

/* ------------------------------------------------------------------ */
/* Copies of the diversion. */

static unsigned long g_copies_static[TRACKED_STATIC / WORD_BITS];
static unsigned long *g_copies = g_copies_static;
static unsigned long g_tracked = TRACKED_STATIC;
static unsigned long g_top;  /* highest copy ever set, plus one */
int g_ncopies;

/* The copies bitmap, one bit per descriptor the process may ever have. */
void map_copies(void)
{
    struct rlimit rl;
    unsigned long bits = TRACKED_MAX;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY && rl.rlim_max < bits)
        bits = (unsigned long)rl.rlim_max;
    if (bits <= TRACKED_STATIC)
        return;
    bits = (bits + WORD_BITS - 1) / WORD_BITS * WORD_BITS;
    void *p = mmap(NULL, bits / 8, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return;
    g_copies = p;
    g_tracked = bits;
}

/* Calls fn(fd, arg) for each copy of the diversion in [first, last]. */
void each_copy(unsigned first, unsigned last, void (*fn)(int, int), int arg)
{
    size_t words = (LOAD(g_top) + WORD_BITS - 1) / WORD_BITS;
    for (size_t w = first / WORD_BITS; w < words && LOAD(g_ncopies) > 0; w++) {
        unsigned long bits = LOAD(g_copies[w]);
        while (bits) {
            unsigned fd = (unsigned)(w * WORD_BITS) + (unsigned)__builtin_ctzl(bits);
            bits &= bits - 1;
            if (fd >= first && fd <= last)
                fn((int)fd, arg);
        }
    }
}

static int is_copy(int fd)
{
    if (fd < 0 || (unsigned long)fd >= LOAD(g_top))
        return 0;
    return (int)((LOAD(g_copies[fd / WORD_BITS]) >> (fd % WORD_BITS)) & 1);
}

/* Only a root program raises its hard limit past what the constructor saw. */
static void copy_untracked(int fd)
{
    char numbuf[24], limit[24];
    say(1, "descriptor ", NUM(fd), " is a copy of the diversion beyond the ",
        NUM_IN(limit, g_tracked), " descriptors the library tracks: it stays on the diversion");
}

void set_copy(int fd, int on)
{
    unsigned long bit, old, top;
    if (fd < 0 || (on && (unsigned long)fd >= g_tracked)) {
        if (fd >= 0)
            copy_untracked(fd);
        return;
    }
    if ((unsigned long)fd >= LOAD(g_top) && !on)
        return;
    for (top = LOAD(g_top); on && top <= (unsigned long)fd;)
        __atomic_compare_exchange_n(&g_top, &top, (unsigned long)fd + 1, 0,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    bit = 1UL << (fd % WORD_BITS);
    if (on)
        old = __atomic_fetch_or(&g_copies[fd / WORD_BITS], bit, __ATOMIC_ACQ_REL);
    else
        old = __atomic_fetch_and(&g_copies[fd / WORD_BITS], ~bit, __ATOMIC_ACQ_REL);
    if (!(old & bit) != !on)
        __atomic_fetch_add(&g_ncopies, on ? 1 : -1, __ATOMIC_ACQ_REL);
}

/* Does fd point at the diversion, as far as the program knows? */
int is_diversion(int fd)
{
    return (fd == 1 && LOAD(g_core.fd1_ours)) || is_copy(fd);
}

/* ------------------------------------------------------------------ */
/* Private descriptors live high, where shells and programs don't look. */

int high_dup(int fd)
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

/* The wire lock.  Whatever reads g_core.wire or g_core.div and then uses or closes
 * the number, and whatever changes what fd 1 or a copy points at while the
 * gate is shut, holds it: open_gate, release_if_unused, moving a private
 * descriptor, the copies bookkeeping, a descriptor of ours being closed,
 * exec's hand-off and its undoing, posix_spawn's copy of the wire.  Each
 * holder makes a few non-blocking system calls and lets go.  The wait is
 * bounded: a signal handler that interrupted a holder on its own thread
 * gives up after a while and goes on unlocked, as before there was a lock.
 * A vfork child never takes it (it writes no shared state; its descriptor
 * table is its own, so nothing it does to descriptors races the parent). */
static int g_wire_busy;

int lock_wire(void)
{
    return in_vfork_child() ? 0 : spin_lock(&g_wire_busy);
}

void unlock_wire(int held)
{
    if (held)
        __atomic_store_n(&g_wire_busy, 0, __ATOMIC_RELEASE);
}

/* A fork child has one thread: nobody holds the lock in it. */
void wire_lock_after_fork(void)
{
    STORE(g_wire_busy, 0);
}

static int is_private(int fd)
{
    return fd >= 0 && (fd == LOAD(g_core.wire) || fd == LOAD(g_core.div) || fd == LOAD(g_core.err) ||
                       fd == LOAD(g_drain_in));
}

/* The program wants the number a private descriptor sits on: move it. */
static void move_private(int fd)
{
    char numbuf[24], to[24];
    int held = lock_wire(), moved = -2;
    int *which = fd == LOAD(g_core.wire) ? &g_core.wire : fd == LOAD(g_core.div) ? &g_core.div
               : fd == LOAD(g_core.err) ? &g_core.err : fd == LOAD(g_drain_in) ? &g_drain_in : NULL;
    if (which) {
        moved = high_dup(fd);
        if (moved >= 0) {
            STORE(*which, moved);
            REAL(close)(fd);
        }
    }
    int err = errno;
    unlock_wire(held);
    if (moved == -1)
        say(1, "cannot move a private descriptor off ", NUM(fd), ": ", err_name(err));
    else if (moved >= 0)
        say(3, "moved descriptor ", NUM(fd), " to ", NUM_IN(to, moved));
}

/* Let the private descriptors go: the number is cleared before it is
 * closed, and both under the wire lock, so that a concurrent close() or
 * dup2() of a number just reused by the program is never taken for ours. */

void drop_privates(void)
{
    int wire = LOAD(g_core.wire), div = LOAD(g_core.div), err = LOAD(g_core.err);
    STORE(g_core.wire, -1);
    STORE(g_core.div, -1);
    STORE(g_core.err, -1);   /* (say_out polls first from now on) */
    if (wire >= 0)
        REAL(close)(wire);
    if (div >= 0)
        REAL(close)(div);
    if (err >= 0)
        REAL(close)(err);
    drop_reopened();
    /* A lazy pipe: the helper only if a child still writes to it. */
    drain_if_needed("the gate", 1, 1);
    /* The helper's input has ended, unless a child holds the pipe: it
     * exits within moments, and is reaped here if it does (else at exit). */
    (void)reap_helper(&g_helper, HELPER_END_MS);
    (void)reap_helper(&g_helper_inherited, 0);
}

/* ------------------------------------------------------------------ */
/* Descriptor bookkeeping: copies of fd 1, and our private wire. */

static void note_closed(int fd);

/* newfd now refers to what oldfd referred to. */
static void note_copy(int oldfd, int newfd)
{
    char numbuf[24];
    int div = is_diversion(oldfd);

    forget_reopened(newfd);
    if (in_vfork_child()) {
        /* This child's fd table is its own: dropping the wire from it is
         * how it remembers that fd 1 left the diversion. */
        if (newfd == 1 && !div)
            REAL(close)(LOAD(g_core.wire));
        return;
    }
    int held = lock_wire();
    if (newfd == 1)
        STORE(g_core.fd1_ours, div);
    else
        set_copy(newfd, div);
    unlock_wire(held);
    if (div && newfd != 1)
        say(3, "descriptor ", NUM(newfd), " is a copy of the diversion");
    else if (newfd == 1)
        say(3, div ? "stdout points at the diversion again" : "stdout is the program's now");
    if (!div)
        release_if_unused();
}

/* fd was closed by a call no interposer saw (fclose's). */
void fd_closed(int fd)
{
    if (tracking())
        note_closed(fd);
}

static void note_closed(int fd)
{
    forget_reopened(fd);
    if (fd != 1 && !is_copy(fd))
        return;
    if (in_vfork_child()) {
        if (fd == 1)
            REAL(close)(LOAD(g_core.wire));
        return;
    }
    int held = lock_wire();
    if (fd == 1)
        STORE(g_core.fd1_ours, 0);
    else
        set_copy(fd, 0);
    unlock_wire(held);
    release_if_unused();
}

EXPORT int dup(int fd)
{
    int r = REAL(dup)(fd);
    if (minding() && r >= 0) {
        fds_changed();
        if (tracking())
            note_copy(fd, r);
    }
    return r;
}

static int dup_onto(int old, int new, int flags, int three)
{
    int saved;
    /* Also while the gate is opening: move_private waits for open_gate. */
    if (minding() && is_private(new) && new != old && !in_vfork_child())
        move_private(new);
    int r = three ? REAL(dup3)(old, new, flags) : REAL(dup2)(old, new);
    if (r >= 0 && old != new) {
        saved = errno;
        fds_changed();
        if (tracking())
            note_copy(old, new);
        errno = saved;
    }
    return r;
}

EXPORT int dup2(int old, int new)
{
    if (likely(!minding()))
        return REAL(dup2)(old, new);
    return dup_onto(old, new, 0, 0);
}

EXPORT int dup3(int old, int new, int flags)
{
    if (likely(!minding()))
        return REAL(dup3)(old, new, flags);
    return dup_onto(old, new, flags, 1);
}

static int fcntl_arg_dups(int cmd)
{
    return cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC;
}

static int fcntl_done(int fd, int cmd, int r)
{
    if (minding() && r >= 0 && fcntl_arg_dups(cmd)) {
        fds_changed();
        if (tracking())
            note_copy(fd, r);
    }
    return r;
}

/* fcntl and fcntl64 (CPython 3.12 and Node import the latter): the one
 * argument there may be, passed on as it came. */
#define FCNTL(name)                                             \
    EXPORT int name(int fd, int cmd, ...)                       \
    {                                                           \
        va_list ap;                                             \
        va_start(ap, cmd);                                      \
        void *arg = va_arg(ap, void *);                         \
        va_end(ap);                                             \
        return fcntl_done(fd, cmd, REAL(name)(fd, cmd, arg));   \
    }
FCNTL(fcntl)
FCNTL(fcntl64)

/* Programs close what they don't know about (a daemon, CPython's
 * subprocess child): the wire is not theirs to close. */
EXPORT int close(int fd)
{
    if (likely(!minding()))
        return REAL(close)(fd);
    if (gated() && is_private(fd)) {
        /* Ours, unless open_gate is letting it go right now: then the
         * number may be the program's by the time the lock is ours. */
        int held = lock_wire(), mine = is_private(fd);
        unlock_wire(held);
        if (mine) {
            errno = EBADF;
            return -1;
        }
    }
    int r = REAL(close)(fd);
    if (tracking() && (r == 0 || errno != EBADF)) {
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

/* close_range(first, last) around our private descriptors: the pieces of
 * [first, last] between them, in order. */
static int close_range_around(unsigned first, unsigned last, int flags)
{
    int mine[4] = { LOAD(g_core.wire), LOAD(g_core.div), LOAD(g_core.err), LOAD(g_drain_in) }, r = 0;
    unsigned lo = first, skip[4];
    for (int i = 0; i < 4; i++)         /* in order, -1 first */
        for (int j = i + 1; j < 4; j++)
            if (mine[j] < mine[i]) {
                int t = mine[i];
                mine[i] = mine[j];
                mine[j] = t;
            }
    for (int i = 0; i < 4; i++)
        skip[i] = (unsigned)mine[i];
    for (int i = 0; i < 4 && lo <= last; i++) {
        if (mine[i] < 0 || skip[i] < lo || skip[i] > last)
            continue;
        if (skip[i] > lo)
            r = REAL(close_range)(lo, skip[i] - 1, flags);
        if (r != 0)
            return r;
        lo = skip[i] + 1;
    }
    if (lo <= last)
        r = REAL(close_range)(lo, last, flags);
    return r;
}

EXPORT int close_range(unsigned first, unsigned last, int flags)
{
    if (likely(!minding()))
        return REAL(close_range)(first, last, flags);
    int r;
    if (!gated())
        r = REAL(close_range)(first, last, flags);
    else
        r = first > last ? REAL(close_range)(first, last, flags)
                         : close_range_around(first, last, flags);
    if (r == 0 && !(flags & CLOSE_RANGE_CLOEXEC) && tracking())
        note_range_closed(first, last);
    return r;
}

EXPORT void closefrom(int low)
{
    if (likely(!minding())) {
        REAL(closefrom)(low);
        return;
    }
    if (!gated() || low < 0 || (LOAD(g_core.wire) < low && LOAD(g_core.div) < low && LOAD(g_core.err) < low &&
                                LOAD(g_drain_in) < low)) {
        REAL(closefrom)(low);
    } else {
        (void)close_range_around((unsigned)low, ~0U, 0);
    }
    if (tracking())
        note_range_closed((unsigned)low, ~0U);
}

/* daemon(3) points 0, 1 and 2 at /dev/null with calls no interposer sees,
 * in a child that outlives the server.  Unwrapped, that child holds nothing
 * of the client's; wrapped, it must not hold the wire either. */
EXPORT int daemon(int nochdir, int noclose)
{
    int r = REAL(daemon)(nochdir, noclose);
    if (minding() && r == 0 && tracking() && !in_vfork_child() && LOAD(g_core.fd1_ours) &&
        (shut() ? !on_diversion(1) : !is(1, &g_core.wire_id))) {
        int held = lock_wire();
        STORE(g_core.fd1_ours, 0);
        unlock_wire(held);
        release_if_unused();
    }
    return r;
}
