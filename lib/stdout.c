/* SPDX-License-Identifier: MIT */
/* lib/stdout.c - C stdio on the wire: a stream's buffer goes through the
 * guard where glibc would write it. */

#include "internal.h"

#include <limits.h>
#include <stdint.h>

/* ------------------------------------------------------------------ */
/* C stdio after the gate.
 *
 * glibc writes a stream's buffer with its own internal write, which no
 * interposer sees: printf's bytes would reach the wire past the guard.  So
 * every narrow output function is interposed (printf and fprintf in all
 * their names, puts, fputs, fwrite, putc and its kin, __overflow, which
 * the inline putc calls when the buffer is full, fflush, fclose), and for a
 * stream on the wire (stdout, or any stream on a copy of it) it does what
 * glibc would, except the write: bytes that fit go into the buffer; where
 * glibc would write (the buffer full, a newline on a line-buffered stream,
 * every call on an unbuffered one, a flush, fclose, exit) the buffer and
 * the new bytes go through the guard together, and the buffer is empty
 * again.  printf's output is formatted first (vsnprintf: on the stack, or
 * mapped if longer).  Streams elsewhere, wide streams, and everything
 * before the gate (the fail-safe's: the diversion catches it) are the real
 * functions' alone.  These are not async-signal-safe, no more than the
 * functions they stand for; they take the stream's lock as glibc does. */

/* Is fp a narrow stream on the wire?  (In a vfork child too: the stream
 * is the parent's memory there, as it is for glibc's own functions; what
 * the guard is handed there, guard_call classifies without writing shared
 * state.) */
static int wire_stream(FILE *fp)
{
    return fp && guarding() && fp->_mode <= 0 && guard_fd(fp->_fileno) && stdio_flags_known();
}

/* Before the gate glibc writes a stream on the diversion with its own
 * write, unseen: when a call may make it write (n more bytes than its
 * buffer holds; a stream not fully buffered; SIZE_MAX: unknown), the
 * helper first, if it is lazy still (lib/helper.c).  Bytes that stay in
 * the buffer leave through the hold (stdout_through_hold: fflush, the gate,
 * exit), straight to stderr where it takes them. */
#define STDIO_ROOM_UNSET 1024       /* a buffer not made yet: the least glibc makes */

static void carry_stdio(FILE *fp, size_t n)
{
    if (!fp || !shut() || !is_diversion(fp->_fileno))
        return;
    size_t held = fp->_IO_write_ptr > fp->_IO_write_base ?
                  (size_t)(fp->_IO_write_ptr - fp->_IO_write_base) : 0;
    size_t room = fp->_IO_buf_base ? (size_t)(fp->_IO_buf_end - fp->_IO_buf_base) : STDIO_ROOM_UNSET;
    if (n == SIZE_MAX || !stdio_flags_known() ||
        (fp->_flags & (SG_IO_UNBUFFERED | SG_IO_LINE_BUF)) || fp != stdout || held + n >= room)
        drain_now("C stdio");
}

/* A string's length, only where on_wire_n looks at it (a process that
 * merely loaded the library binds no strlen for it). */
#define LEN_IF_LAZY(s, extra) (LOAD(g_drain_in) >= 0 ? strlen(s) + (extra) : 0)

/* The same, for a call that writes n bytes to fp. */
static int on_wire_n(FILE *fp, size_t n)
{
    if (__builtin_expect(LOAD(g_drain_in) >= 0, 0))
        carry_stdio(fp, n);
    return wire_stream(fp);
}

static int on_wire(FILE *fp)
{
    return on_wire_n(fp, SIZE_MAX);
}

/* The same, for a flush or a close: it writes only what fp holds. */
static int flushed_on_wire(FILE *fp)
{
    if (fp && fp->_IO_write_ptr > fp->_IO_write_base)
        return on_wire(fp);
    return wire_stream(fp);
}

/* What fp holds, then p[0..n): through the guard, all of it.  The buffer
 * is empty after, as after glibc's own write.  0, or EOF (the error flag
 * set, errno the wire's). */
