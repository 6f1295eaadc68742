/* SPDX-License-Identifier: MIT */
/* lib/write.c - the write path: the write entry points, where each call
 * goes, and putting a call's bytes out the way the program asked.
 *
 * Every write the program makes (write, writev, pwrite..., send, sendto,
 * sendmsg; C stdio's buffers come through lib/stdout.c) is routed once,
 * here, and goes one way from then on:
 *  - as it is: the descriptor is neither the diversion with the gate shut
 *    nor the wire with the guard on, or the call is whole messages on the
 *    wire (guard_whole, the common case: the real function after the
 *    classifier's scan);
 *  - to the hold (lib/failsafe.c, divert_call): the gate shut and the
 *    descriptor the diversion;
 *  - to the guard (lib/guard.c, guard_call): the gate open and the
 *    descriptor the wire.
 * Both end in the put functions at the end of this file: the bytes the
 * classifier gave the wire go out with the program's own call (struct put:
 * write, pwrite at its offset, or send to its address); write_whole writes
 * what the program was told is written already. */

#include "internal.h"

/* ---- The route ---- */

/* Does this call go to the diversion while the gate is shut?  A vfork
 * child writes no shared state: its writes go where they point. */
int to_diversion(int fd)
{
    if (unlikely(LOAD(g_core.state) == GATE_OPENING) && !in_vfork_child() && is_diversion(fd))
        wait_while_opening();
    return shut() && is_diversion(fd) && !in_vfork_child();
}

/* Where a write goes: as it is, through the fail-safe (the diversion, the
 * gate shut) or through the guard (the wire, lib/guard.c). */
enum { AS_IS, FAILSAFE, GUARD };

static inline __attribute__((always_inline)) int write_route(int fd, const struct iovec *iov, int cnt)
{
    if (gated() && to_diversion(fd))
        return FAILSAFE;
    return guarding() && guard_fd(fd) && !guard_whole(iov, cnt) ? GUARD : AS_IS;
}

static ssize_t routed_call(int route, struct put *c, const struct iovec *iov, int cnt,
                           const char *how)
{
    return route == FAILSAFE ? divert_call(c, iov, cnt, how) : guard_call(c, iov, cnt, how);
}

/* The write entry points: the readers' fast path, with the guard's word
 * beside the gate's (minding()): one load more. */
#define WRITER(ret, name, params, args, ...) FAST_PATH(minding, ret, name, params, args, __VA_ARGS__)

