/* SPDX-License-Identifier: MIT */
/* inspect.h - what stdiogate can tell about a program before it runs it.
 *
 * sg_inspect() looks at the file a command name runs (following a #!
 * interpreter one level) and reports each reason the preloaded library
 * cannot guard it, or must not be loaded into it.  The wrapper asks through
 * stdiogate-check --inspect; --check reports the same findings.
 *
 * sg_elf_interp() is also used by the library's exec path, in vfork children
 * and signal handlers: it is header-only, uses pread on a descriptor the
 * caller opened, and keeps nothing but small buffers on the stack.
 */
#ifndef STDIOGATE_INSPECT_H
#define STDIOGATE_INSPECT_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Findings, one bit each. */
enum sg_finding {
    SG_STATIC = 1u << 0,        /* no PT_INTERP: the library never loads */
    SG_GO = 1u << 1,            /* Go: raw system calls, the library steps aside */
    SG_BUN = 1u << 2,           /* Bun: raw system calls on stdio */
    SG_FOREIGN_LOADER = 1u << 3, /* an ELF interpreter that is not glibc's (musl...) */
    SG_SETUID = 1u << 4,        /* secure execution: ld.so drops LD_PRELOAD */
    SG_SETGID = 1u << 5,
    SG_CAPABILITIES = 1u << 6,  /* file capabilities: secure execution too */
    SG_DOCKER = 1u << 7,        /* a container CLI: the server runs elsewhere */
};

#define SG_PATH_SIZE 4096

struct sg_inspection {
    unsigned findings;
    char program[SG_PATH_SIZE]; /* the file inspected: COMMAND or its #! interpreter */
    char script[SG_PATH_SIZE];  /* COMMAND when it is a #! script, else "" */
    char interp[256];           /* the program's ELF interpreter, "" if none */
};

/* Inspects the file PATH would run (PATH already resolved, as execvp
 * would).  Returns 0, or -1 if PATH cannot be read (no findings then). */
int sg_inspect(const char *path, struct sg_inspection *r);

/* The warning for one finding of r, without a prefix, into buf. */
void sg_warning(const struct sg_inspection *r, unsigned finding, char *buf, size_t size);

/* Must the library stay out of this program (its loader cannot resolve it)? */
static inline int sg_drop_library(const struct sg_inspection *r)
{
    return (r->findings & SG_FOREIGN_LOADER) != 0;
}

/* ------------------------------------------------------------------ */
/* The ELF interpreter, shared with the library. */

/* Is INTERP a loader that can take a glibc-built preload?  glibc's loaders
 * are ld-linux*.so.N, ld64.so.N and ld.so.1 (ppc, s390, mips); musl's
 * ld-musl-ARCH.so.1, uClibc's, bionic's linker are not. */
static inline int sg_interp_is_glibc(const char *interp)
{
    if (!interp[0])
        return 1;   /* unknown: assume the usual */
    const char *base = strrchr(interp, '/');
    base = base ? base + 1 : interp;
    return strncmp(base, "ld-linux", 8) == 0 || strncmp(base, "ld64.so.", 8) == 0 ||
           strcmp(base, "ld.so.1") == 0;
}

static inline uint64_t sg_elf_word(const unsigned char *p, int size, int big)
{
    uint64_t v = 0;
    for (int i = 0; i < size; i++)
        v = (v << 8) | p[big ? i : size - 1 - i];
    return v;
}

/* Reads the ELF header of fd.  Returns 1 for an ELF file (with its class
 * and byte order), 0 otherwise. */
struct sg_elf {
    int wide, big;              /* ELFCLASS64, ELFDATA2MSB */
    unsigned machine;           /* e_machine */
    uint64_t phoff, shoff;
    unsigned phentsize, phnum, shentsize, shnum, shstrndx;
};

