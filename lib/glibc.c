/* SPDX-License-Identifier: MIT */
/* lib/glibc.c - glibc internals: what the library knows of glibc beyond its
 * API, each piece checked. */

#include "internal.h"

/* ------------------------------------------------------------------ */
/* glibc internals.  Everything the library knows of glibc beyond its API is
 * here, and each piece is checked before it is relied on:
 *  - posix_spawn's file action array (struct spawn_action below): private,
 *    stable since glibc 2.2; check_spawn_layout() builds two actions with
 *    the API and reads them back, then one of each kind to learn its tag
 *    (chdir and fchdir: Rust's Command::current_dir).  Unknown layout:
 *    spawn_with() falls back; an unknown tag: lib/exec.c cannot tell
 *    where the child's fd 1 goes.
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

/* Each action tag, what it does to the child's descriptors: learnt by
 * building one action of each kind with the API and reading its tag back
 * (and the descriptor where lib/exec.c will look for it).  The kinds glibc
 * added later (chdir 2.29, fchdir 2.29, closefrom 2.34, tcsetpgrp 2.35) are
 * looked up by name: the library loads on an older glibc too. */
#define SPAWN_TAGS 16
static unsigned char g_spawn_kinds[SPAWN_TAGS];

enum spawn_kind spawn_action_kind(int tag)
{
    return tag >= 0 && tag < SPAWN_TAGS ? (enum spawn_kind)g_spawn_kinds[tag] : SPAWN_UNKNOWN;
}

/* The action just added to fa (added: what the API returned) has kind;
 * for SPAWN_ON_FD, fd is where it must say it acts.  A tag seen twice
 * makes both unknown. */
static void learn_tag(const posix_spawn_file_actions_t *fa, int added, enum spawn_kind kind,
                      int fd)
{
    if (added != 0 || fa->__used < 1)
        return;
    const struct spawn_action *a = (const struct spawn_action *)fa->__actions + fa->__used - 1;
    if (a->tag < 0 || a->tag >= SPAWN_TAGS)
        return;
    if (g_spawn_kinds[a->tag] != SPAWN_UNKNOWN || (kind == SPAWN_ON_FD &&
                                                   a->action.close_action.fd != fd))
        kind = SPAWN_UNKNOWN;
    g_spawn_kinds[a->tag] = (unsigned char)kind;
}

typedef int (*spawn_path_adder)(posix_spawn_file_actions_t *, const char *);
typedef int (*spawn_fd_adder)(posix_spawn_file_actions_t *, int);

static int add_by_name(posix_spawn_file_actions_t *fa, const char *name, int fd, const char *path)
{
    void *f = dlsym(RTLD_DEFAULT, name);
    if (!f)
        return -1;
    return path ? ((spawn_path_adder)f)(fa, path) : ((spawn_fd_adder)f)(fa, fd);
}

static void learn_spawn_tags(void)
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return;
    learn_tag(&fa, posix_spawn_file_actions_adddup2(&fa, 0, 1), SPAWN_DUP2, 0);
    learn_tag(&fa, posix_spawn_file_actions_addclose(&fa, 5), SPAWN_ON_FD, 5);
    learn_tag(&fa, posix_spawn_file_actions_addopen(&fa, 6, "/dev/null", O_RDONLY, 0),
              SPAWN_ON_FD, 6);
    learn_tag(&fa, add_by_name(&fa, "posix_spawn_file_actions_addclosefrom_np", 7, NULL),
              SPAWN_ON_FD, 7);
    learn_tag(&fa, add_by_name(&fa, "posix_spawn_file_actions_addchdir_np", 0, "/"),
              SPAWN_ELSEWHERE, 0);
    learn_tag(&fa, add_by_name(&fa, "posix_spawn_file_actions_addfchdir_np", 0, NULL),
              SPAWN_ELSEWHERE, 0);
    learn_tag(&fa, add_by_name(&fa, "posix_spawn_file_actions_addtcsetpgrp_np", 0, NULL),
              SPAWN_ELSEWHERE, 0);
    posix_spawn_file_actions_destroy(&fa);
    if (spawn_action_kind(g_spawn_dup2_tag) != SPAWN_DUP2)
        memset(g_spawn_kinds, SPAWN_UNKNOWN, sizeof g_spawn_kinds);
}

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
    if (known == 1)
        learn_spawn_tags();
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

int stdio_flags_probe(void)
{
    int known;
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