static int push(FILE *fp, const char *p, size_t n, const char *how)
{
    char *base = fp->_IO_write_base, *ptr = fp->_IO_write_ptr;
    size_t held = base && ptr > base ? (size_t)(ptr - base) : 0;
    struct iovec v[2];
    int cnt = 0;
    if (held)
        v[cnt++] = (struct iovec){ base, held };
    if (n)
        v[cnt++] = (struct iovec){ (void *)p, n };
    if (cnt == 0)
        return 0;
    ssize_t r = guard_write_all(fp->_fileno, v, cnt, how, 0);
    if (held)
        fp->_IO_write_ptr = base;
    if (r != (ssize_t)(held + n)) {
        fp->_flags |= _IO_ERR_SEEN;
        return EOF;
    }
    return 0;
}

/* p[0..n) written to fp, the stream locked by the caller. */
static int stream_put(FILE *fp, const char *p, size_t n, const char *how)
{
    if (!fp->_IO_write_base || !(fp->_flags & SG_IO_CURRENTLY_PUTTING))
        (void)REAL(__overflow)(fp, EOF);    /* sets the buffer up; writes nothing */
    if (!fp->_IO_write_base || (fp->_flags & SG_IO_UNBUFFERED))
        return push(fp, p, n, how);
    if (fp->_flags & SG_IO_LINE_BUF) {
        size_t k = n;           /* through the last newline */
        while (k && p[k - 1] != '\n')
            k--;
        if (k) {
            if (push(fp, p, k, how) != 0)
                return EOF;
            p += k;
            n -= k;
        }
    }
    if (n < (size_t)(fp->_IO_buf_end - fp->_IO_write_ptr)) {
        memcpy(fp->_IO_write_ptr, p, n);
        fp->_IO_write_ptr += n;
        return 0;
    }
    return push(fp, p, n, how);
}

static int locked_put(FILE *fp, const char *p, size_t n, const char *how)
{
    flockfile(fp);
    int r = stream_put(fp, p, n, how);
    funlockfile(fp);
    return r;
}

/* printf's bytes, formatted first; the count, or -1. */
#define FORMAT_ON_STACK 1024

static int format_put(FILE *fp, int fd, const char *fmt, va_list ap, const char *how)
{
    char small[FORMAT_ON_STACK], *buf = small;
    size_t mapped = 0;
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n >= (int)sizeof small) {
        mapped = (size_t)n + 1;
        buf = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (buf == MAP_FAILED) {
            va_end(again);
            if (fp)
                fp->_flags |= _IO_ERR_SEEN;
            errno = ENOMEM;
            return -1;
        }
        (void)vsnprintf(buf, mapped, fmt, again);
    }
    va_end(again);
    int r = 0;
    if (n > 0 && fp) {
        r = locked_put(fp, buf, (size_t)n, how);
    } else if (n > 0) {
        struct iovec v = { buf, (size_t)n };
        r = guard_write_all(fd, &v, 1, how, 0) != n ? EOF : 0;
    }
    if (mapped)
        munmap(buf, mapped);
    return n < 0 || r != 0 ? -1 : n;
}

/* ---- The interposers ---- */

/* printf's size, before the gate only (on_wire_n), for a lazy helper. */
static size_t formatted_size(const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = LOAD(g_drain_in) >= 0 && shut() ? vsnprintf(NULL, 0, fmt, again) : -1;
    va_end(again);
    return n < 0 ? SIZE_MAX : (size_t)n;
}