static inline int sg_elf_header(int fd, struct sg_elf *e)
{
    unsigned char h[64];
    ssize_t n = pread(fd, h, sizeof h, 0);
    if (n < 52 || memcmp(h, ELFMAG, SELFMAG) != 0)
        return 0;
    if ((h[EI_CLASS] != ELFCLASS32 && h[EI_CLASS] != ELFCLASS64) ||
        (h[EI_DATA] != ELFDATA2LSB && h[EI_DATA] != ELFDATA2MSB))
        return 0;
    e->wide = h[EI_CLASS] == ELFCLASS64;
    e->big = h[EI_DATA] == ELFDATA2MSB;
    if (e->wide && n < 64)
        return 0;
    /* where each field sits in a 32-bit and a 64-bit header */
    static const unsigned char at[2][7] = { { 28, 32, 42, 44, 46, 48, 50 },
                                            { 32, 40, 54, 56, 58, 60, 62 } };
    const unsigned char *o = at[e->wide ? 1 : 0];
    int w = e->wide ? 8 : 4;
    int b = e->big;
    e->machine = (unsigned)sg_elf_word(h + 18, 2, b);
    e->phoff = sg_elf_word(h + o[0], w, b);
    e->shoff = sg_elf_word(h + o[1], w, b);
    e->phentsize = (unsigned)sg_elf_word(h + o[2], 2, b);
    e->phnum = (unsigned)sg_elf_word(h + o[3], 2, b);
    e->shentsize = (unsigned)sg_elf_word(h + o[4], 2, b);
    e->shnum = (unsigned)sg_elf_word(h + o[5], 2, b);
    e->shstrndx = (unsigned)sg_elf_word(h + o[6], 2, b);
    return 1;
}

/* Program header i: type, file offset, file size.  0 if unreadable. */
static inline int sg_elf_phdr(int fd, const struct sg_elf *e, unsigned i, uint32_t *type,
                              uint64_t *offset, uint64_t *size)
{
    unsigned char ph[56];
    unsigned want = e->wide ? 56 : 32;
    if (e->phentsize < want || e->phoff > (1ULL << 40))
        return 0;
    if (pread(fd, ph, want, (off_t)(e->phoff + (uint64_t)i * e->phentsize)) != (ssize_t)want)
        return 0;
    *type = (uint32_t)sg_elf_word(ph, 4, e->big);
    *offset = sg_elf_word(ph + (e->wide ? 8 : 4), e->wide ? 8 : 4, e->big);
    *size = sg_elf_word(ph + (e->wide ? 32 : 16), e->wide ? 8 : 4, e->big);
    return 1;
}

/* The ELF interpreter of fd into out: -1 not ELF or unreadable headers,
 * 0 no PT_INTERP (static), 1 found (out is "" if its name is unreadable). */
static inline int sg_elf_interp(int fd, char *out, size_t size)
{
    struct sg_elf e;
    uint32_t type;
    uint64_t off, len;
    out[0] = '\0';
    if (!sg_elf_header(fd, &e) || e.phnum == 0 || e.phnum > 4096)
        return -1;
    for (unsigned i = 0; i < e.phnum; i++) {
        if (!sg_elf_phdr(fd, &e, i, &type, &off, &len))
            return -1;
        if (type != PT_INTERP)
            continue;
        if (len == 0 || len > size || off > (1ULL << 40) ||
            pread(fd, out, (size_t)len, (off_t)off) != (ssize_t)len || out[len - 1] != '\0')
            out[0] = '\0';   /* an interpreter, name unknown */
        return 1;
    }
    return 0;
}

/* Can this machine run the ELF file (the kernel would not answer
 * ENOEXEC)?  Unknown architectures are taken as yes. */
static inline int sg_elf_native(const struct sg_elf *e)
{
#if defined(__x86_64__) && !defined(__ILP32__)
    return e->wide && e->machine == EM_X86_64;
#elif defined(__aarch64__)
    return e->wide && e->machine == EM_AARCH64;
#else
    (void)e;
    return 1;
#endif
}

/* Does one of fd's PT_NOTE segments hold a note named "Go" of type 4 (the
 * build ID the Go linker writes)?  Reads at most the first 512 bytes of
 * each segment, on the stack: the library's exec path calls this. */