#define FD_WRITER(name, params, args, kind_, offset)                            \
    WRITER(ssize_t, name, params, args, {                                       \
        struct iovec v = { (void *)buf, n };                                    \
        int route = write_route(fd, &v, 1);                                     \
        if (route == AS_IS)                                                     \
            return REAL(name) args;                                             \
        struct put c = { .fd = fd, .kind = (kind_), .off = (offset) };          \
        return routed_call(route, &c, &v, 1, #name);                            \
    })
FD_WRITER(write, (int fd, const void *buf, size_t n), (fd, buf, n), PUT_WRITE, 0)
FD_WRITER(__write, (int fd, const void *buf, size_t n), (fd, buf, n), PUT_WRITE, 0)
FD_WRITER(pwrite, (int fd, const void *buf, size_t n, off_t off), (fd, buf, n, off), PUT_PWRITE, off)
FD_WRITER(pwrite64, (int fd, const void *buf, size_t n, off64_t off), (fd, buf, n, off), PUT_PWRITE, off)

/* pwritev2 with offset -1 writes at the file position, as writev does. */
#define IOV_WRITER(name, params, args, kind_, offset)                           \
    WRITER(ssize_t, name, params, args, {                                       \
        int route = write_route(fd, iov, cnt);                                  \
        if (route == AS_IS)                                                     \
            return REAL(name) args;                                             \
        struct put c = { .fd = fd, .kind = (kind_), .off = (offset) };          \
        return routed_call(route, &c, iov, cnt, #name);                         \
    })
IOV_WRITER(writev, (int fd, const struct iovec *iov, int cnt), (fd, iov, cnt), PUT_WRITE, 0)
IOV_WRITER(pwritev, (int fd, const struct iovec *iov, int cnt, off_t off), (fd, iov, cnt, off),
           PUT_PWRITE, off)
IOV_WRITER(pwritev64, (int fd, const struct iovec *iov, int cnt, off64_t off), (fd, iov, cnt, off),
           PUT_PWRITE, off)
IOV_WRITER(pwritev2, (int fd, const struct iovec *iov, int cnt, off_t off, int fl),
           (fd, iov, cnt, off, fl), off == -1 ? PUT_WRITE : PUT_PWRITE, off)
IOV_WRITER(pwritev64v2, (int fd, const struct iovec *iov, int cnt, off64_t off, int fl),
           (fd, iov, cnt, off, fl), off == -1 ? PUT_WRITE : PUT_PWRITE, off)

/* A diversion onto stderr may be no socket: what the program sends there
 * goes with write(2) (divert_whole); once the gate is open, the rest goes
 * with the program's own call. */
#define SEND_WRITER(name, params, args, address, address_len)                   \
    WRITER(ssize_t, name, params, args, {                                       \
        struct iovec v = { (void *)buf, n };                                    \
        int route = write_route(fd, &v, 1);                                     \
        if (route == AS_IS)                                                     \
            return REAL(name) args;                                             \
        struct put c = { .fd = fd, .kind = PUT_SEND, .flags = flags,            \
                         .addr = (address), .alen = (address_len) };            \
        return routed_call(route, &c, &v, 1, #name);                            \
    })
SEND_WRITER(send, (int fd, const void *buf, size_t n, int flags), (fd, buf, n, flags), NULL, 0)
SEND_WRITER(__send, (int fd, const void *buf, size_t n, int flags), (fd, buf, n, flags), NULL, 0)
SEND_WRITER(sendto, (int fd, const void *buf, size_t n, int flags, const struct sockaddr *a,
                     socklen_t alen), (fd, buf, n, flags, a, alen), a, alen)

/* Descriptors passed in a message (SCM_RIGHTS) go to another process,
 * maybe one outside every tree the library is in: `flatpak-spawn --host`
 * and `systemd-run --pipe` hand their stdio to a service that way.  Such a
 * service is a program the library cannot enter: like one started at exec
 * (lib/exec.c), it gets the wire in place of the diversion, unguarded but
 * working, or its answers would go to stderr.  The replacing is done in a
 * copy of the control data (on the stack, or mapped when larger), with a
 * copy of the wire taken under the wire lock (a gate opening meanwhile
 * closes g_core.wire, not the number sent); the program's message and its own
 * descriptors are untouched.  Once the gate is open, fd 1 is the wire
 * already and goes as it is; what the other process writes there passes
 * no guard (said at level 2).  The message's bytes always go as they are. */
#define CONTROL_ON_STACK 256
#define CONTROL_MAX ((size_t)64 * 1024)

/* Is fd one the program knows as stdout: the diversion while the gate is
 * shut, the wire once it is open (the same bookkeeping)? */
static int passed_stdout(int fd)
{
    return is_diversion(fd) && (shut() ? on_diversion(fd) == 1 : is(fd, &g_core.wire_id));
}

/* Calls fn on each descriptor of msg's SCM_RIGHTS messages (a descriptor
 * fn changes is written back), stopping at the first for which it returns
 * more than 0 (returned). */
static int each_passed(const struct msghdr *msg, int (*fn)(int *slot, int arg), int arg)
{
    const char *end = (const char *)msg->msg_control + msg->msg_controllen;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR((struct msghdr *)msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS || c->cmsg_len < CMSG_LEN(0))
            continue;
        char *data = (char *)CMSG_DATA(c);
        size_t len = c->cmsg_len - CMSG_LEN(0);
        if (data > end)
            break;
        if (len > (size_t)(end - data))
            len = (size_t)(end - data);
        for (size_t at = 0; at + sizeof(int) <= len; at += sizeof(int)) {
            int fd, was, r;
            memcpy(&fd, data + at, sizeof fd);
            was = fd;
            r = fn(&fd, arg);
            if (fd != was)      /* (only in our copy: the program's may be read-only) */
                memcpy(data + at, &fd, sizeof fd);
            if (r > 0)
                return r;
        }
    }
    return 0;
}

/* each_passed: 1 at stdout. */
static int find_stdout(int *slot, int unused)
{
    (void)unused;
    return passed_stdout(*slot);
}

/* each_passed: stdout becomes the wire copy. */
static int put_wire(int *slot, int wire)
{
    if (passed_stdout(*slot))
        *slot = wire;
    return 0;
}

/* msg with the diversion replaced by the wire; -2 if it could not be
 * (then the message goes as it is). */
static ssize_t send_with_wire(int fd, const struct msghdr *msg, int flags)
{
    char small[CONTROL_ON_STACK] __attribute__((aligned(__alignof__(struct cmsghdr))));
    size_t n = msg->msg_controllen;
    int held = lock_wire();
    int wire = shut() ? high_dup(LOAD(g_core.wire)) : -1;
    unlock_wire(held);
    if (wire < 0)
        return -2;
    char *copy = small;
    if (n > sizeof small) {
        void *p = n <= CONTROL_MAX ? mmap(NULL, n, PROT_READ | PROT_WRITE,
                                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : MAP_FAILED;
        if (p == MAP_FAILED) {
            REAL(close)(wire);
            return -2;
        }
        copy = p;
    }
    memcpy(copy, msg->msg_control, n);
    struct msghdr mine = *msg;
    mine.msg_control = copy;
    (void)each_passed(&mine, put_wire, wire);
    ssize_t r = REAL(sendmsg)(fd, &mine, flags);
    int err = errno;
    REAL(close)(wire);
    if (copy != small)
        munmap(copy, n);
    errno = err;
    return r;
}

static ssize_t send_control(int fd, const struct msghdr *msg, int flags)
{
    if (unlikely(LOAD(g_core.state) == GATE_OPENING) && !in_vfork_child())
        wait_while_opening();
    if (!msg->msg_control || !each_passed(msg, find_stdout, 0))
        return REAL(sendmsg)(fd, msg, flags);
    ssize_t r = shut() ? send_with_wire(fd, msg, flags) : -2;
    if (r != -2)
        say(2, "sendmsg: stdout passed to another process: it gets the wire (what it writes "
               "there is not guarded)");
    else if (shut())
        say(1, "sendmsg: cannot give the wire to another process in place of stdout: what it "
               "writes there goes to stderr");
    else    /* the gate is open: fd 1 and its copies are the wire */
        say(2, "sendmsg: the wire passed to another process: what it writes there is not guarded");
    return r != -2 ? r : REAL(sendmsg)(fd, msg, flags);
}

WRITER(ssize_t, sendmsg, (int fd, const struct msghdr *msg, int flags), (fd, msg, flags), {
    if (msg->msg_controllen != 0)
        return send_control(fd, msg, flags);
    int route = write_route(fd, msg->msg_iov, (int)msg->msg_iovlen);
    if (route == AS_IS)
        return REAL(sendmsg)(fd, msg, flags);
    struct put c = { .fd = fd, .kind = PUT_SEND, .flags = flags,
                     .addr = msg->msg_name, .alen = msg->msg_namelen };
    return routed_call(route, &c, msg->msg_iov, (int)msg->msg_iovlen, "sendmsg");
})

/* ---- Out: the way the program asked ---- */

/* The rest of a call goes out the way the program asked for it
 * (struct put: lib/internal.h). */
ssize_t put_bytes(struct put *c, const void *p, size_t n)
{
    ssize_t r;
    if (c->kind == PUT_PWRITE) {
        r = REAL(pwrite64)(c->fd, p, n, c->off);
        if (r > 0)
            c->off += r;
        return r;
    }
    if (c->kind == PUT_SEND)
        return REAL(sendto)(c->fd, p, n, c->flags, c->addr, c->alen);
    return REAL(write)(c->fd, p, n);
}

/* Several iovecs with one call of the program's kind (a positional write
 * gets one at a time: the caller's n is 1, pwritev64 being one of the
 * calls resolved lazily, by dlsym, which a signal handler must not run). */
static ssize_t put_iovecs(struct put *c, const struct iovec *v, int n)
{
    if (n == 1)
        return put_bytes(c, v[0].iov_base, v[0].iov_len);
    if (c->kind == PUT_SEND) {
        struct msghdr m = { .msg_name = (void *)c->addr, .msg_namelen = c->alen,
                            .msg_iov = (struct iovec *)v, .msg_iovlen = (size_t)n };
        return REAL(sendmsg)(c->fd, &m, c->flags);
    }
    return REAL(writev)(c->fd, v, n);
}

/* Puts bytes [from, to) of the call, as few calls as the program made:
 * whole iovecs as they are (a writev of a hundred messages is one writev
 * still, not a hundred writes), a cut one copied.  Returns how many went
 * out, stopping at the first short write, or -1 (errno set) if none did. */
#define PUT_PIECES 16
#define PUT_IOV_MAX 1024    /* (IOV_MAX on Linux) */

ssize_t put_range(struct put *c, const struct iovec *iov, int cnt, size_t from, size_t to)
{
    size_t done = 0;
    int one = c->kind == PUT_PWRITE;
    while (from + done < to) {
        struct iovec cut[PUT_PIECES];
        const struct iovec *at = cut;
        int n = iov_whole(iov, cnt, from + done, to, &at, one ? 1 : PUT_IOV_MAX);
        if (n == 0) {
            at = cut;
            n = iov_slice(iov, cnt, from + done, to, cut, one ? 1 : PUT_PIECES);
        }
        if (n == 0)
            break;
        size_t want = iov_total(at, n);
        ssize_t r = put_iovecs(c, at, n);
        if (r < 0)
            return done ? (ssize_t)done : -1;
        done += (size_t)r;
        if ((size_t)r < want)
            break;
    }
    return (ssize_t)done;
}

/* Bytes the program was told are written: ours to write whole.  The
 * diversion (bounded) is given SG_STALL_MS without progress, by when its
 * drain reads and drops by itself; the wire is waited for, as the program
 * would wait for its client.  Returns how many went out. */
size_t write_whole(int fd, const void *p, size_t n, int bounded)
{
    size_t done = 0;
    int saved = errno;
    while (done < n && fd >= 0) {
        ssize_t r = REAL(write)(fd, (const char *)p + done, n - done);
        if (r > 0) {
            done += (size_t)r;
        } else if (r < 0 && errno == EAGAIN) {
            struct pollfd q = { .fd = fd, .events = POLLOUT };
            int w = poll(&q, 1, bounded ? SG_STALL_MS : -1);
            if (w == 0 || (w < 0 && errno != EINTR))
                break;
        } else if (!(r < 0 && errno == EINTR)) {
            break;
        }
    }
    errno = saved;
    return done;
}
