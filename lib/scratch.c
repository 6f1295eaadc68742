/* SPDX-License-Identifier: MIT */
/* lib/scratch.c - memory for what an exec or spawn rebuilds (argv and
 * environment copies) when the stack is not enough: mapped, and in a vfork
 * child leased. */

#include "internal.h"

/* ------------------------------------------------------------------ */
/* A vfork child shares its parent's memory: a mapping it makes outlives a
 * successful exec, in the parent, and nobody would unmap it (issue 42: a
 * copy of an environment of 300 variables was not made at all, and a musl
 * program got our LD_PRELOAD entry and could not start).  So a vfork child
 * takes one of a few leased mappings instead, and hands it back without
 * writing anything after its exec: set_tid_address(2) names the lease's
 * word, which the kernel clears when the child's exec succeeds or it exits
 * (it releases the parent's memory then; mm_release in kernel/fork.c); a
 * failed exec clears it by itself.  A lease whose word is 0 is free, with
 * its mapping kept for the next one: at most LEASES mappings, for the life
 * of the process.  This is the one write a vfork child makes to shared
 * state, and it is atomic: a slot is claimed by compare-and-swap.
 *
 * set_tid_address changes the calling task's clear-child-tid, which glibc
 * uses for every thread it starts (pthread_join waits on it): it is called
 * only in a task known to be a vfork child (kcmp says it shares its
 * parent's memory), whose own clear-child-tid is unset (vfork does not set
 * it) and is unset again when the lease is handed back. */

#define LEASES 16

enum { LEASE_EMPTY, LEASE_CLAIMED, LEASE_PARKED };

struct lease {
    int state;
    int tid;        /* the child using it; cleared by the kernel or the child */
    void *p;
    size_t len;
};

static struct lease g_leases[LEASES];

/* 1: this task shares its parent's memory (a vfork child); 0: it does not;
 * -1: cannot tell (kcmp denied, as in Docker's default seccomp profile).
 * Where the bookkeeping knows (g_core.pid, kept right by the atfork handler of
 * a process that diverts or guards), it answers first. */
static int shares_parent_memory(void)
{
    pid_t me = getpid();
    if (me == LOAD(g_core.pid))
        return 0;
    long r = syscall(SYS_kcmp, me, getppid(), KCMP_VM, 0, 0);
    return r == 0 ? 1 : r > 0 ? 0 : -1;
}

static void *map_bytes(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* A slot of ours: a free lease (remapped if too small) or an empty one. */
static struct lease *lease_claim(size_t size)
{
    for (int i = 0; i < LEASES; i++) {
        struct lease *l = &g_leases[i];
        int st = LOAD(l->state);
        if (st == LEASE_PARKED && LOAD(l->tid) == 0 &&
            __atomic_compare_exchange_n(&l->state, &st, LEASE_CLAIMED, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED)) {
            if (l->len >= size)
                return l;
            munmap(l->p, l->len);
        } else if (st != LEASE_EMPTY ||
                   !__atomic_compare_exchange_n(&l->state, &st, LEASE_CLAIMED, 0,
                                                __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
            continue;
        }
        l->p = map_bytes(size);
        l->len = l->p ? size : 0;
        if (l->p)
            return l;
        STORE(l->state, LEASE_EMPTY);
        return NULL;
    }
    return NULL;
}

static void *lease_take(size_t size, struct scratch *s)
{
    struct lease *l = lease_claim(size);
    if (!l)
        return NULL;
    int tid = (int)syscall(SYS_set_tid_address, &l->tid);
    STORE(l->tid, tid);
    STORE(l->state, LEASE_PARKED);
    s->lease = l;
    return l->p;
}

void *scratch_get(struct scratch *s, size_t size, int returns)
{
    size_t page = 4096;
    size = (size + page - 1) / page * page;
    s->p = NULL;
    s->mapped = 0;
    s->lease = NULL;
    if (!returns && shares_parent_memory() == 1) {
        if ((s->p = lease_take(size, s)))
            return s->p;
        /* No lease free (16 vfork children at once): a mapping the parent
         * keeps, rather than an exec that goes wrong. */
        say(3, "exec: no lease free: a mapping is left behind in the parent");
    }
    if ((s->p = map_bytes(size)))
        s->mapped = size;
    return s->p;
}

/* The exec failed, or the spawn returned: the memory is given back. */
void scratch_put(struct scratch *s)
{
    int saved = errno;
    if (s->lease) {
        syscall(SYS_set_tid_address, NULL);
        STORE(s->lease->tid, 0);
    } else if (s->mapped) {
        munmap(s->p, s->mapped);
    }
    s->lease = NULL;
    s->mapped = 0;
    errno = saved;
}

/* A fork child: the leases its parent's vfork children hold are copies
 * nobody here uses. */
void scratch_after_fork(void)
{
    for (int i = 0; i < LEASES; i++)
        if (LOAD(g_leases[i].state) == LEASE_PARKED)
            STORE(g_leases[i].tid, 0);
}
