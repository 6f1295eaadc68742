/* SPDX-License-Identifier: MIT */
/* lib/reads.c - every read path on stdin: watching it, read/readv/recv,
 * stdio (fgets, getline, fread, getc, __uflow, ungetc), scanf (C99 and C23
 * names), wide stdio. */

#include "internal.h"

/* ------------------------------------------------------------------ */
/* Watching stdin. */

static struct sg_detect g_detect;
int g_client_framing;               /* enum sg_protocol: the first message's */
static int g_detect_busy;
static unsigned long long g_detect_bytes;

/* The constructor diverts: the first message is to be found. */
void detect_start(void)
{
    sg_detect_init(&g_detect);
}

static int lock_detector(void)
{
    return spin_lock(&g_detect_busy);
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
        if (done)
            STORE(g_client_framing, (int)sg_detect_framing(&g_detect));
    }
    g_detect_bytes += k;
    total = g_detect_bytes;
    __atomic_store_n(&g_detect_busy, 0, __ATOMIC_RELEASE);
    if (g_level >= 4) {
        char numbuf[24];
        say(4, how, ": ", NUM(n), " bytes from stdin");
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

/* Where the program stands in stdin's stdio buffer.  Counting calls cannot
 * tell: an inline getc_unlocked takes bytes from the buffer without a call,
 * and after an ungetc it takes the pushed-back byte again, still without a
 * call.  The stream's own pointers can.  The detector has been shown the
 * bytes of the current fill up to g_buf.fed; the program stands at the
 * main get area's read pointer.  glibc's ungetc either steps that pointer
 * back (the byte read last), or switches to a backup area holding the
 * pushed-back bytes; the main area then resumes at _IO_save_base and ends
 * at _IO_save_end (bminor/glibc:libio/genops.c, _IO_default_pbackfail).
 * Pushed-back bytes are never new input.
 *
 * g_buf belongs to one stream at a time and is changed only under that
 * stream's lock (taken here for the locking readers; the program holds it,
 * or reads from one thread, for the _unlocked ones), never by a vfork child. */
#define SG_IO_IN_BACKUP 0x0100    /* glibc libio/libio.h: _IO_IN_BACKUP */
#define SG_IO_POS_BAD ((off64_t)-1) /* glibc libio/libio.h: _IO_pos_BAD */

static struct {
    FILE *fp;
    const char *fed;    /* the current fill was fed up to here */
    const char *end;    /* its end when fed was set: another end, another fill */
} g_buf;

struct area {
    const char *point;  /* where the program reads the next buffered byte */
    const char *end;
    size_t pushed;      /* pushed-back bytes it reads before that */
};

static void main_area(FILE *fp, struct area *a)
{
    const char *p = fp->_IO_read_ptr, *e = fp->_IO_read_end;
    if (fp->_flags & SG_IO_IN_BACKUP) {
        a->point = fp->_IO_save_base;
        a->end = fp->_IO_save_end;
        a->pushed = e > p ? (size_t)(e - p) : 0;
    } else {
        a->point = p;
        a->end = e;
        a->pushed = 0;
    }
}

static void set_fed(FILE *fp, const char *fed, const char *end)
{
    g_buf.fp = fp;
    g_buf.fed = fed;
    g_buf.end = end;
}

/* Shows the detector what the program took from the buffer since our last
 * look without calling anything.  A fill we did not see refilled (the first
 * one, or one made by a reader not interposed) counts from its start. */
static void catch_up_in(FILE *fp, const struct area *a, const char *how)
{
    if (g_buf.fp != fp || a->end != g_buf.end) {
        const char *base = fp->_IO_buf_base;
        set_fed(fp, base && a->point >= base && a->point <= a->end ? base : a->point, a->end);
    }
    if (a->point > g_buf.fed && a->point <= a->end) {
        feed(g_buf.fed, (size_t)(a->point - g_buf.fed), how);
        g_buf.fed = a->point;
    }
}

static void catch_up(FILE *fp, struct area *a, const char *how)
{
    main_area(fp, a);
    catch_up_in(fp, a, how);
}

/* Bytes the program will read again before it reaches a new one. */
static size_t fed_ahead(const struct area *a)
{
    return a->pushed + (g_buf.fed > a->point ? (size_t)(g_buf.fed - a->point) : 0);
}

/* One call of a stdio reader on stdin, while the gate is shut. */
struct stdio_call {
    FILE *fp;           /* NULL: not stdin, or nothing to watch */
    int locked;
    size_t ahead;
};

static int stdio_begin(struct stdio_call *c, FILE *fp, int lock, const char *how)
{
    struct area a;
    c->fp = NULL;
    if (!is_stdin_file(fp) || in_vfork_child())
        return 0;
    if (lock)
        flockfile(fp);
    c->fp = fp;
    c->locked = lock;
    catch_up(fp, &a, how);
    c->ahead = fed_ahead(&a);
    return 1;
}

static void stdio_done(struct stdio_call *c)
{
    if (c->fp && c->locked)
        funlockfile(c->fp);
}

/* The reader handed the program n bytes at p, or hit end of input: the
 * first c->ahead of them had been fed already. */
static void stdio_end(struct stdio_call *c, const void *p, size_t n, const char *how)
{
    struct area a;
    FILE *fp = c->fp;
    if (!fp)
        return;
    main_area(fp, &a);
    if (n > c->ahead && shut())
        feed((const char *)p + c->ahead, n - c->ahead, how);
    if (n > c->ahead || a.end != g_buf.end)
        set_fed(fp, a.point, a.end);
    if (!n && feof_unlocked(fp) && shut())
        feed(NULL, 0, how);
    stdio_done(c);
}

/* ------------------------------------------------------------------ */
/* Read paths on stdin. */

/* A read of fd: the real one, and what it read shown to the detector
 * (seen: how) if fd is stdin while the gate is shut. */
#define WATCHED_READER(name, params, args, seen)        \
    READER(ssize_t, name, params, args, {               \
        int watched = gated() && watch(fd);             \
        ssize_t r = REAL(name) args;                    \
        if (watched)                                    \
            seen;                                       \
        return r;                                       \
    })
#define FD_READER(name, params, args) WATCHED_READER(name, params, args, saw(buf, n, r, #name))
FD_READER(read, (int fd, void *buf, size_t n), (fd, buf, n))
FD_READER(__read_chk, (int fd, void *buf, size_t n, size_t len), (fd, buf, n, len))
FD_READER(pread, (int fd, void *buf, size_t n, off_t off), (fd, buf, n, off))
FD_READER(pread64, (int fd, void *buf, size_t n, off64_t off), (fd, buf, n, off))
FD_READER(__pread_chk, (int fd, void *buf, size_t n, off_t off, size_t len), (fd, buf, n, off, len))
FD_READER(__pread64_chk, (int fd, void *buf, size_t n, off64_t off, size_t len), (fd, buf, n, off, len))

#define IOV_READER(name, params, args) WATCHED_READER(name, params, args, saw_iov(iov, cnt, r, #name))
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

/* It may bring descriptors (SCM_RIGHTS), and one may be a copy of stdin. */
READER(ssize_t, recvmsg, (int fd, struct msghdr *msg, int flags), (fd, msg, flags), {
    int watched = gated() && !(flags & MSG_PEEK) && watch(fd);
    ssize_t r = REAL(recvmsg)(fd, msg, flags);
    if (r >= 0 && msg->msg_controllen) {
        int saved = errno;
        fds_changed();
        errno = saved;
    }
    if (watched)
        saw_iov(msg->msg_iov, (int)msg->msg_iovlen, r, "recvmsg");
    return r;
})

/* C stdio fills its buffer with glibc-internal reads that no interposer
 * sees; what its readers hand the program is what counts, less what the
 * program reads again (stdio_begin).  The locking readers run under the
 * stream's lock, which they would take anyway, so that the buffer does
 * not move between our look and theirs. */

#define STRING_READER(name, params, args, lock)                 \
    READER(char *, name, params, args, {                        \
        struct stdio_call c_;                                   \
        stdio_begin(&c_, fp, lock, #name);                      \
        char *r = REAL(name) args;                              \
        stdio_end(&c_, r, r ? strlen(r) : 0, #name);            \
        return r;                                               \
    })
STRING_READER(fgets, (char *s, int n, FILE *fp), (s, n, fp), 1)
STRING_READER(fgets_unlocked, (char *s, int n, FILE *fp), (s, n, fp), 0)
STRING_READER(__fgets_chk, (char *s, size_t size, int n, FILE *fp), (s, size, n, fp), 1)
STRING_READER(__fgets_unlocked_chk, (char *s, size_t size, int n, FILE *fp), (s, size, n, fp), 0)

#define LINE_READER(name, params, args)                                         \
    READER(ssize_t, name, params, args, {                                       \
        struct stdio_call c_;                                                   \
        stdio_begin(&c_, fp, 1, #name);                                         \
        ssize_t r = REAL(name) args;                                            \
        stdio_end(&c_, r > 0 ? *line : NULL, r > 0 ? (size_t)r : 0, #name);     \
        return r;                                                               \
    })
LINE_READER(getline, (char **line, size_t *cap, FILE *fp), (line, cap, fp))
LINE_READER(getdelim, (char **line, size_t *cap, int delim, FILE *fp), (line, cap, delim, fp))
LINE_READER(__getdelim, (char **line, size_t *cap, int delim, FILE *fp), (line, cap, delim, fp))

#define BLOCK_READER(name, params, args, lock)          \
    READER(size_t, name, params, args, {                \
        struct stdio_call c_;                           \
        stdio_begin(&c_, fp, lock, #name);              \
        size_t r = REAL(name) args;                     \
        stdio_end(&c_, p, r * size, #name);             \
        return r;                                       \
    })
BLOCK_READER(fread, (void *p, size_t size, size_t n, FILE *fp), (p, size, n, fp), 1)
BLOCK_READER(fread_unlocked, (void *p, size_t size, size_t n, FILE *fp), (p, size, n, fp), 0)
BLOCK_READER(__fread_chk, (void *p, size_t len, size_t size, size_t n, FILE *fp), (p, len, size, n, fp), 1)
BLOCK_READER(__fread_unlocked_chk, (void *p, size_t len, size_t size, size_t n, FILE *fp),
             (p, len, size, n, fp), 0)

#define CHAR_READER(name, params, args, fp, lock)               \
    READER(int, name, params, args, {                           \
        struct stdio_call c_;                                   \
        stdio_begin(&c_, fp, lock, #name);                      \
        int c = REAL(name) args;                                \
        unsigned char b_ = (unsigned char)c;                    \
        stdio_end(&c_, &b_, c == EOF ? 0 : 1, #name);           \
        return c;                                               \
    })
/* The one-character readers, each narrow one beside its wide twin (those
 * are below, "Wide stdio"): NAME, WIDE-NAME, params, args, the stream,
 * whether it locks the stream. */
#define CHAR_READERS(X)                                                 \
    X(getc, getwc, (FILE *fp), (fp), fp, 1)                             \
    X(fgetc, fgetwc, (FILE *fp), (fp), fp, 1)                           \
    X(getc_unlocked, getwc_unlocked, (FILE *fp), (fp), fp, 0)           \
    X(fgetc_unlocked, fgetwc_unlocked, (FILE *fp), (fp), fp, 0)         \
    X(getchar, getwchar, (void), (), stdin, 1)                          \
    X(getchar_unlocked, getwchar_unlocked, (void), (), stdin, 0)
#define NARROW_CHAR_READER(name, wide, params, args, fp, lock) CHAR_READER(name, params, args, fp, lock)
CHAR_READERS(NARROW_CHAR_READER)
CHAR_READER(_IO_getc, (FILE *fp), (fp), fp, 1)

/* An inline getc_unlocked calls __uflow only when the buffer is used up,
 * then takes the rest of the next fill without calling anything: a new
 * fill is as good as read. */
EXPORT int __uflow(FILE *fp)
{
    struct stdio_call c;
    struct area a;

    if (!gated() || !stdio_begin(&c, fp, 0, "__uflow"))
        return REAL(__uflow)(fp);
    main_area(fp, &a);
    int refill = a.pushed == 0 && a.point >= a.end;
    int r = REAL(__uflow)(fp);
    if (r == EOF) {
        stdio_end(&c, NULL, 0, "__uflow");
        return r;
    }
    if (!(fp->_flags & SG_IO_IN_BACKUP)) {
        const char *from = fp->_IO_read_ptr - 1, *end = fp->_IO_read_end;
        if (!refill && g_buf.fed > from)
            from = g_buf.fed;
        if (end > from && shut())
            feed(from, (size_t)(end - from), "__uflow");
        set_fed(fp, end, end);
    }
    stdio_done(&c);
    return r;
}

/* What an inline getc_unlocked took before this is shown now; the byte
 * pushed back is one the program will read again (catch_up, fed_ahead). */
EXPORT int ungetc(int c, FILE *fp)
{
    struct stdio_call s = { 0 };
    if (gated())
        stdio_begin(&s, fp, 1, "ungetc");
    int r = REAL(ungetc)(c, fp);
    stdio_done(&s);
    return r;
}

/* scanf consumes an unknown number of bytes, and may refill the buffer on
 * the way.  Within one fill the pointers say what it took.  For refills,
 * glibc counts the bytes it reads in the stream's _offset unless that is
 * _IO_pos_BAD, as it is on a pipe or socket: for the call, _offset counts
 * from 0, and is put back before anyone else can look (the call runs under
 * the stream's lock; only ftell and fseek read _offset).  The rest of the
 * old fill is copied before the call, since a refill overwrites it.  A
 * call that went through more than one refill consumed bytes nobody can
 * show the detector any more: the first message may have ended in them,
 * and the gate opens rather than risk a client that waits forever. */
struct refill_view {
    struct stdio_call call;
    int on, counted;
    off64_t offset;
    const char *point, *end;
    size_t len;
    int partial;
    char copy[4096];
};

static void refill_watch(struct refill_view *v, FILE *fp, const char *point, const char *end)
{
    v->point = point;
    v->end = end;
    v->len = end > point ? (size_t)(end - point) : 0;
    v->partial = v->len > sizeof v->copy;
    if (v->partial)
        v->len = sizeof v->copy;
    if (v->len)
        memcpy(v->copy, point, v->len);
    v->offset = fp->_offset;
    v->counted = v->offset == SG_IO_POS_BAD;
    if (v->counted)
        fp->_offset = 0;
}

/* Bytes read into the buffer during the call; -1 if unknown (end of input
 * or an error made glibc forget the count). */
static long long refill_count(struct refill_view *v, FILE *fp)
{
    off64_t now = fp->_offset;
    if (v->counted)
        fp->_offset = SG_IO_POS_BAD;
    if (now == SG_IO_POS_BAD)
        return -1;
    return (long long)(now - (v->counted ? 0 : v->offset));
}

/* Bytes the detector cannot have been shown but knows the kind of: a
 * multi-byte character that a wide stream assembled from several reads in
 * one refill (glibc keeps those bytes in its own accbuf).  Any byte of 0x80
 * and above is the same to the detector. */
static void feed_filler(long long n, const char *how)
{
    static const char high[8] = { '\x80', '\x80', '\x80', '\x80', '\x80', '\x80', '\x80', '\x80' };
    while (n > 0 && shut()) {
        size_t k = n < (long long)sizeof high ? (size_t)n : sizeof high;
        feed(high, k, how);
        n -= (long long)k;
    }
}

/* After the call: the program stands at point in the fill ending at end.
 * got > 0 bytes came in during the call: the last refill's are at the end
 * of the fill, and any before them are gone.  one_refill: the call
 * refilled at most once, so that whatever is gone was part of one
 * multi-byte character. */
static void refill_feed(struct refill_view *v, FILE *fp, const char *point, const char *end,
                        long long got, int one_refill, const char *how)
{
    const char *base = fp->_IO_buf_base;
    if (got == 0 || (got < 0 && end == v->end && point >= v->point)) {
        const char *from = g_buf.fed > v->point ? g_buf.fed : v->point;
        if (point > from && point <= end && shut())
            feed(from, (size_t)(point - from), how);
        if (point > g_buf.fed)
            set_fed(fp, point, end);
        return;
    }
    long long kept = base && end >= base ? (long long)(end - base) : 0;
    if (got > 0 && (v->partial || !base || (got > kept && !one_refill))) {
        say(3, how, ": more than one buffer fill from stdin in one call");
        open_gate(how, g_detect_bytes, 0);
        return;
    }
    if (v->len && shut())
        feed(v->copy, v->len, how);
    const char *start = base;
    if (got > kept)
        feed_filler(got - kept, how);
    else if (got > 0)
        start = end - got;
    if (start && point > start && shut())
        feed(start, (size_t)(point - start), how);
    set_fed(fp, point, end);
}

static void scan_before(struct refill_view *v, FILE *fp, const char *how)
{
    struct area a;
    v->on = gated() && stdio_begin(&v->call, fp, 1, how);
    if (!v->on)
        return;
    main_area(fp, &a);
    refill_watch(v, fp, g_buf.fed > a.point ? g_buf.fed : a.point, a.end);
    v->point = a.point;
}

/* The end of a call watched through its refills (scanf, wide stdio): what
 * it took of the area (the buffer: area(fp, ...)) is fed, and the end of
 * input if it met it (at_eof: the call says so, and the stream agrees). */
static void refills_done(struct refill_view *v, FILE *fp, void (*area)(FILE *, struct area *),
                         int at_eof, int one_refill, const char *how)
{
    struct area a;
    if (!v->on)
        return;
    long long got = refill_count(v, fp);
    area(fp, &a);
    if (shut())
        refill_feed(v, fp, a.point, a.end, got, one_refill, how);
    if (at_eof && shut() && feof_unlocked(fp))
        feed(NULL, 0, how);
    stdio_done(&v->call);
}

static void scan_after(struct refill_view *v, FILE *fp, int r, const char *how)
{
    refills_done(v, fp, main_area, r == EOF, 0, how);
}

typedef int vfscanf_fn(FILE *, const char *, va_list);

static int scan(FILE *fp, const char *how, vfscanf_fn *real, const char *fmt, va_list ap)
{
    struct refill_view v;
    scan_before(&v, fp, how);
    int r = real(fp, fmt, ap);
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

int hook_vfscanf(FILE *fp, const char *fmt, va_list ap) { return scan(fp, "vfscanf", REAL(vfscanf), fmt, ap); }
int hook_isoc99_vfscanf(FILE *fp, const char *fmt, va_list ap) { return scan(fp, "vfscanf", REAL(__isoc99_vfscanf), fmt, ap); }
int hook_vscanf(const char *fmt, va_list ap) { return scan(stdin, "vscanf", REAL(vfscanf), fmt, ap); }
int hook_isoc99_vscanf(const char *fmt, va_list ap) { return scan(stdin, "vscanf", REAL(__isoc99_vfscanf), fmt, ap); }

/* The variadic spellings, each around its va_list form (scan or wscan);
 * the trailing argument is the stream parameter with its comma ("FILE *fp,"),
 * or nothing for the stdin spellings. */
#define VA_SCAN(hook, scanner, ch, fp, how, real, ...) \
    int hook(__VA_ARGS__ const ch *fmt, ...)          \
    {                                                 \
        va_list ap;                                   \
        va_start(ap, fmt);                            \
        int r = scanner(fp, how, real, fmt, ap);      \
        va_end(ap);                                   \
        return r;                                     \
    }
VA_SCAN(hook_fscanf, scan, char, fp, "fscanf", REAL(vfscanf), FILE *fp,)
VA_SCAN(hook_isoc99_fscanf, scan, char, fp, "fscanf", REAL(__isoc99_vfscanf), FILE *fp,)

VA_SCAN(hook_scanf, scan, char, stdin, "scanf", REAL(vfscanf))
VA_SCAN(hook_isoc99_scanf, scan, char, stdin, "scanf", REAL(__isoc99_vfscanf))

/* ------------------------------------------------------------------ */
/* Read paths on stdin: scanf under C23 (glibc 2.38 and later). */

/* Every scanf call of a C23, _GNU_SOURCE or g++ build links to these on
 * glibc 2.38 and later.  Before 2.38 nothing imports them; should one be
 * called anyway, C99's conversions are the nearest. */
static vfscanf_fn *real_c23_vfscanf(void)
{
    vfscanf_fn *f = REAL(__isoc23_vfscanf);
    return f ? f : REAL(__isoc99_vfscanf);
}

EXPORT int hook_isoc23_vfscanf(FILE *, const char *, va_list) __asm__("__isoc23_vfscanf");
EXPORT int hook_isoc23_vscanf(const char *, va_list) __asm__("__isoc23_vscanf");
EXPORT int hook_isoc23_fscanf(FILE *, const char *, ...) __asm__("__isoc23_fscanf");
EXPORT int hook_isoc23_scanf(const char *, ...) __asm__("__isoc23_scanf");

int hook_isoc23_vfscanf(FILE *fp, const char *fmt, va_list ap)
{
    return scan(fp, "vfscanf", real_c23_vfscanf(), fmt, ap);
}

int hook_isoc23_vscanf(const char *fmt, va_list ap)
{
    return scan(stdin, "vscanf", real_c23_vfscanf(), fmt, ap);
}

VA_SCAN(hook_isoc23_fscanf, scan, char, fp, "fscanf", real_c23_vfscanf(), FILE *fp,)
VA_SCAN(hook_isoc23_scanf, scan, char, stdin, "scanf", real_c23_vfscanf())

/* ------------------------------------------------------------------ */
/* Read paths on stdin: wide stdio. */

/* A wide stream converts its byte buffer into wide characters, a fill at a
 * time: the bytes before _IO_read_ptr are as good as read, whether or not
 * the program has taken their wide characters yet; ungetwc works on the
 * wide buffer alone (bminor/glibc:libio/wfileops.c, _IO_wfile_underflow).
 * So a wide reader is counted in bytes, from the byte buffer's pointers,
 * with the refills of refill_view: never in wide characters, which would
 * undercount a Content-Length. */
static void byte_area(FILE *fp, struct area *a)
{
    a->point = fp->_IO_read_ptr;
    a->end = fp->_IO_read_end;
    a->pushed = 0;
}

static void wide_begin(struct refill_view *v, FILE *fp, int lock, const char *how)
{
    struct area a;
    v->on = is_stdin_file(fp) && !in_vfork_child();
    if (!v->on)
        return;
    if (lock)
        flockfile(fp);
    v->call.fp = fp;
    v->call.locked = lock;
    byte_area(fp, &a);
    catch_up_in(fp, &a, how);
    refill_watch(v, fp, g_buf.fed > a.point ? g_buf.fed : a.point, a.end);
    v->point = a.point;
}

static void wide_end(struct refill_view *v, FILE *fp, int none, int one_refill, const char *how)
{
    refills_done(v, fp, byte_area, none, one_refill, how);
}

#define WIDE_CHAR_READER(name, params, args, fp, lock)  \
    READER(wint_t, name, params, args, {                \
        struct refill_view v_;                          \
        wide_begin(&v_, fp, lock, #name);               \
        wint_t c = REAL(name) args;                     \
        wide_end(&v_, fp, c == WEOF, 1, #name);            \
        return c;                                       \
    })
#define WIDE_TWIN_READER(name, wide, params, args, fp, lock) WIDE_CHAR_READER(wide, params, args, fp, lock)
CHAR_READERS(WIDE_TWIN_READER)
WIDE_CHAR_READER(__wuflow, (FILE *fp), (fp), fp, 0)

/* fgetws reads on through as many refills as its line needs, and only the
 * last one would stay in sight.  While the gate is shut, stdin's line is
 * read here one wide character at a time, as glibc's fgetws does it
 * (bminor/glibc:libio/iofgetws.c and _IO_getwline: the same characters,
 * the same result, error flag and errno), so that every refill is seen. */
static wchar_t *wide_line(wchar_t *s, int n, FILE *fp, int lock, const char *how)
{
    int count = 0;
    wchar_t *r = s;

    if (lock)
        flockfile(fp);
    int old_error = fp->_flags & _IO_ERR_SEEN;
    fp->_flags &= ~_IO_ERR_SEEN;
    while (count < n - 1) {
        struct refill_view v;
        wide_begin(&v, fp, 0, how);
        wint_t c = REAL(fgetwc_unlocked)(fp);
        int saved = errno;
        wide_end(&v, fp, c == WEOF, 1, how);
        errno = saved;
        if (c == WEOF)
            break;
        s[count++] = (wchar_t)c;
        if (c == L'\n')
            break;
    }
    if (count == 0 || ((fp->_flags & _IO_ERR_SEEN) && errno != EAGAIN))
        r = NULL;
    else
        s[count] = L'\0';
    fp->_flags |= old_error;
    if (lock)
        funlockfile(fp);
    return r;
}

static int wide_line_watched(FILE *fp, int n)
{
    return n > 1 && is_stdin_file(fp) && !in_vfork_child();
}

READER(wchar_t *, fgetws, (wchar_t *s, int n, FILE *fp), (s, n, fp), {
    if (wide_line_watched(fp, n))
        return wide_line(s, n, fp, 1, "fgetws");
    return REAL(fgetws)(s, n, fp);
})

READER(wchar_t *, fgetws_unlocked, (wchar_t *s, int n, FILE *fp), (s, n, fp), {
    if (wide_line_watched(fp, n))
        return wide_line(s, n, fp, 0, "fgetws_unlocked");
    return REAL(fgetws_unlocked)(s, n, fp);
})

/* An overflowing call goes to the real function, which stops the program. */
READER(wchar_t *, __fgetws_chk, (wchar_t *s, size_t size, int n, FILE *fp), (s, size, n, fp), {
    if ((size_t)n <= size && wide_line_watched(fp, n))
        return wide_line(s, n, fp, 1, "__fgetws_chk");
    return REAL(__fgetws_chk)(s, size, n, fp);
})

READER(wchar_t *, __fgetws_unlocked_chk, (wchar_t *s, size_t size, int n, FILE *fp),
       (s, size, n, fp), {
    if ((size_t)n <= size && wide_line_watched(fp, n))
        return wide_line(s, n, fp, 0, "__fgetws_unlocked_chk");
    return REAL(__fgetws_unlocked_chk)(s, size, n, fp);
})

typedef int vfwscanf_fn(FILE *, const wchar_t *, va_list);

static int wscan(FILE *fp, const char *how, vfwscanf_fn *real, const wchar_t *fmt, va_list ap)
{
    struct refill_view v;
    wide_begin(&v, fp, 1, how);
    int r = real(fp, fmt, ap);
    wide_end(&v, fp, r == EOF, 0, how);
    return r;
}

static vfwscanf_fn *real_c23_vfwscanf(void)
{
    vfwscanf_fn *f = REAL(__isoc23_vfwscanf);
    return f ? f : REAL(__isoc99_vfwscanf);
}

/* wchar.h may rename these to their __isoc99_ or __isoc23_ forms: the
 * symbols are named explicitly. */
EXPORT int hook_vfwscanf(FILE *, const wchar_t *, va_list) __asm__("vfwscanf");
EXPORT int hook_isoc99_vfwscanf(FILE *, const wchar_t *, va_list) __asm__("__isoc99_vfwscanf");
EXPORT int hook_isoc23_vfwscanf(FILE *, const wchar_t *, va_list) __asm__("__isoc23_vfwscanf");
EXPORT int hook_vwscanf(const wchar_t *, va_list) __asm__("vwscanf");
EXPORT int hook_isoc99_vwscanf(const wchar_t *, va_list) __asm__("__isoc99_vwscanf");
EXPORT int hook_isoc23_vwscanf(const wchar_t *, va_list) __asm__("__isoc23_vwscanf");
EXPORT int hook_fwscanf(FILE *, const wchar_t *, ...) __asm__("fwscanf");
EXPORT int hook_isoc99_fwscanf(FILE *, const wchar_t *, ...) __asm__("__isoc99_fwscanf");
EXPORT int hook_isoc23_fwscanf(FILE *, const wchar_t *, ...) __asm__("__isoc23_fwscanf");
EXPORT int hook_wscanf(const wchar_t *, ...) __asm__("wscanf");
EXPORT int hook_isoc99_wscanf(const wchar_t *, ...) __asm__("__isoc99_wscanf");
EXPORT int hook_isoc23_wscanf(const wchar_t *, ...) __asm__("__isoc23_wscanf");

int hook_vfwscanf(FILE *fp, const wchar_t *fmt, va_list ap)
{
    return wscan(fp, "vfwscanf", REAL(vfwscanf), fmt, ap);
}

int hook_isoc99_vfwscanf(FILE *fp, const wchar_t *fmt, va_list ap)
{
    return wscan(fp, "vfwscanf", REAL(__isoc99_vfwscanf), fmt, ap);
}

int hook_isoc23_vfwscanf(FILE *fp, const wchar_t *fmt, va_list ap)
{
    return wscan(fp, "vfwscanf", real_c23_vfwscanf(), fmt, ap);
}

int hook_vwscanf(const wchar_t *fmt, va_list ap)
{
    return wscan(stdin, "vwscanf", REAL(vfwscanf), fmt, ap);
}

int hook_isoc99_vwscanf(const wchar_t *fmt, va_list ap)
{
    return wscan(stdin, "vwscanf", REAL(__isoc99_vfwscanf), fmt, ap);
}

int hook_isoc23_vwscanf(const wchar_t *fmt, va_list ap)
{
    return wscan(stdin, "vwscanf", real_c23_vfwscanf(), fmt, ap);
}

VA_SCAN(hook_fwscanf, wscan, wchar_t, fp, "fwscanf", REAL(vfwscanf), FILE *fp,)
VA_SCAN(hook_isoc99_fwscanf, wscan, wchar_t, fp, "fwscanf", REAL(__isoc99_vfwscanf), FILE *fp,)
VA_SCAN(hook_isoc23_fwscanf, wscan, wchar_t, fp, "fwscanf", real_c23_vfwscanf(), FILE *fp,)

VA_SCAN(hook_wscanf, wscan, wchar_t, stdin, "wscanf", REAL(vfwscanf))
VA_SCAN(hook_isoc99_wscanf, wscan, wchar_t, stdin, "wscanf", REAL(__isoc99_vfwscanf))
VA_SCAN(hook_isoc23_wscanf, wscan, wchar_t, stdin, "wscanf", real_c23_vfwscanf())
