/* SPDX-License-Identifier: MIT */
/* lib/failsafe.c - writing stdout: the fail-safe (write entry points, the
 * hold). */

#include "internal.h"

/* ------------------------------------------------------------------ */
/* Writing stdout: the fail-safe.
 *
 * The gate opens when the program is seen reading the client's first
 * message.  A program may read in ways no interposer sees (raw system
 * calls, io_uring, a runtime's own I/O layer), or a worker that never reads
 * stdin may answer for it; its answers would then go to the diversion and
 * its client would wait forever.  A correct server cannot answer before it
 * has read a request, so a complete answer written to the diversion proves
 * the first message was read: it opens the gate and goes to the wire.
 *
 * Answers come in pieces: a header and then a body, a line in two writes,
 * a large message cut where a non-blocking writer found the pipe full, a
 * log line glued in front.  So what reaches the diversion goes through the
 * strict filter's classifier (detect.h, "The stream classifier"), across
 * calls: junk goes to the diversion at once; bytes that may still begin a
 * message are held (at most SG_HOLD_MAX, the classifier's bound) until it
 * decides them; a message that is an answer (sg_stream_answer; a frame is
 * held with its body until the body says, sg_reply) opens the gate with the
 * held bytes and the answer put on the wire first, in order; protocol that
 * is no answer (a notification, a JSON-lines server's raw HTTP response)
 * goes to the diversion, as everything else before the first message
 * does, and fixes no framing: the answer's, or the client's, will.  Held bytes still
 * undecided when the gate opens otherwise, at exit, _exit or exec are
 * junk: they go to the diversion then.
 *
 * What is seen: write, writev, pwrite..., send..., and C stdio's stdout
 * buffer when the program flushes it or exits (stdio writes with
 * glibc-internal calls, never through these).  A write returns its full
 * count once its bytes are held or diverted: the bytes are ours to write
 * then (write_whole).  Held memory is static: no heap. */

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

/* Puts bytes [from, to) of the call.  Returns how many went out, stopping
 * at the first short write, or -1 (errno set) if none did. */
ssize_t put_range(struct put *c, const struct iovec *iov, int cnt, size_t from, size_t to)
{
    size_t done = 0;
    while (from + done < to) {
        struct iovec piece;     /* the call's next stretch in one of its iovecs */
        if (iov_slice(iov, cnt, from + done, to, &piece, 1) == 0)
            break;
        ssize_t r = put_bytes(c, piece.iov_base, piece.iov_len);
        if (r < 0)
            return done ? (ssize_t)done : -1;
        done += (size_t)r;
        if ((size_t)r < piece.iov_len)
            break;
    }
    return (ssize_t)done;
}

/* n bytes went to the diversion: counted for diverted_summary(), and
 * traced at level 4.  Only the shut path pays. */