#define VPRINTER(name, params, fp_, real_args)                                  \
    EXPORT int name params                                                      \
    {                                                                           \
        if (!on_wire_n(fp_, formatted_size(fmt, ap)))                           \
            return REAL(name) real_args;                                        \
        return format_put(fp_, -1, fmt, ap, #name);                             \
    }
VPRINTER(vprintf, (const char *fmt, va_list ap), stdout, (fmt, ap))
VPRINTER(vfprintf, (FILE *fp, const char *fmt, va_list ap), fp, (fp, fmt, ap))
VPRINTER(__vprintf_chk, (int flag, const char *fmt, va_list ap), stdout, (flag, fmt, ap))
VPRINTER(__vfprintf_chk, (FILE *fp, int flag, const char *fmt, va_list ap), fp, (fp, flag, fmt, ap))

#define PRINTER(name, params, vname, vargs)                                     \
    EXPORT int name params                                                      \
    {                                                                           \
        va_list ap;                                                             \
        va_start(ap, fmt);                                                      \
        int r = vname vargs;                                                    \
        va_end(ap);                                                             \
        return r;                                                               \
    }
PRINTER(printf, (const char *fmt, ...), vprintf, (fmt, ap))
PRINTER(fprintf, (FILE *fp, const char *fmt, ...), vfprintf, (fp, fmt, ap))
PRINTER(__printf_chk, (int flag, const char *fmt, ...), __vprintf_chk, (flag, fmt, ap))
PRINTER(__fprintf_chk, (FILE *fp, int flag, const char *fmt, ...), __vfprintf_chk, (fp, flag, fmt, ap))

/* dprintf writes through a stream of its own on fd, with glibc's internal
 * write: for a descriptor on the wire, the guard. */
EXPORT int vdprintf(int fd, const char *fmt, va_list ap)
{
    if (!guarding() || !guard_fd(fd))
        return REAL(vdprintf)(fd, fmt, ap);
    return format_put(NULL, fd, fmt, ap, "vdprintf");
}

EXPORT int __vdprintf_chk(int fd, int flag, const char *fmt, va_list ap)
{
    if (!guarding() || !guard_fd(fd))
        return REAL(__vdprintf_chk)(fd, flag, fmt, ap);
    return format_put(NULL, fd, fmt, ap, "vdprintf");
}

PRINTER(dprintf, (int fd, const char *fmt, ...), vdprintf, (fd, fmt, ap))
PRINTER(__dprintf_chk, (int fd, int flag, const char *fmt, ...), __vdprintf_chk, (fd, flag, fmt, ap))

EXPORT int fputs(const char *s, FILE *fp)
{
    if (!on_wire_n(fp, LEN_IF_LAZY(s, 0)))
        return REAL(fputs)(s, fp);
    return locked_put(fp, s, strlen(s), "fputs") ? EOF : 1;
}

EXPORT int fputs_unlocked(const char *s, FILE *fp)
{
    if (!on_wire_n(fp, LEN_IF_LAZY(s, 0)))
        return REAL(fputs_unlocked)(s, fp);
    return stream_put(fp, s, strlen(s), "fputs") ? EOF : 1;
}

EXPORT int puts(const char *s)
{
    if (!on_wire_n(stdout, LEN_IF_LAZY(s, 1)))
        return REAL(puts)(s);
    size_t n = strlen(s);
    flockfile(stdout);
    int r = stream_put(stdout, s, n, "puts") || stream_put(stdout, "\n", 1, "puts");
    funlockfile(stdout);
    return r ? EOF : n + 1 > INT_MAX ? INT_MAX : (int)(n + 1);
}

/* fwrite's bytes, for on_wire_n (SIZE_MAX if they overflow). */
static size_t fwrite_bytes(size_t size, size_t nmemb)
{
    return nmemb > SIZE_MAX / (size ? size : 1) ? SIZE_MAX : size * nmemb;
}

EXPORT size_t fwrite(const void *p, size_t size, size_t nmemb, FILE *fp)
{
    if (!on_wire_n(fp, fwrite_bytes(size, nmemb)) ||
        size == 0 || nmemb == 0 || nmemb > SIZE_MAX / size)
        return REAL(fwrite)(p, size, nmemb, fp);
    return locked_put(fp, p, size * nmemb, "fwrite") ? 0 : nmemb;
}

EXPORT size_t fwrite_unlocked(const void *p, size_t size, size_t nmemb, FILE *fp)
{
    if (!on_wire_n(fp, fwrite_bytes(size, nmemb)) ||
        size == 0 || nmemb == 0 || nmemb > SIZE_MAX / size)
        return REAL(fwrite_unlocked)(p, size, nmemb, fp);
    return stream_put(fp, p, size * nmemb, "fwrite") ? 0 : nmemb;
}

#define PUTTER_C_FP(name, locked)                                               \
    EXPORT int name(int c, FILE *fp)                                            \
    {                                                                           \
        if (!on_wire_n(fp, 1))                                                  \
            return REAL(name)(c, fp);                                           \
        char ch = (char)c;                                                      \
        int r = locked ? locked_put(fp, &ch, 1, #name) : stream_put(fp, &ch, 1, #name); \
        return r ? EOF : (unsigned char)ch;                                     \
    }
PUTTER_C_FP(fputc, 1)
PUTTER_C_FP(putc, 1)
PUTTER_C_FP(_IO_putc, 1)
PUTTER_C_FP(fputc_unlocked, 0)
PUTTER_C_FP(putc_unlocked, 0)

EXPORT int putchar(int c)
{
    return on_wire_n(stdout, 1) ? putc(c, stdout) : REAL(putchar)(c);
}

EXPORT int putchar_unlocked(int c)
{
    return on_wire_n(stdout, 1) ? putc_unlocked(c, stdout) : REAL(putchar_unlocked)(c);
}

/* The inline putc's way out when the buffer is full (or the stream is
 * line-buffered or unbuffered: then on every byte).  EOF: a flush. */
EXPORT int __overflow(FILE *fp, int c)
{
    if (!on_wire(fp))
        return REAL(__overflow)(fp, c);
    if (c == EOF)
        return push(fp, NULL, 0, "__overflow");
    char ch = (char)c;
    return stream_put(fp, &ch, 1, "putc") ? EOF : (unsigned char)ch;
}

/* ---- Flushing and closing ---- */

/* stdout's buffer through the guard (exit, fflush(NULL)); not if another
 * thread is writing it, or this one is (a signal handler inside stdio). */
void stdout_through_guard(const char *how)
{
    FILE *fp = stdout;
    int tries = 0;
    if (!on_wire(fp) || stdout_locked_here())
        return;
    while (ftrylockfile(fp) != 0)
        if (++tries == 100)
            return;
        else
            sched_yield();
    (void)push(fp, NULL, 0, how);
    funlockfile(fp);
}

static int flush_on_wire(FILE *fp, int lock)
{
    if (lock)
        flockfile(fp);
    int r = push(fp, NULL, 0, "fflush");
    if (lock)
        funlockfile(fp);
    return r;
}

/* A stream on the wire is flushed by the guard: glibc's own flush would
 * find its buffer empty and, with nothing read ahead to give back (as on
 * a stream only written: stdout), have nothing to do; it is not called. */
EXPORT int fflush(FILE *fp)
{
    if (likely(!minding()))
        return REAL(fflush)(fp);
    if (fp == NULL || fp == stdout)
        stdout_through_hold("fflush");
    if (fp == NULL)
        stdout_through_guard("fflush");
    else if (flushed_on_wire(fp) && fp->_IO_read_ptr == fp->_IO_read_end)
        return flush_on_wire(fp, 1);
    else if (flushed_on_wire(fp) && flush_on_wire(fp, 1) != 0)
        return EOF;
    return REAL(fflush)(fp);
}

EXPORT int fflush_unlocked(FILE *fp)
{
    if (flushed_on_wire(fp) && fp->_IO_read_ptr == fp->_IO_read_end)
        return flush_on_wire(fp, 0);
    if (flushed_on_wire(fp) && flush_on_wire(fp, 0) != 0)
        return EOF;
    return REAL(fflush_unlocked)(fp);
}

/* glibc closes the descriptor with its own close: the bookkeeping is told. */
EXPORT int fclose(FILE *fp)
{
    if (!flushed_on_wire(fp))
        return REAL(fclose)(fp);
    int fd = fp->_fileno, flushed = flush_on_wire(fp, 1);
    int r = REAL(fclose)(fp);
    fd_closed(fd);
    return flushed != 0 ? EOF : r;
}
