/* SPDX-License-Identifier: MIT */
/* lib/glibc.c - glibc internals: what the library knows of glibc beyond its
 * API, each piece checked. */

#include "internal.h"

/* ------------------------------------------------------------------ */
/* glibc internals.  Everything the library knows of glibc beyond its API is
 * here, and each piece is checked before it is relied on:
 *  - posix_spawn's file action array (struct spawn_action below): private,
 *    stable since glibc 2.2; check_spawn_layout() builds two actions with
 *    the API and reads them back.  Unknown layout: spawn_with() falls back.
 *  - a FILE's lock (_IO_lock_t: int lock, int cnt, void *owner, where owner
 *    is the holder's THREAD_SELF, which is what pthread_self() returns):
 *    check_stdio_lock() takes and releases stdout's lock and looks.  Unknown:
 *    flush_stdout() does not ask who holds the lock.
 *  - FILE's buffer fields (_fileno, _IO_read_ptr, _IO_read_end,
 *    _IO_read_base): public members of glibc's struct _IO_FILE since libio
 *    began; the assertion below fails the build where they are not.
 *  - versioned symbols: dlsym(RTLD_NEXT) yields each name's default version
 *    (posix_spawn@GLIBC_2.15, not the 2.2.5 compatibility one, whose
 *    callers get the newer behaviour through us); check_versions() says so
 *    where the default is the old one.  The __isoc99_ scanf names are what
 *    <stdio.h> renames scanf to. */

_Static_assert(__builtin_offsetof(FILE, _IO_read_ptr) < __builtin_offsetof(FILE, _fileno) &&
               __builtin_offsetof(FILE, _IO_read_end) > __builtin_offsetof(FILE, _IO_read_ptr) &&
               __builtin_offsetof(FILE, _IO_read_base) > __builtin_offsetof(FILE, _IO_read_end),
               "glibc's struct _IO_FILE buffer fields");

int g_spawn_layout;          /* 0 unknown, 1 known, -1 unusable */
int g_spawn_dup2_tag;
posix_spawn_file_actions_t g_spawn_wire_only;          /* unknown layout: dup2(wire, 1) */
int g_spawn_wire_only_fd = -1;

/* Run by a diverting constructor: it allocates, which the hook must not. */
void check_spawn_layout(void)
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
    if (known != 1)
        say(2, "posix_spawn: glibc's file action layout is not the known one");
}

/* With the layout unknown, a caller without file actions of its own gets
 * this one (built here, where allocating is allowed). */
void prepare_spawn_fallback(int wire)
{
    if (LOAD(g_spawn_layout) == 1 || posix_spawn_file_actions_init(&g_spawn_wire_only) != 0)
        return;
    if (posix_spawn_file_actions_adddup2(&g_spawn_wire_only, wire, 1) == 0)
        g_spawn_wire_only_fd = wire;
}

void check_versions(void)
{
    void *old = dlvsym(RTLD_NEXT, "posix_spawn", "GLIBC_2.2.5");
    if (old && old == (void *)REAL(posix_spawn))
        say(2, "posix_spawn: the default version is the GLIBC_2.2.5 compatibility one");
}

struct io_lock { int lock; int cnt; void *owner; };
static int g_stdio_lock_known;

static void *stdout_lock_owner(void)
{
    const struct io_lock *l = (const struct io_lock *)(void *)stdout->_lock;
    return l ? __atomic_load_n(&l->owner, __ATOMIC_RELAXED) : NULL;
}

void check_stdio_lock(void)
{
    void *self = (void *)pthread_self(), *free_, *held;
    free_ = stdout_lock_owner();
    flockfile(stdout);
    held = stdout_lock_owner();
    funlockfile(stdout);
    g_stdio_lock_known = free_ == NULL && held == self && stdout_lock_owner() == NULL;
    if (!g_stdio_lock_known)
        say(2, "stdio: glibc's FILE lock layout is not the known one");
}

/* Is stdout's lock held by this very thread?  Then this call interrupted
 * (a signal handler) or was called back from inside stdio. */
int stdout_locked_here(void)
{
    return g_stdio_lock_known && stdout_lock_owner() == (void *)pthread_self();
}

/* FILE's buffering bits (SG_IO_*, lib/internal.h), private to libio, read
 * off a stream of our own set up each way, the first time a stream on the
 * wire is written after the gate (from lib/stdout.c's interposers: stdio
 * calls, which may allocate).  Unknown: lib/stdout.c leaves every stream
 * to glibc (its buffer reaches the wire unguarded).  1 known, -1 not. */
int g_stdio_flags_known;

int stdio_flags_known(void)
{
    int known = LOAD(g_stdio_flags_known);
    if (known)
        return known > 0;
    FILE *fp = fopen("/dev/null", "w");
    known = -1;
    if (fp && setvbuf(fp, NULL, _IONBF, 0) == 0 && (fp->_flags & SG_IO_UNBUFFERED) &&
        !(fp->_flags & SG_IO_LINE_BUF)) {
        static char line[64];
        if (setvbuf(fp, line, _IOLBF, sizeof line) == 0 && (fp->_flags & SG_IO_LINE_BUF) &&
            !(fp->_flags & (SG_IO_UNBUFFERED | SG_IO_CURRENTLY_PUTTING)) &&
            REAL(fputc)('x', fp) == 'x' && (fp->_flags & SG_IO_CURRENTLY_PUTTING))
            known = 1;
    }
    if (fp)
        REAL(fclose)(fp);
    STORE(g_stdio_flags_known, known);
    if (known < 0)
        say(2, "stdio: glibc's FILE buffering flags are not the known ones: C stdio's output "
               "after the gate is not guarded");
    return known > 0;
}