static inline int sg_elf_go_note(int fd, const struct sg_elf *e)
{
    unsigned char buf[512];
    uint32_t type;
    uint64_t off, len;
    for (unsigned i = 0; i < e->phnum && i < 4096; i++) {
        if (!sg_elf_phdr(fd, e, i, &type, &off, &len) || type != PT_NOTE || off > (1ULL << 40))
            continue;
        ssize_t n = pread(fd, buf, len < sizeof buf ? (size_t)len : sizeof buf, (off_t)off);
        const unsigned char *p = buf;
        size_t left = n > 0 ? (size_t)n : 0;
        while (left >= 12) {
            uint64_t namesz = sg_elf_word(p, 4, e->big), descsz = sg_elf_word(p + 4, 4, e->big);
            uint64_t size = 12 + ((namesz + 3) & ~3ULL) + ((descsz + 3) & ~3ULL);
            if (size > left)
                break;
            if (sg_elf_word(p + 8, 4, e->big) == 4 && (namesz == 3 || namesz == 4) &&
                memcmp(p + 12, "Go", 3) == 0)
                return 1;
            p += size;
            left -= (size_t)size;
        }
    }
    return 0;
}

/* Is path a container CLI (the server it starts runs elsewhere)? */
static inline int sg_is_container_cli(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strcmp(base, "docker") == 0 || strcmp(base, "podman") == 0 ||
           strcmp(base, "nerdctl") == 0;
}

/* Secure execution for the file open on fd: SG_SETUID (set-user-ID to
 * someone else), SG_SETGID (to another group), SG_CAPABILITIES (file
 * capabilities, for anyone but root), or 0.  System calls, not libc's
 * wrappers: in the library, three more imports would cost every process
 * that loads it a symbol lookup each. */
static inline unsigned sg_secure_finding(int fd)
{
    struct stat st;
    uid_t uid = (uid_t)syscall(SYS_getuid);
    if (syscall(SYS_fstat, fd, &st) != 0)
        return 0;
    if ((st.st_mode & S_ISUID) && st.st_uid != uid)
        return SG_SETUID;
    if ((st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP) && st.st_gid != (gid_t)syscall(SYS_getgid))
        return SG_SETGID;
    if (uid != 0 && syscall(SYS_fgetxattr, fd, "security.capability", NULL, 0) > 0)
        return SG_CAPABILITIES;
    return 0;
}

/* Section names that tell a runtime, one bit each. */
enum { SG_SEC_BUN = 1, SG_SEC_BUN_BUILTINS = 2, SG_SEC_GO_BUILDINFO = 4 };

/* Which of the names above fd's section name table holds, as whole
 * names.  (A name a linker merged into the tail of a longer one is not
 * seen: none of these is.)  Reads the table in small pieces, on the
 * stack. */
static inline unsigned sg_elf_section_names(int fd, const struct sg_elf *e)
{
    static const char names[][sizeof ".go.buildinfo"] = { ".bun", ".bun_builtins", ".go.buildinfo" };
    unsigned char sh[64], buf[256];
    char word[16];
    size_t wlen = 0;
    unsigned want = e->wide ? 64 : 40, found = 0;
    if (e->shnum == 0 || e->shnum > 65535 || e->shentsize < want || e->shstrndx >= e->shnum ||
        e->shoff > (1ULL << 40))
        return 0;
    if (pread(fd, sh, want, (off_t)(e->shoff + (uint64_t)e->shstrndx * e->shentsize)) != (ssize_t)want)
        return 0;
    uint64_t at = sg_elf_word(sh + (e->wide ? 24 : 16), e->wide ? 8 : 4, e->big);
    uint64_t size = sg_elf_word(sh + (e->wide ? 32 : 20), e->wide ? 8 : 4, e->big);
    if (size > 65536 || at > (1ULL << 40))
        return 0;
    for (uint64_t done = 0; done < size;) {
        ssize_t n = pread(fd, buf, size - done < sizeof buf ? (size_t)(size - done) : sizeof buf,
                          (off_t)(at + done));
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] != '\0') {
                wlen += wlen < sizeof word;
                if (wlen < sizeof word)
                    word[wlen - 1] = (char)buf[i];
                continue;
            }
            for (unsigned k = 0; k < sizeof names / sizeof names[0]; k++)
                if (wlen < sizeof word && wlen == strlen(names[k]) && memcmp(word, names[k], wlen) == 0)
                    found |= 1u << k;
            wlen = 0;
        }
        done += (uint64_t)n;
    }
    return found;
}

#endif
