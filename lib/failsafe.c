/* SPDX-License-Identifier: MIT */
/* lib/failsafe.c - the fail-safe: while the gate is shut, what the program
 * writes to the diversion goes through the hold, and a complete answer
 * opens the gate. */

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
 * What is seen: write, writev, pwrite..., send... (routed here by
 * lib/write.c: divert_call), and C stdio's stdout buffer when the program
 * flushes it or exits (stdio writes with glibc-internal calls, never
 * through these: stdout_through_hold).  A write returns its full
 * count once its bytes are held or diverted: the bytes are ours to write
 * then (write_whole).  Held memory is static: no heap. */

/* What reached the diversion through the write interposers (write,
 * writev, pwrite, send...: lib/write.c routes them here), counted while the
 * gate is shut, for the summary as it opens (shim.c).  C stdio writes its
 * buffer with glibc-internal calls that no interposer sees (a full buffer,
 * the flush as the gate opens): those bytes reach the diversion too but are
 * not counted, hence "at least". */
unsigned long long g_div_bytes, g_div_lines;

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
    g_hold.open_by = 0;
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
    if (LOAD(g_core.fd1_ours) && on_diversion(1))
        return 1;
    return strcmp(g_core.div_name, "stderr") == 0 ? 2 : -1;
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
ssize_t divert_call(struct put *c, const struct iovec *iov, int cnt, const char *how)
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
    if (taken < total && LOAD(g_core.state) == GATE_OPENING) {
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

/* C stdio: what sits in stdout's buffer goes through the hold as one
 * write, and is taken out of the buffer; if its answer opened the gate,
 * what follows stays for the flush, which writes it to the wire.  (The
 * gate's own flush_stdout finds the lock held by this thread and leaves
 * the buffer alone.) */
void stdout_into_hold(const char *how)
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
