/* SPDX-License-Identifier: MIT */
/* lib/epoll.c - epoll registrations of fd 1 (and copies of the diversion)
 * made before the gate: made again on the wire when it opens. */

#include "internal.h"

/* ------------------------------------------------------------------ */
/* An epoll registration names a descriptor and the open file it had then.
 * A server that registers fd 1 before the first message (tokio's AsyncFd,
 * edge-triggered EPOLLOUT on a non-blocking fd 1) registers the diversion;
 * when the gate puts the wire on fd 1, nothing tells it the wire has room,
 * and at its first EAGAIN it waits for ever (issue 42).  So such
 * registrations are remembered (a small table, under the wire lock); when
 * the gate opens each one is deleted while its descriptor is still the
 * diversion (which proves it is still there) and added again once the
 * descriptor is the wire: the kernel then reports the wire's readiness at
 * once, as it did for the diversion.  Stand-ins opened by name have their
 * own (lib/reopen.c). */

#define EPOLL_NOTED 16

struct noted {
    int epfd;               /* -1: free */
    int fd;
    int detached;           /* deleted by the gate, to be added again */
    struct epoll_event ev;
};

static struct noted g_noted[EPOLL_NOTED] = {
    [0 ... EPOLL_NOTED - 1] = { .epfd = -1, .fd = -1 }
};
static int g_nnoted;

static struct noted *noted_at(int epfd, int fd)
{
    for (int i = 0; i < EPOLL_NOTED; i++)
        if (g_noted[i].epfd == epfd && g_noted[i].fd == fd)
            return &g_noted[i];
    return NULL;
}

/* Under the wire lock, while the gate is shut. */
static void note(int epfd, int op, int fd, const struct epoll_event *ev)
{
    char numbuf[24];
    struct noted *n = noted_at(epfd, fd);
    if (op == EPOLL_CTL_DEL) {
        if (n) {
            n->epfd = n->fd = -1;
            __atomic_fetch_sub(&g_nnoted, 1, __ATOMIC_ACQ_REL);
        }
        return;
    }
    if (!ev || !is_diversion(fd) || (!n && op != EPOLL_CTL_ADD))
        return;
    if (!n && (n = noted_at(-1, -1)) == NULL) {
        say(1, "epoll: no room to remember descriptor ", NUM(fd),
            "'s registration: it will not hear of the wire");
        return;
    }
    if (n->epfd < 0)
        __atomic_fetch_add(&g_nnoted, 1, __ATOMIC_ACQ_REL);
    n->epfd = epfd;
    n->fd = fd;
    n->detached = 0;
    n->ev = *ev;
}

__attribute__((noinline, cold)) static void slow_epoll_ctl(int epfd, int op, int fd,
                                                           const struct epoll_event *ev)
{
    int saved = errno;
    if (!in_vfork_child() && !note_reopened_epoll(epfd, op, fd, ev)) {
        int held = lock_wire();
        if (shut())
            note(epfd, op, fd, ev);
        unlock_wire(held);
    }
    errno = saved;
}

EXPORT int epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
    int r = REAL(epoll_ctl)(epfd, op, fd, ev);
    if (unlikely(r == 0 && gated() && shut()))
        slow_epoll_ctl(epfd, op, fd, ev);
    return r;
}

/* open_gate, under the wire lock, before fd 1 and its copies move. */
void epoll_detach(void)
{
    for (int i = 0; i < EPOLL_NOTED && LOAD(g_nnoted) > 0; i++) {
        struct noted *n = &g_noted[i];
        n->detached = n->epfd >= 0 && on_diversion(n->fd) == 1 &&
                      REAL(epoll_ctl)(n->epfd, EPOLL_CTL_DEL, n->fd, NULL) == 0;
    }
}

/* open_gate, under the wire lock, once they are on the wire: every
 * registration is forgotten, the detached ones made again. */
void epoll_reattach(void)
{
    char numbuf[24];
    for (int i = 0; i < EPOLL_NOTED && LOAD(g_nnoted) > 0; i++) {
        struct noted *n = &g_noted[i];
        if (n->epfd < 0)
            continue;
        if (n->detached && is(n->fd, &g_core.wire_id) &&
            REAL(epoll_ctl)(n->epfd, EPOLL_CTL_ADD, n->fd, &n->ev) == 0)
            say(3, "descriptor ", NUM(n->fd), "'s epoll registration is the wire's now");
        else if (n->detached)
            say(1, "cannot register descriptor ", NUM(n->fd), " with epoll again: ",
                err_name(errno));
        n->epfd = n->fd = -1;
        n->detached = 0;
        __atomic_fetch_sub(&g_nnoted, 1, __ATOMIC_ACQ_REL);
    }
}