static void count_diverted(const void *p, size_t n, const char *how)
{
    struct iovec v = { (void *)p, n };

    if (n == 0)
        return;
    unsigned long long lines = iov_lines(&v, 1, n, NULL);
    __atomic_add_fetch(&g_div_bytes, (unsigned long long)n, __ATOMIC_RELAXED);
    __atomic_add_fetch(&g_div_lines, lines, __ATOMIC_RELAXED);
    if (g_level >= 4) {
        char numbuf[24];
        say(4, how, ": ", NUM(n), " bytes to the diversion");
    }
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

/* ---- The hold: bytes that may begin an answer ---- */

struct hold g_hold;             /* (lib/internal.h) */

/* One thread at a time.  0: this very thread holds it already (a signal
 * handler interrupted it), or (try) another does: the caller goes on as if
 * there were no hold. */
int hold_lock_how(int try)
{
    unsigned long me = this_thread();
    struct timespec ms = { 0, 1000000 };
    for (int spins = 0;; spins++) {
        unsigned long none = 0;
        if (__atomic_compare_exchange_n(&g_hold.owner, &none, me, 0, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED))
            return 1;
        if (none == me || try)
            return 0;
        if (spins < 100)
            sched_yield();
        else
            nanosleep(&ms, NULL);   /* the holder may be waiting for stderr */
    }
}

static int hold_lock(void)
{
    return hold_lock_how(0);
}

void hold_unlock(void)
{
    __atomic_store_n(&g_hold.owner, 0, __ATOMIC_RELEASE);
}

/* A fork child's copy of what its parent holds, owes or has pending is
 * the parent's to decide; the protocol decided so far stays. */
void hold_forget(void)
{
    enum sg_protocol p = g_hold.s.protocol;
    g_hold.owner = 0;
    g_hold.len = g_hold.pend = g_hold.owed = 0;
    g_hold.owed_by = 0;
    g_hold.frame = 0;
    sg_stream_init(&g_hold.s, p);
}

/* To the diversion: straight to stderr as far as it takes at once while
 * no helper is needed (lib/helper.c, drain_direct), the rest through the
 * pipe and its helper. */
static void divert_whole(int fd, const void *p, size_t n, const char *how)
{
    struct iovec v = { (void *)p, n };
    size_t direct = n ? drain_direct(&v, 1) : 0;
    if (direct < n)
        carry(how);
    count_diverted(p, direct + write_whole(fd, (const char *)p + direct, n - direct, 1), how);
}

/* Where held junk goes outside a call: fd 1 while it is the diversion,
 * else (the gate opened in another thread meanwhile) stderr itself. */
static int settle_fd(void)
{
    if (LOAD(g_fd1_ours) && on_diversion(1))
        return 1;
    return strcmp(g_div_name, "stderr") == 0 ? 2 : -1;
}

/* What is held is junk (decided so, or at a decision point).  A frame
 * held for its body is dropped with it: the rest of its body is read
 * afresh, as what follows junk is (not passed unseen as a body's). */
static void hold_spill(int fd, const char *how)
{
    size_t n = g_hold.len;
    g_hold.len = 0;
    if (g_hold.frame) {
        g_hold.frame = 0;
        sg_stream_body_taken(&g_hold.s, sg_stream_body_left(&g_hold.s));
        g_hold.s.bol = 0;
    }
    divert_whole(fd, g_hold.buf, n, how);
}

/* What goes to the diversion from one call leaves in one write (the held
 * bytes decided with it first): the drain copies it to stderr in one
 * piece, as it did before the hold, and the server's own stderr lines do
 * not fall inside it. */
struct batch {
    struct iovec v[2];          /* held bytes, then a stretch of the call */
};

static void batch_out(struct batch *b, int fd, const char *how)
{
    size_t done = 0, pos = 0;
    if (b->v[0].iov_len && b->v[1].iov_len) {
        done = drain_direct(b->v, 2);
        if (done == 0) {
            carry(how);
            ssize_t r = REAL(writev)(fd, b->v, 2);
            done = r > 0 ? (size_t)r : 0;
        }
    }
    for (int i = 0; i < 2; pos += b->v[i].iov_len, i++) {
        const char *base = b->v[i].iov_base;
        size_t len = b->v[i].iov_len, sent = done > pos ? done - pos : 0;
        sent = sent < len ? sent : len;
        count_diverted(base, sent, how);
        divert_whole(fd, base + sent, len - sent, how);
    }
    b->v[0].iov_len = b->v[1].iov_len = 0;
}

/* Bytes p[0..k) of the call, just decided for the diversion: after what
 * is held, and after the stretch already in the batch if they follow it. */
static void batch_add(struct batch *b, int fd, const unsigned char *p, size_t k, const char *how)
{
    if (g_hold.len) {
        batch_out(b, fd, how);
        b->v[0] = (struct iovec){ g_hold.buf, g_hold.len };
        g_hold.len = 0;
    } else if (b->v[1].iov_len &&
               (const unsigned char *)b->v[1].iov_base + b->v[1].iov_len != p) {
        batch_out(b, fd, how);
    }
    if (!b->v[1].iov_len)
        b->v[1].iov_base = (void *)p;
    b->v[1].iov_len += k;
}

/* The body of a frame decided at its header (a framing fixed already:
 * the classifier passed it unread) and held with it: how many of p[0..n)
 * go with it (into the hold, or out with the verdict), and *v: SG_WIRE, it
 * is an answer (sg_stream_answer); SG_JUNK, its body ended without saying
 * so, or the hold is full and it cannot be one; SG_UNDECIDED, the body goes
 * on. */
static size_t frame_body(const unsigned char *p, size_t n, enum sg_verdict *v)
{
    struct sg_stream *s = &g_hold.s;
    unsigned long long left = sg_stream_body_left(s);
    size_t room = sizeof g_hold.buf - g_hold.len, k = n < room ? n : room;
    k = (unsigned long long)k < left ? k : (size_t)left;
    sg_reply_feed(&s->reply, p, k);
    sg_stream_body_taken(s, k);
    s->reply.cut = k < left;
    if (k < left && k < room && !sg_reply_answer(&s->reply))
        *v = SG_UNDECIDED;
    else
        *v = sg_stream_answer(s) ? SG_WIRE : SG_JUNK;
    if (*v != SG_UNDECIDED)
        g_hold.frame = 0;
    return k;
}

/* One step of the classifier over p[0..n), the gate shut: how many bytes it
 * took, *v as sg_stream_scan says, and whether they end an answer.  A
 * frame passed at its header is held for its body (frame_body); protocol
 * that is no answer leaves the framing as it was. */
static size_t hold_step(const unsigned char *p, size_t n, enum sg_verdict *v, int *answer)
{
    unsigned char before = g_hold.s.where, protocol = g_hold.s.protocol;
    size_t k;
    if (g_hold.frame) {
        k = frame_body(p, n, v);
        *answer = *v == SG_WIRE;
        if (*answer)
            g_hold.s.protocol = SG_FRAMED;
        return k;
    }
    k = sg_stream_scan(&g_hold.s, p, n, v);
    int message = *v == SG_WIRE && before != SW_LINE && before != SW_BODY;
    int unread = message && g_hold.s.protocol == SG_FRAMED && sg_stream_body_left(&g_hold.s) &&
                 !g_hold.s.reply.cut;
    if (unread) {
        g_hold.frame = 1;
        *v = SG_UNDECIDED;
    }
    *answer = message && !unread && sg_stream_answer(&g_hold.s);
    if (!*answer)
        g_hold.s.protocol = protocol;
    return k;
}

/* Bytes of a call go through the classifier, the gate shut and the hold
 * ours.  Returns how many bytes of the call were taken (held, diverted, or
 * put on the wire with the answer): all of them, unless the gate opened
 * (*opened: by this call's answer), after which the caller puts the rest
 * on fd as the program asked. */
static size_t hold_feed(const struct iovec *iov, int cnt, int fd, const char *how, int *opened)
{
    size_t taken = 0;
    struct batch b = { { { NULL, 0 }, { NULL, 0 } } };
    for (int i = 0; i < cnt; i++) {
        const unsigned char *p = iov[i].iov_base;
        size_t n = iov[i].iov_len, off = 0;
        while (off < n && shut()) {
            enum sg_verdict v;
            int is_answer;
            size_t k = hold_step(p + off, n - off, &v, &is_answer);
            if (v == SG_UNDECIDED) {
                /* the rest of this piece may begin a message, or k bytes
                 * are a held frame's */
                batch_out(&b, fd, how);
                if (k > sizeof g_hold.buf - g_hold.len) {   /* the classifier's bound: never */
                    hold_spill(fd, how);
                    divert_whole(fd, p + off, k, how);
                } else {
                    memcpy(g_hold.buf + g_hold.len, p + off, k);
                    g_hold.len += k;
                }
            } else if (is_answer) {
                batch_out(&b, fd, how);
                struct iovec answer[2] = { { g_hold.buf, g_hold.len }, { (void *)(p + off), k } };
                int mine = open_gate_with(how, 0, GATE_BY_ANSWER, answer, 2);
                if (!mine) {    /* another thread opened it: fd is the wire then */
                    wait_while_opening();
                    for (int j = 0; j < 2; j++)
                        write_whole(fd, answer[j].iov_base, answer[j].iov_len, 0);
                }
                g_hold.len = 0;
                *opened = 1;
                return taken + k;
            } else {    /* junk, or protocol that is no answer */
                batch_add(&b, fd, p + off, k, how);
            }
            off += k;
            taken += k;
        }
        if (off < n)
            break;      /* the gate opened in another thread */
    }
    batch_out(&b, fd, how);
    return taken;
}

/* A decision point other than a write (the gate opening otherwise, exit,
 * _exit, exec): what is held is junk.  The gate's opener only tries: a
 * thread feeding the hold decides itself (and sees the gate open).  Never
 * in a vfork child. */
void hold_settle(const char *how, int try)
{
    if (in_vfork_child() || !hold_lock_how(try))
        return;
    if (g_hold.len) {
        hold_spill(settle_fd(), how);
        (void)sg_stream_end(&g_hold.s);
    }
    hold_unlock();
}

/* The gate opened in another thread while this one fed the hold: what it
 * still holds came before, and is junk.  (The hold is ours.) */
static void hold_orphans(const char *how)
{
    if (!shut() && g_hold.len)
        hold_spill(settle_fd(), how);
}

/* A call to the diversion, the gate shut: through the hold.  Returns what
 * the call returns: the bytes taken, plus what went out of the rest. */
static ssize_t divert_call(struct put *c, const struct iovec *iov, int cnt, const char *how)
{
    size_t total = iov_total(iov, cnt), taken = 0;
    int opened = 0;

    if (!hold_lock()) {     /* a signal handler inside the hold: as it is */
        carry(how);
        ssize_t r = put_range(c, iov, cnt, 0, total);
        return r;
    }
    if (shut())
        taken = hold_feed(iov, cnt, c->fd, how, &opened);
    if (taken < total && LOAD(g_state) == GATE_OPENING) {
        /* Another thread began to open the gate after this call found it
         * shut (while it waited for the hold, say): fd 1 is the diversion
         * until the gate is open, and the rest of the call, an answer
         * perhaps, would go to stderr.  The opener may need the hold. */
        hold_unlock();
        wait_while_opening();
        (void)hold_lock();
    }
    hold_orphans(how);
    if (taken < total && guarding() && guard_fd(c->fd)) {
        /* The gate opened (this call's answer, or another thread): the
         * rest of the call is the guard's, the hold still ours. */
        struct iovec rest[16];
        int n = iov_slice(iov, cnt, taken, total, rest, 16);
        if (c->kind == PUT_PWRITE)
            c->off += (off64_t)taken;
        ssize_t r = guard_locked(c, rest, n);
        hold_unlock();
        return r >= 0 ? (ssize_t)(taken + (size_t)r) : taken ? (ssize_t)taken : -1;
    }
    hold_unlock();
    if (taken == total)
        return (ssize_t)total;
    if (c->kind == PUT_PWRITE)
        c->off += (off64_t)taken;
    ssize_t r = put_range(c, iov, cnt, taken, total);
    return r >= 0 ? (ssize_t)(taken + (size_t)r) : taken ? (ssize_t)taken : -1;
}

/* Does this call go to the diversion while the gate is shut?  A vfork
 * child writes no shared state: its writes go where they point. */
static int to_diversion(int fd)
{
    if (unlikely(LOAD(g_state) == GATE_OPENING) && !in_vfork_child() && is_diversion(fd))
        wait_while_opening();
    return shut() && is_diversion(fd) && !in_vfork_child();
}

/* Where a write goes: as it is, through the fail-safe (the diversion, the
 * gate shut) or through the guard (the wire, lib/guard.c). */
enum { AS_IS, FAILSAFE, GUARD };

static int write_route(int fd, const struct iovec *iov, int cnt)
{
    if (to_diversion(fd))
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
        struct put c = { .fd = fd, .kind = (kind_), .off = (offset) };          \
        int route = write_route(fd, &v, 1);                                     \
        if (route == AS_IS)                                                     \
            return REAL(name) args;                                             \
        return routed_call(route, &c, &v, 1, #name);                            \
    })
FD_WRITER(write, (int fd, const void *buf, size_t n), (fd, buf, n), PUT_WRITE, 0)
FD_WRITER(__write, (int fd, const void *buf, size_t n), (fd, buf, n), PUT_WRITE, 0)
FD_WRITER(pwrite, (int fd, const void *buf, size_t n, off_t off), (fd, buf, n, off), PUT_PWRITE, off)
FD_WRITER(pwrite64, (int fd, const void *buf, size_t n, off64_t off), (fd, buf, n, off), PUT_PWRITE, off)

/* pwritev2 with offset -1 writes at the file position, as writev does. */
#define IOV_WRITER(name, params, args, kind_, offset)                           \
    WRITER(ssize_t, name, params, args, {                                       \
        struct put c = { .fd = fd, .kind = (kind_), .off = (offset) };          \
        int route = write_route(fd, iov, cnt);                                  \
        if (route == AS_IS)                                                     \
            return REAL(name) args;                                             \
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
        struct put c = { .fd = fd, .kind = PUT_SEND, .flags = flags,            \
                         .addr = (address), .alen = (address_len) };            \
        int route = write_route(fd, &v, 1);                                     \
        if (route == AS_IS)                                                     \
            return REAL(name) args;                                             \
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
 * closes g_wire, not the number sent); the program's message and its own
 * descriptors are untouched.  Once the gate is open, fd 1 is the wire
 * already and goes as it is; what the other process writes there passes
 * no guard (said at level 2).  The message's bytes always go as they are. */
#define CONTROL_ON_STACK 256
#define CONTROL_MAX ((size_t)64 * 1024)

/* Is fd one the program knows as stdout: the diversion while the gate is
 * shut, the wire once it is open (the same bookkeeping)? */
static int passed_stdout(int fd)
{
    return is_diversion(fd) && (shut() ? on_diversion(fd) == 1 : is(fd, &g_wire_id));
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
    int wire = shut() ? high_dup(LOAD(g_wire)) : -1;
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
    if (unlikely(LOAD(g_state) == GATE_OPENING) && !in_vfork_child())
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
    struct put c = { .fd = fd, .kind = PUT_SEND, .flags = flags,
                     .addr = msg->msg_name, .alen = msg->msg_namelen };
    int route = write_route(fd, msg->msg_iov, (int)msg->msg_iovlen);
    if (route == AS_IS)
        return REAL(sendmsg)(fd, msg, flags);
    return routed_call(route, &c, msg->msg_iov, (int)msg->msg_iovlen, "sendmsg");
})

/* C stdio: what sits in stdout's buffer goes through the hold as one
 * write, and is taken out of the buffer; if its answer opened the gate,
 * what follows stays for the flush, which writes it to the wire.  (The
 * gate's own flush_stdout finds the lock held by this thread and leaves
 * the buffer alone.) */
void stdout_through_hold(const char *how)
{
    FILE *fp = stdout;
    int tries = 0;

    if (!fp || !to_diversion(fp->_fileno))
        return;
    while (ftrylockfile(fp) != 0)
        if (++tries == 100)
            return;   /* another thread is writing it: no guess */
        else
            sched_yield();
    char *base = fp->_IO_write_base, *ptr = fp->_IO_write_ptr;
    size_t len = base && ptr > base ? (size_t)(ptr - base) : 0;
    if (fp->_mode <= 0 && len && shut() && hold_lock()) {
        struct iovec v = { base, len };
        int opened = 0;
        size_t taken = shut() ? hold_feed(&v, 1, fp->_fileno, how, &opened) : 0;
        hold_orphans(how);
        hold_unlock();
        memmove(base, base + taken, len - taken);
        fp->_IO_write_ptr = base + (len - taken);
    }
    funlockfile(fp);
}
