/* SPDX-License-Identifier: MIT */
/* check.c - stdiogate-check, installed beside libstdiogate.so.
 *
 *   stdiogate-check --inspect PATH
 *   stdiogate-check --wrapper PID VERBOSITY LIBRARY PATH [--strict]
 *   stdiogate-check --environment PID
 *   stdiogate-check --check [--wrapper-path WRAPPER] [OPTION]... [--] COMMAND [ARG]...
 *
 * --inspect looks at PATH, the file a COMMAND resolved to.  It prints at
 * most one line on stderr, "stdiogate: warning: PATH ...", saying why the
 * library cannot guard that program, and says by its exit status what to do:
 *
 *   0  nothing found: preload the library
 *   1  warned: preload the library anyway (it steps aside, or is dropped by
 *      the dynamic linker, and still serves the programs PATH starts)
 *   2  warned: do not preload the library (the program's loader cannot
 *      resolve it, so it would not start)
 *   125 bad usage
 *
 * --wrapper is what the wrapper (process PID, given -v VERBOSITY times) runs
 * once, in $(...), before it execs COMMAND: the same inspection and warning,
 * then, on stdout, the shell commands that set COMMAND's environment, for
 * the wrapper to eval: every variable the wrapper's shell set, exported or
 * dropped is put back as the caller gave it (read from /proc/PID/environ:
 * dash exports PWD, and a caller's exported variable named like one of the
 * wrapper's would carry the wrapper's value), then LD_PRELOAD,
 * PYTHONUNBUFFERED, PERL5OPT, RUBYOPT, STDIOGATE_WIRE and STDIOGATE_DEBUG are
 * set, unless the library must stay out.  It never writes anything else to stdout.
 *
 * --check is `stdiogate --check` (the wrapper passes its own path): it plays
 * the client to the stdio server COMMAND and tells whether the server's
 * stdout carries anything but protocol, when, and which configuration keeps
 * it off the wire.  The server runs up to three times: unwrapped, under the
 * default gate (WRAPPER COMMAND), and under WRAPPER --strict when
 * stdiogate-filter is installed beside this program.  Each run drives a real
 * session, then lingers for output on timers, closes stdin and waits for
 * the exit; the server runs in its own process group, and whatever it
 * leaves behind is killed.  What is protocol on stdout is decided by the
 * strict filter's own stream classifier (detect.h); the messages it passes
 * are then read for their ids.  The report (text, or JSON with --json:
 * docs/check-json.md) goes to stdout, diagnostics to stderr.  Exit status:
 * 0 clean unwrapped, 1 fixed by the default gate, 2 junk while serving or
 * at exit, 3 protocol errors, 4 the server could not start or died before
 * answering, 125 bad usage.
 */
#include "inspect.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "detect.h"


extern char **environ;

/* The finding that decides the warning, most important first. */
static unsigned main_finding(unsigned findings)
{
    static const unsigned order[] = { SG_SETUID, SG_SETGID, SG_CAPABILITIES, SG_DOCKER,
                                      SG_FOREIGN_LOADER, SG_STATIC, SG_GO, SG_BUN };
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (findings & order[i])
            return order[i];
    return 0;
}

/* quiet: under --strict the filter guards what the library cannot, so
 * the warning (which recommends --strict) is left out. */
static int inspect(const char *path, int quiet)
{
    static struct sg_inspection r;
    char line[3 * SG_PATH_SIZE];
    if (sg_inspect(path, &r) != 0)
        return 0;
    unsigned finding = main_finding(r.findings);
    if (!finding)
        return 0;
    sg_warning(&r, finding, line, sizeof line);
    if (!quiet)
        fprintf(stderr, "stdiogate: warning: %s\n", line);
    return sg_drop_library(&r) ? 2 : 1;
}

/* ------------------------------------------------------------------ */
/* The wrapper's environment. */

/* The environment process pid was started with, as one block of
 * NUL-terminated entries (a final NUL added), or NULL. */
static char *initial_environment(const char *pid, size_t *len)
{
    char path[64], *buf = NULL;
    size_t cap = 0;
    ssize_t n;
    snprintf(path, sizeof path, "/proc/%s/environ", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    *len = 0;
    do {
        if (*len + 4096 + 1 > cap) {
            char *bigger = realloc(buf, cap = 2 * cap + 8192);
            if (!bigger) {
                free(buf);
                close(fd);
                return NULL;
            }
            buf = bigger;
        }
        n = read(fd, buf + *len, 4096);
        if (n > 0)
            *len += (size_t)n;
    } while (n > 0);
    close(fd);
    if (n < 0) {
        free(buf);
        return NULL;
    }
    buf[(*len)++] = '\0';
    return buf;
}

/* The value of NAME in an environment block, or NULL. */
static const char *block_get(const char *block, size_t len, const char *name, size_t namelen)
{
    for (const char *e = block; e < block + len; e += strlen(e) + 1)
        if (strncmp(e, name, namelen) == 0 && e[namelen] == '=')
            return e + namelen + 1;
    return NULL;
}

/* A name the shell can set: the only kind it carries. */
static int shell_name(const char *e, size_t len)
{
    if (len == 0 || (e[0] >= '0' && e[0] <= '9'))
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!(e[i] == '_' || (e[i] >= 'a' && e[i] <= 'z') || (e[i] >= 'A' && e[i] <= 'Z') ||
              (e[i] >= '0' && e[i] <= '9')))
            return 0;
    return 1;
}

static int ours(const char *e)
{
    return strncmp(e, "STDIOGATE_", 10) == 0;
}

static void put_export(const char *name, size_t namelen, const char *value)
{
    printf("export %.*s='", (int)namelen, name);
    for (; *value; value++)
        if (*value == '\'')
            fputs("'\\''", stdout);
        else
            putchar(*value);
    puts("'");
}

/* Each variable the shell exports now (the environment this process got)
 * that differs from the caller's is put back; then the caller's own that
 * the shell lost. */
static void restore_environment(const char *block, size_t len)
{
    for (char **e = environ; *e; e++) {
        const char *eq = strchr(*e, '=');
        size_t n = eq ? (size_t)(eq - *e) : strlen(*e);
        const char *was = block_get(block, len, *e, n);
        if (ours(*e) || !eq || (was && strcmp(was, eq + 1) == 0))
            continue;
        if (was)
            put_export(*e, n, was);
        else
            printf("unset %.*s\n", (int)n, *e);
    }
    for (const char *e = block; e < block + len; e += strlen(e) + 1) {
        const char *eq = strchr(e, '=');
        size_t n = eq ? (size_t)(eq - e) : 0;
        if (eq && !ours(e) && shell_name(e, n)) {
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)n, e);
            if (n < sizeof name && !getenv(name))
                put_export(e, n, eq + 1);
        }
    }
}

/* STDIOGATE_DEBUG as the library will read it: the caller's level (an
 * invalid one warned about and replaced by the nearest valid level), raised
 * by -v; -1 if it stays unset. */
static int debug_level(const char *given, int verbosity)
{
    int level = -1;
    if (given && *given) {
        char *end;
        long v = strtol(given, &end, 10);
        level = *end || end == given ? 1 : v < 0 ? 0 : v > 4 ? 4 : (int)v;
        if (*end || end == given || v < 0 || v > 4 || given[1])
            fprintf(stderr, "stdiogate: warning: STDIOGATE_DEBUG=%s is not a level from 0 to 4: "
                    "using %d\n", given, level);
    }
    if (verbosity > 0) {
        int wanted = verbosity + 1 > 4 ? 4 : verbosity + 1;
        level = level > wanted ? level : wanted;
    }
    return level;
}

/* Perl and Ruby keep stdout in their own buffers, as Python does without
 * PYTHONUNBUFFERED: a file beside the library, loaded through PERL5OPT or
 * RUBYOPT (appended to the caller's), makes their STDOUT unbuffered. */
static void add_option(const char *var, const char *dir, const char *file, const char *option)
{
    char path[SG_PATH_SIZE], *value;
    const char *given = getenv(var);
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (access(path, R_OK) != 0)
        return;
    if (given && strstr(given, option))
        return;     /* nested: ours already */
    value = malloc(strlen(option) + (given ? strlen(given) : 0) + 2);
    if (!value)
        return;
    sprintf(value, "%s%s%s", given && *given ? given : "", given && *given ? " " : "", option);
    put_export(var, strlen(var), value);
    free(value);
}

static void unbuffer_runtimes(const char *library)
{
    char dir[SG_PATH_SIZE], option[2 * SG_PATH_SIZE];
    snprintf(dir, sizeof dir, "%.*s/runtime", (int)(strrchr(library, '/') - library), library);
    snprintf(option, sizeof option, "-I%s/perl -MStdiogate::Unbuffered", dir);
    add_option("PERL5OPT", dir, "perl/Stdiogate/Unbuffered.pm", option);
    snprintf(option, sizeof option, "-r%s/ruby/stdiogate_unbuffered.rb", dir);
    add_option("RUBYOPT", dir, "ruby/stdiogate_unbuffered.rb", option);
}

static int wrapper(const char *pid, const char *verbosity, const char *library, const char *path,
                   int strict)
{
    size_t len = 0;
    char *block = initial_environment(pid, &len), wire[64] = "";
    struct stat st;
    int status = inspect(path, strict);
    int level = debug_level(getenv("STDIOGATE_DEBUG"), atoi(verbosity));
    if (block)
        restore_environment(block, len);
    if (level >= 0)
        printf("export STDIOGATE_DEBUG=%d\n", level);
    if (status == 2) {
        free(block);
        puts(":");
        return status;
    }
    const char *preload = block ? block_get(block, len, "LD_PRELOAD", 10) : getenv("LD_PRELOAD");
    char *value = malloc(strlen(library) + (preload ? strlen(preload) : 0) + 2);
    if (!value)
        return 125;
    sprintf(value, "%s%s%s", library, preload && *preload ? " " : "", preload ? preload : "");
    put_export("LD_PRELOAD", 10, value);
    free(value);
    if (!(block ? block_get(block, len, "PYTHONUNBUFFERED", 16) : getenv("PYTHONUNBUFFERED")))
        puts("export PYTHONUNBUFFERED=1");
    unbuffer_runtimes(library);
    /* The wrapper's stdout is the wire; if it was closed, the pipe of the
     * $(...) that runs this took its number for a moment. */
    char fd1[64];
    struct stat mine;
    snprintf(fd1, sizeof fd1, "/proc/%s/fd/1", pid);
    if (stat(fd1, &st) == 0 &&
        !(fstat(1, &mine) == 0 && mine.st_dev == st.st_dev && mine.st_ino == st.st_ino)) {
        snprintf(wire, sizeof wire, "%llu:%llu", (unsigned long long)st.st_dev,
                 (unsigned long long)st.st_ino);
        printf("export STDIOGATE_WIRE=%s\n", wire);
    } else {
        puts("unset STDIOGATE_WIRE");
    }
    if (level >= 2)
        fprintf(stderr, "stdiogate[%s]: preloading %s, wire %s, running %s\n", pid, library,
                wire[0] ? wire : "closed", path);
    free(block);
    return status;
}

/* --environment: only the commands that put the caller's environment back
 * (what the wrapper runs before it execs --check, whose servers must see the
 * caller's environment). */
static int environment(const char *pid)
{
    size_t len = 0;
    char *block = initial_environment(pid, &len);
    if (!block)
        return 125;
    restore_environment(block, len);
    puts(":");
    free(block);
    return 0;
}

/* ------------------------------------------------------------------ */
/* --check */

#ifndef STDIOGATE_VERSION
#define STDIOGATE_VERSION "unknown" /* (the Makefile gives the wrapper's) */
#endif

#define EXIT_USAGE 125

/* ------------------------------------------------------------------ */
/* Small utilities */

static void die(int status, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));

static void die(int status, const char *fmt, ...)
{
    va_list ap;
    fputs("stdiogate --check: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(status);
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        die(EXIT_USAGE, "out of memory");
    return p;
}

static char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    char *s;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        die(EXIT_USAGE, "out of memory");
    va_end(ap);
    return s;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void set_nonblock_cloexec(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
}

/* ------------------------------------------------------------------ */
/* Reading JSON: validation (as strict as JSON.parse) and member lookup in
 * text already validated.  Nothing is built: spans point into the text. */

#define JSON_DEPTH_MAX 1000

struct span {
    const char *p, *e;
};

static const char *json_ws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int hex_value(char c)
{
    if (is_digit(c))
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* p at a quote: past the closing quote, or NULL. */
static const char *json_string_end(const char *p, const char *e)
{
    for (p++; p < e; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"')
            return p + 1;
        if (c < 0x20)
            return NULL;
        if (c != '\\')
            continue;
        if (++p >= e)
            return NULL;
        if (*p == 'u') {
            if (e - p < 5)
                return NULL;
            for (int i = 1; i <= 4; i++)
                if (hex_value(p[i]) < 0)
                    return NULL;
            p += 4;
        } else if (*p == '\0' || !strchr("\"\\/bfnrt", *p)) {
            return NULL;
        }
    }
    return NULL;
}

static const char *json_digits(const char *p, const char *e)
{
    if (p >= e || !is_digit(*p))
        return NULL;
    while (p < e && is_digit(*p))
        p++;
    return p;
}

static const char *json_number_end(const char *p, const char *e)
{
    if (p < e && *p == '-')
        p++;
    if (p < e && *p == '0')
        p++;
    else if (!(p = json_digits(p, e)))
        return NULL;
    if (p < e && *p == '.' && !(p = json_digits(p + 1, e)))
        return NULL;
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            p++;
        p = json_digits(p, e);
    }
    return p;
}

static const char *json_value_end(const char *p, const char *e, int depth);

/* p at '{' or '[': past the matching close, or NULL. */
static const char *json_container_end(const char *p, const char *e, int depth)
{
    char close = *p == '{' ? '}' : ']';
    if (depth >= JSON_DEPTH_MAX)
        return NULL;
    p = json_ws(p + 1, e);
    if (p < e && *p == close)
        return p + 1;
    for (;;) {
        if (close == '}') {
            if (p >= e || *p != '"' || !(p = json_string_end(p, e)))
                return NULL;
            p = json_ws(p, e);
            if (p >= e || *p != ':')
                return NULL;
            p = json_ws(p + 1, e);
        }
        if (!(p = json_value_end(p, e, depth + 1)))
            return NULL;
        p = json_ws(p, e);
        if (p >= e)
            return NULL;
        if (*p == close)
            return p + 1;
        if (*p != ',')
            return NULL;
        p = json_ws(p + 1, e);
    }
}

static const char *json_literal_end(const char *p, const char *e, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(e - p) >= n && memcmp(p, word, n) == 0 ? p + n : NULL;
}

static const char *json_value_end(const char *p, const char *e, int depth)
{
    if (p >= e)
        return NULL;
    switch (*p) {
    case '"':
        return json_string_end(p, e);
    case '{':
    case '[':
        return json_container_end(p, e, depth);
    case 't':
        return json_literal_end(p, e, "true");
    case 'f':
        return json_literal_end(p, e, "false");
    case 'n':
        return json_literal_end(p, e, "null");
    default:
        return json_number_end(p, e);
    }
}

/* Is [p, e) exactly one JSON object, white space around it allowed?  Sets
 * *obj to the object. */
static int json_is_object(const char *p, const char *e, struct span *obj)
{
    const char *end;
    p = json_ws(p, e);
    if (p >= e || *p != '{' || !(end = json_value_end(p, e, 0)))
        return 0;
    if (json_ws(end, e) != e)
        return 0;
    obj->p = p;
    obj->e = end;
    return 1;
}

/* Decodes the JSON string token s (validated) into out (NUL-terminated,
 * truncated to cap - 1 bytes).  \u escapes become UTF-8; a lone surrogate
 * becomes U+FFFD. */
static void json_string_copy(struct span s, char *out, size_t cap)
{
    size_t n = 0;
    const char *p = s.p + 1, *e = s.e - 1;
    while (p < e && n + 4 < cap) {
        unsigned c = (unsigned char)*p++;
        if (c == '\\') {
            char x = *p++;
            switch (x) {
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'u':
                c = 0;
                for (int i = 0; i < 4; i++)
                    c = c * 16 + (unsigned)hex_value(*p++);
                if (c >= 0xd800 && c <= 0xdfff)
                    c = 0xfffd;
                break;
            default: c = (unsigned char)x; break;
            }
            if (c >= 0x800) {
                out[n++] = (char)(0xe0 | (c >> 12));
                out[n++] = (char)(0x80 | ((c >> 6) & 0x3f));
                out[n++] = (char)(0x80 | (c & 0x3f));
                continue;
            }
            if (c >= 0x80) {
                out[n++] = (char)(0xc0 | (c >> 6));
                out[n++] = (char)(0x80 | (c & 0x3f));
                continue;
            }
        }
        out[n++] = (char)c;
    }
    out[n] = '\0';
}

/* Is the JSON string token s (validated) the text word? */
static int json_string_is(struct span s, const char *word)
{
    char buf[64];
    if (s.p >= s.e || *s.p != '"' || (size_t)(s.e - s.p) > sizeof buf)
        return 0;
    json_string_copy(s, buf, sizeof buf);
    return strcmp(buf, word) == 0;
}

/* The value of member key in the validated object obj (the last one if the
 * key repeats, as JSON.parse keeps). */
static int json_member(struct span obj, const char *key, struct span *value)
{
    int found = 0;
    const char *p = json_ws(obj.p + 1, obj.e);
    while (p < obj.e && *p == '"') {
        struct span k = { p, json_string_end(p, obj.e) };
        struct span v;
        if (!k.e)
            break;  /* (obj was validated: cannot happen) */
        v.p = json_ws(json_ws(k.e, obj.e) + 1, obj.e);
        v.e = json_value_end(v.p, obj.e, 0);
        if (!v.e)
            break;
        if (json_string_is(k, key)) {
            *value = v;
            found = 1;
        }
        p = json_ws(v.e, obj.e);
        if (p >= obj.e || *p != ',')
            break;
        p = json_ws(p + 1, obj.e);
    }
    return found;
}

static int json_kind(struct span v, char first)
{
    return v.p < v.e && *v.p == first;
}

/* ------------------------------------------------------------------ */
/* Writing: JSON strings and escaped excerpts. */

/* Length of the valid UTF-8 sequence at p (n bytes left), or 0. */
static size_t utf8_length(const unsigned char *p, size_t n)
{
    size_t len = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 && p[0] < 0xe0 ? 2 : 0;
    if (len == 0 || len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    return len;
}

static void put_json_bytes(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    putchar('"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = p[i];
        if (c == '"' || c == '\\') {
            printf("\\%c", c);
        } else if (c == '\n') {
            fputs("\\n", stdout);
        } else if (c < 0x20 || c == 0x7f) {
            printf("\\u%04x", c);
        } else if (c < 0x80) {
            putchar(c);
        } else {
            size_t len = utf8_length(p + i, n - i);
            if (len == 0) {
                fputs("\\ufffd", stdout);
            } else {
                fwrite(p + i, 1, len, stdout);
                i += len - 1;
            }
        }
    }
    putchar('"');
}

static void put_json_string(const char *s)
{
    if (s)
        put_json_bytes(s, strlen(s));
    else
        fputs("null", stdout);
}

/* Bytes as a C-style escaped text, ASCII only: what the server wrote,
 * exactly, and safe to print anywhere. */
static void escape_bytes(const unsigned char *p, size_t n, char *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k + 5 < cap; i++) {
        unsigned char c = p[i];
        const char *esc = c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t"
                        : c == '\\' ? "\\\\" : c == '"' ? "\\\"" : NULL;
        if (esc)
            k += (size_t)snprintf(out + k, cap - k, "%s", esc);
        else if (c >= 0x20 && c < 0x7f)
            out[k++] = (char)c;
        else
            k += (size_t)snprintf(out + k, cap - k, "\\x%02x", c);
    }
    out[k] = '\0';
}

/* ------------------------------------------------------------------ */
/* What stdiogate knows about the program: sg_inspect's findings, the
 * wrapper's warnings, and whether COMMAND is a launcher. */

struct program_facts {
    int known;                 /* sg_inspect could read it */
    struct sg_inspection in;
    const char *launcher;      /* what kind, or NULL */
    char note[1024];           /* one line for people */
};

static const char *launcher_kind(const char *command)
{
    static const char *const names[][2] = {
        { "npx", "npm exec" }, { "npm", "npm" }, { "pnpm", "pnpm" }, { "pnpx", "pnpm" },
        { "yarn", "yarn" }, { "bunx", "bun x" }, { "uvx", "uv tool run" }, { "uv", "uv" },
        { "pipx", "pipx" }, { "poetry", "poetry" }, { "env", "env" }, { "sh", "a shell" },
        { "bash", "a shell" }, { "dash", "a shell" }, { "zsh", "a shell" }, { "timeout", "timeout" },
        { "docker", "a container" }, { "podman", "a container" }, { "nix", "nix" },
    };
    const char *base = strrchr(command, '/');
    base = base ? base + 1 : command;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(base, names[i][0]) == 0)
            return names[i][1];
    return NULL;
}

static const unsigned finding_bits[] = { SG_SETUID, SG_SETGID, SG_CAPABILITIES, SG_DOCKER,
                                         SG_FOREIGN_LOADER, SG_STATIC, SG_GO, SG_BUN };
static const char *const finding_keys[] = { "setuid", "setgid", "capabilities", "container",
                                            "foreign_loader", "static", "go", "bun" };
#define NFINDINGS (sizeof finding_bits / sizeof finding_bits[0])

static void inspect_program(const char *command, const char *path, struct program_facts *f)
{
    size_t k = 0;
    memset(f, 0, sizeof *f);
    f->launcher = launcher_kind(command);
    f->known = sg_inspect(path, &f->in) == 0;
    if (!f->known) {
        snprintf(f->note, sizeof f->note, "cannot be read");
        return;
    }
    if (f->in.script[0])
        k += (size_t)snprintf(f->note + k, sizeof f->note - k, "a #! script run by %s; ", f->in.program);
    if (f->in.findings & SG_STATIC)
        k += (size_t)snprintf(f->note + k, sizeof f->note - k, "statically linked");
    else if (f->in.interp[0])
        k += (size_t)snprintf(f->note + k, sizeof f->note - k, "dynamically linked (%s)", f->in.interp);
    else
        k += (size_t)snprintf(f->note + k, sizeof f->note - k, "not an ELF program");
    for (size_t i = 0; i < NFINDINGS && k < sizeof f->note; i++)
        if (finding_bits[i] != SG_STATIC && (f->in.findings & finding_bits[i]))
            k += (size_t)snprintf(f->note + k, sizeof f->note - k, ", %s", finding_keys[i]);
    if (f->launcher && k < sizeof f->note)
        snprintf(f->note + k, sizeof f->note - k, "; a launcher (%s): the server runs under it", f->launcher);
}

/* ------------------------------------------------------------------ */
/* Options */

enum protocol { PROTO_MCP, PROTO_LSP, PROTO_DAP };
static const char *const protocol_names[] = { "mcp", "lsp", "dap" };
static const char *const protocol_titles[] = { "MCP", "LSP", "DAP" };

struct options {
    enum protocol protocol;
    double timeout, linger;
    const char *call, *call_args;
    int json;
    const char *wrapper;  /* the stdiogate wrapper (passed by it) */
    char **command;       /* NULL-terminated */
    int ncommand;
};

static void check_usage(FILE *f)
{
    fputs("Usage: stdiogate --check [--protocol mcp|lsp|dap] [--timeout S] [--linger S]\n"
          "                         [--call TOOL [--args JSON]] [--json] [--] COMMAND [ARG]...\n", f);
}

static void check_help(void)
{
    check_usage(stdout);
    fputs("\nPlay the client to the stdio server COMMAND: run it unwrapped, under the\n"
          "default gate and under --strict (when installed), drive a session in each\n"
          "run, and report every stretch of non-protocol bytes on its stdout, the\n"
          "answers, the exit, and the configuration that keeps the junk off the wire.\n\n"
          "  --protocol P   mcp (default), lsp or dap\n"
          "  --timeout S    bound on each answer and on the exit (default 10)\n"
          "  --linger S     after the session, wait S seconds for output on timers (default 1)\n"
          "  --call TOOL    MCP: also call TOOL, with the arguments --args JSON (default {})\n"
          "  --json         print one JSON document (docs/check-json.md) instead of text\n\n"
          "Exit status: 0 clean unwrapped; 1 junk before the first message only, fixed\n"
          "by the default gate; 2 junk while serving or at exit; 3 protocol errors no\n"
          "mode fixes; 4 the server could not be started or died before answering;\n"
          "125 bad usage.\n", stdout);
}

static void usage_error(const char *fmt, const char *arg)
{
    fputs("stdiogate --check: ", stderr);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    check_usage(stderr);
    exit(EXIT_USAGE);
}

static double seconds_option(const char *name, const char *value, int zero_ok)
{
    char *end;
    double s;
    if (!value)
        usage_error("%s needs a number of seconds", name);
    errno = 0;
    s = strtod(value, &end);
    if (errno || end == value || *end || !isfinite(s) || s < 0 || (s == 0 && !zero_ok) || s > 86400)
        usage_error("invalid number of seconds '%s'", value);
    return s;
}

/* An option's value, from "--name=value" or the next argument. */
static const char *option_value(char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) == 0 && argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (!argv[*i + 1])
        usage_error("option '%s' needs a value", name);
    return argv[++*i];
}

static int is_option(const char *arg, const char *name)
{
    size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

static void parse_check_options(int argc, char **argv, struct options *o)
{
    int i;
    *o = (struct options){ .protocol = PROTO_MCP, .timeout = 10, .linger = 1 };
    for (i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else if (strcmp(a, "--help") == 0) {
            check_help();
            exit(0);
        } else if (strcmp(a, "--json") == 0) {
            o->json = 1;
        } else if (is_option(a, "--wrapper-path")) {
            o->wrapper = option_value(argv, &i, "--wrapper-path");
        } else if (is_option(a, "--protocol")) {
            const char *p = option_value(argv, &i, "--protocol");
            if (strcmp(p, "mcp") == 0)
                o->protocol = PROTO_MCP;
            else if (strcmp(p, "lsp") == 0)
                o->protocol = PROTO_LSP;
            else if (strcmp(p, "dap") == 0)
                o->protocol = PROTO_DAP;
            else
                usage_error("unknown protocol '%s' (mcp, lsp or dap)", p);
        } else if (is_option(a, "--timeout")) {
            o->timeout = seconds_option("--timeout", option_value(argv, &i, "--timeout"), 0);
        } else if (is_option(a, "--linger")) {
            o->linger = seconds_option("--linger", option_value(argv, &i, "--linger"), 1);
        } else if (is_option(a, "--call")) {
            o->call = option_value(argv, &i, "--call");
        } else if (is_option(a, "--args")) {
            o->call_args = option_value(argv, &i, "--args");
        } else if (a[0] == '-' && a[1] != '\0') {
            usage_error("unknown option '%s' (try 'stdiogate --check --help')", a);
        } else {
            break;
        }
    }
    if (o->call_args && !o->call)
        usage_error("%s needs --call TOOL", "--args");
    if (o->call && o->protocol != PROTO_MCP)
        usage_error("%s is for MCP servers", "--call");
    if (o->call_args) {
        struct span obj;
        if (!json_is_object(o->call_args, o->call_args + strlen(o->call_args), &obj))
            usage_error("--args is not a JSON object: %s", o->call_args);
    }
    if (i >= argc) {
        fputs("stdiogate --check: no COMMAND given\n", stderr);
        check_usage(stderr);
        exit(EXIT_USAGE);
    }
    o->command = argv + i;
    o->ncommand = argc - i;
}

/* ------------------------------------------------------------------ */
/* Finding programs */

/* Sets out to the file exec would run for name, searching PATH as execvp
 * does.  Returns 0 found, 126 found but not executable, 127 not found. */
static int resolve_command(const char *name, char *out, size_t cap)
{
    const char *path = getenv("PATH");
    int denied = 0;
    struct stat st;
    if (strchr(name, '/')) {
        snprintf(out, cap, "%s", name);
        if (stat(name, &st) != 0)
            return 127;
        return S_ISREG(st.st_mode) && access(name, X_OK) == 0 ? 0 : 126;
    }
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (;;) {
        const char *colon = strchr(path, ':');
        size_t len = colon ? (size_t)(colon - path) : strlen(path);
        char candidate[PATH_MAX];
        snprintf(candidate, sizeof candidate, "%.*s/%s", (int)(len ? len : 1), len ? path : ".", name);
        if (stat(candidate, &st) == 0) {
            if (S_ISREG(st.st_mode) && access(candidate, X_OK) == 0) {
                snprintf(out, cap, "%s", candidate);
                return 0;
            }
            if (!denied) {
                snprintf(out, cap, "%s", candidate);
                denied = 1;
            }
        }
        if (!colon)
            break;
        path = colon + 1;
    }
    return denied ? 126 : 127;
}

/* The directory this program is in (where the library and
 * stdiogate-filter are installed beside it). */
static void own_directory(char *out, size_t cap)
{
    ssize_t n = readlink("/proc/self/exe", out, cap - 1);
    char *slash;
    if (n <= 0) {
        snprintf(out, cap, ".");
        return;
    }
    out[n] = '\0';
    slash = strrchr(out, '/');
    if (slash)
        *slash = '\0';
}

/* ------------------------------------------------------------------ */
/* One run of the server */

enum phase { PHASE_BEFORE, PHASE_SERVING, PHASE_EXIT };
static const char *const phase_keys[] = { "before_first_message", "serving", "at_exit" };
static const char *const phase_words[] = { "before the first message", "while serving", "at exit" };

enum outcome { OUT_NOT_SENT, OUT_WAITING, OUT_RESULT, OUT_ERROR, OUT_NONE, OUT_WRONG_ID, OUT_MALFORMED };
static const char *const outcome_keys[] = {
    "not_sent", "waiting", "result", "error", "no_answer", "wrong_id", "malformed"
};

enum state { S_SESSION, S_LINGER, S_CLOSING, S_DRAIN, S_DONE };

#define HEAD_MAX 48          /* first bytes kept of each stretch */
#define STRETCH_MAX 16       /* stretches kept per run; the rest are counted */
#define TEXT_STRETCHES 5     /* of which the text report lists */
#define REQUEST_MAX 8
#define ITEM_MAX 12
#define MESSAGE_MAX (64u << 20)  /* a longer protocol message is not read */
#define ERR_HEAD_MAX 200

struct stretch {
    enum phase phase;
    unsigned long long offset, length;
    unsigned char head[HEAD_MAX];
    size_t head_len;
};

struct request {
    const char *method;
    char id[40];             /* as sent (JSON text) */
    enum outcome outcome;
    char seen_id[40];        /* a wrong id, or why there was no answer */
    char error[160];         /* error.message of an error answer */
    double sent, answered;   /* seconds since the start */
};

struct item {                /* a message to send, in order */
    char *frame;
    int request;             /* index in req[], or -1: a notification */
};

#define READ_SIZE 65536
#define PIECE_MAX (SG_HOLD_MAX + READ_SIZE)
_Static_assert(SG_HEADER_MAX <= SG_HOLD_MAX, "the classifier holds at most SG_HOLD_MAX bytes");

/* stdout, as the strict filter sees it: detect.h's stream classifier says of
 * every byte whether it is protocol or junk.  The bytes it has not decided
 * yet (at most SG_HOLD_MAX) are kept in piece, with those of the call that
 * decides them; the protocol bytes of the message being passed are kept in
 * msg (up to MESSAGE_MAX), to be read for their ids when it ends. */
struct out_stream {
    unsigned long long offset;     /* bytes read so far */
    struct sg_stream cls;
    unsigned char *piece;          /* [PIECE_MAX] */
    size_t piece_len;
    unsigned long long piece_start;
    enum phase piece_phase;
    char *msg;
    size_t msg_len, msg_cap;
    int in_msg, msg_overflow;
    char *line;                    /* MCP: the junk line so far [SG_HOLD_MAX] */
    size_t line_len;
    int line_overflow;
    int eof;
};

struct run {
    const char *mode;        /* "unwrapped", "gated", "strict" */
    const char *title;
    char **argv;
    int skipped;             /* not run; note says why */
    char note[2 * PATH_MAX];
    const struct options *opt;

    pid_t pid;
    int started, exec_errno, exited, status;
    double t0, exit_time;
    int in_fd, out_fd, err_fd;

    char *wq;                /* bytes queued for the server's stdin */
    size_t wq_len, wq_off;
    int stdin_closed, stdin_broken;

    struct out_stream out;
    enum phase phase;
    struct stretch cur;
    int cur_open;
    struct stretch st[STRETCH_MAX];
    int nst;
    unsigned long long more_stretches, more_bytes;
    unsigned long long junk[3], messages, notifications, server_requests, stray, oversized, malformed;

    struct request req[REQUEST_MAX];
    int nreq;
    struct item items[ITEM_MAX];
    int nitems, next_item;
    int waiting;             /* index of the request waiting for its answer, or -1 */
    int next_id;
    double first_answer;     /* seconds since the start, or -1 */
    int planned;             /* MCP: the steps after initialize were planned */

    unsigned long long err_bytes;
    unsigned char err_head[ERR_HEAD_MAX];
    size_t err_head_len;
    int err_eof;
    char err_line[160];      /* the start of the current stderr line */
    size_t err_line_len;
    unsigned long long dropped;  /* what stdiogate said it dropped */

    enum state state;
    double deadline;
    int term_sent, kill_sent, killed_by_check;
    int answer_timeout;      /* a request got no answer within --timeout */
    int exit_timeout;        /* no exit within --timeout after stdin closed */
    int leftovers;
    int exited_early;        /* exited before its stdin was closed */
    int closed_alive;        /* closed stdout before answering, still running */
};

static volatile sig_atomic_t interrupted;
static int signal_pipe[2] = { -1, -1 };

static void on_signal(int sig)
{
    int saved = errno;
    unsigned char c = (unsigned char)sig;
    if (sig != SIGCHLD)
        interrupted = sig;
    if (write(signal_pipe[1], &c, 1) < 0) {
        /* full: a wakeup is pending anyway */
    }
    errno = saved;
}

static void install_signals(void)
{
    struct sigaction sa;
    int sigs[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP };
    if (pipe(signal_pipe) != 0)
        die(EXIT_USAGE, "pipe: %s", strerror(errno));
    set_nonblock_cloexec(signal_pipe[0]);
    set_nonblock_cloexec(signal_pipe[1]);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
    signal(SIGPIPE, SIG_IGN);  /* a server gone from its stdin: EPIPE */
    /* Orphans of the server become our children, so none is left behind. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
}

/* --- writing to the server */

static void queue_bytes(struct run *r, const char *p, size_t n)
{
    if (r->stdin_closed || r->stdin_broken)
        return;
    if (r->wq_off == r->wq_len)
        r->wq_off = r->wq_len = 0;
    r->wq = xrealloc(r->wq, r->wq_len + n);
    memcpy(r->wq + r->wq_len, p, n);
    r->wq_len += n;
}

/* A message with its framing: a line for MCP, a Content-Length header else. */
static char *frame_message(const struct run *r, const char *body)
{
    if (r->opt->protocol == PROTO_MCP)
        return xasprintf("%s\n", body);
    return xasprintf("Content-Length: %zu\r\n\r\n%s", strlen(body), body);
}

static void flush_queue(struct run *r)
{
    while (r->wq_off < r->wq_len && !r->stdin_closed) {
        ssize_t n = write(r->in_fd, r->wq + r->wq_off, r->wq_len - r->wq_off);
        if (n > 0) {
            r->wq_off += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            if (n < 0 && errno != EAGAIN) {
                r->stdin_broken = 1;  /* the server closed its stdin */
                r->wq_off = r->wq_len;
            }
            return;
        }
    }
}

static void close_stdin(struct run *r)
{
    if (!r->stdin_closed) {
        close(r->in_fd);
        r->stdin_closed = 1;
    }
}

/* --- the session: what is sent, and in which order */

static int add_request(struct run *r, const char *method, const char *id, const char *body)
{
    struct request *q = &r->req[r->nreq];
    struct item *it = &r->items[r->nitems++];
    q->method = method;
    snprintf(q->id, sizeof q->id, "%s", id);
    it->frame = frame_message(r, body);
    it->request = r->nreq;
    return r->nreq++;
}

static void add_notification(struct run *r, const char *body)
{
    struct item *it = &r->items[r->nitems++];
    it->frame = frame_message(r, body);
    it->request = -1;
}

static void add_jsonrpc_request(struct run *r, const char *method, const char *params)
{
    char id[40];
    char *body;
    if (strcmp(method, "ping") == 0)
        snprintf(id, sizeof id, "\"stdiogate-ping\"");  /* a string id must come back as one */
    else
        snprintf(id, sizeof id, "%d", r->next_id++);
    body = params ? xasprintf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"%s\",\"params\":%s}", id, method, params)
                  : xasprintf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"%s\"}", id, method);
    add_request(r, method, id, body);
    free(body);
}

static void add_dap_request(struct run *r, const char *command, const char *arguments)
{
    char id[40];
    char *body;
    snprintf(id, sizeof id, "%d", r->next_id++);
    body = xasprintf("{\"seq\":%s,\"type\":\"request\",\"command\":\"%s\",\"arguments\":%s}", id, command, arguments);
    add_request(r, command, id, body);
    free(body);
}

/* What is known before the first answer. */
static void plan_session(struct run *r)
{
    char *params;
    r->next_id = 1;
    switch (r->opt->protocol) {
    case PROTO_MCP:
        add_jsonrpc_request(r, "initialize",
            "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
            "\"clientInfo\":{\"name\":\"stdiogate-check\",\"version\":\"" STDIOGATE_VERSION "\"}}");
        break;  /* the rest depends on what the server advertises */
    case PROTO_LSP:
        params = xasprintf("{\"processId\":%ld,\"clientInfo\":{\"name\":\"stdiogate-check\"},"
                           "\"rootUri\":null,\"capabilities\":{}}", (long)getpid());
        add_jsonrpc_request(r, "initialize", params);
        free(params);
        add_notification(r, "{\"jsonrpc\":\"2.0\",\"method\":\"initialized\",\"params\":{}}");
        add_jsonrpc_request(r, "shutdown", NULL);
        add_notification(r, "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
        break;
    case PROTO_DAP:
        add_dap_request(r, "initialize",
            "{\"clientID\":\"stdiogate-check\",\"adapterID\":\"stdiogate-check\","
            "\"linesStartAt1\":true,\"columnsStartAt1\":true,\"pathFormat\":\"path\"}");
        add_dap_request(r, "disconnect", "{}");
        break;
    }
}

/* MCP, once initialize was answered: the lists the server advertises, ping,
 * and the tool call asked for. */
static void plan_after_initialize(struct run *r, struct span answer)
{
    static const char *const lists[][2] = {
        { "tools", "tools/list" }, { "prompts", "prompts/list" }, { "resources", "resources/list" }
    };
    struct span result, caps, v;
    int have_caps = json_member(answer, "result", &result) && json_kind(result, '{') &&
                    json_member(result, "capabilities", &caps) && json_kind(caps, '{');
    r->planned = 1;
    add_notification(r, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    for (size_t i = 0; i < 3; i++)
        if (have_caps && json_member(caps, lists[i][0], &v) && !json_kind(v, 'n'))
            add_jsonrpc_request(r, lists[i][1], "{}");
    add_jsonrpc_request(r, "ping", NULL);
    if (r->opt->call) {
        char *params, *name = xrealloc(NULL, strlen(r->opt->call) * 6 + 3);
        size_t k = 0;
        /* the tool's name as a JSON string */
        name[k++] = '"';
        for (const char *c = r->opt->call; *c; c++) {
            if (*c == '"' || *c == '\\')
                name[k++] = '\\';
            if ((unsigned char)*c < 0x20)
                k += (size_t)sprintf(name + k, "\\u%04x", (unsigned char)*c);
            else
                name[k++] = *c;
        }
        name[k++] = '"';
        name[k] = '\0';
        params = xasprintf("{\"name\":%s,\"arguments\":%s}", name, r->opt->call_args ? r->opt->call_args : "{}");
        add_jsonrpc_request(r, "tools/call", params);
        free(params);
        free(name);
    }
}

/* MCP: after the answer to initialize, whatever it was, the session goes on. */
static void plan_rest(struct run *r, struct span answer)
{
    if (r->opt->protocol == PROTO_MCP && !r->planned && r->waiting == 0)
        plan_after_initialize(r, answer);
}

/* Sends items up to and including the next request, which then waits. */
static void send_next(struct run *r)
{
    r->waiting = -1;
    while (r->next_item < r->nitems) {
        struct item *it = &r->items[r->next_item++];
        queue_bytes(r, it->frame, strlen(it->frame));
        if (it->request >= 0) {
            struct request *q = &r->req[it->request];
            q->outcome = OUT_WAITING;
            q->sent = now() - r->t0;
            r->waiting = it->request;
            r->deadline = now() + r->opt->timeout;
            break;
        }
    }
    flush_queue(r);
}

/* --- what came out on stdout */

static void close_stretch(struct run *r)
{
    if (!r->cur_open)
        return;
    r->cur_open = 0;
    if (r->nst < STRETCH_MAX) {
        r->st[r->nst++] = r->cur;
    } else {
        r->more_stretches++;
        r->more_bytes += r->cur.length;
    }
}

/* Bytes [offset, offset + length) were not protocol. */
static void add_junk(struct run *r, enum phase phase, unsigned long long offset, unsigned long long length,
                     const unsigned char *head, size_t head_len)
{
    struct stretch *c = &r->cur;
    if (length == 0)
        return;
    r->junk[phase] += length;
    if (!(r->cur_open && c->phase == phase && c->offset + c->length == offset)) {
        close_stretch(r);
        memset(c, 0, sizeof *c);
        c->phase = phase;
        c->offset = offset;
        r->cur_open = 1;
    }
    c->length += length;
    if (head_len > length)
        head_len = (size_t)length;
    if (head_len > HEAD_MAX - c->head_len)
        head_len = HEAD_MAX - c->head_len;
    memcpy(c->head + c->head_len, head, head_len);
    c->head_len += head_len;
}

static void copy_token(struct span v, char *out, size_t cap)
{
    size_t n = (size_t)(v.e - v.p);
    if (n >= cap) {
        n = cap - 4;
        snprintf(out, cap, "%.*s...", (int)n, v.p);
    } else {
        snprintf(out, cap, "%.*s", (int)n, v.p);
    }
}

static void answered(struct run *r, enum outcome outcome)
{
    struct request *q = &r->req[r->waiting];
    q->outcome = outcome;
    q->answered = now() - r->t0;
    if (r->first_answer < 0)
        r->first_answer = q->answered;
}

/* A server's request to the client: answered, so that it does not wait. */
static void answer_server_request(struct run *r, struct span id, struct span command)
{
    char *body;
    if (r->opt->protocol == PROTO_DAP)
        body = xasprintf("{\"seq\":%d,\"type\":\"response\",\"request_seq\":%.*s,\"command\":%.*s,"
                         "\"success\":false,\"message\":\"not supported by stdiogate --check\"}",
                         r->next_id++, (int)(id.e - id.p), id.p, (int)(command.e - command.p), command.p);
    else if (r->opt->protocol == PROTO_LSP)
        body = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"result\":null}", (int)(id.e - id.p), id.p);
    else
        body = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"error\":{\"code\":-32601,"
                         "\"message\":\"stdiogate --check answers no requests\"}}", (int)(id.e - id.p), id.p);
    char *frame = frame_message(r, body);
    queue_bytes(r, frame, strlen(frame));
    flush_queue(r);
    free(frame);
    free(body);
}

/* The answer to the waiting request arrived, with this id. */
static void take_answer(struct run *r, struct span obj, struct span id, int is_error, struct span message)
{
    struct request *q;
    char text[40];
    if (r->waiting < 0) {
        r->stray++;  /* an answer to nothing asked */
        return;
    }
    q = &r->req[r->waiting];
    copy_token(id, text, sizeof text);
    if (strcmp(text, q->id) != 0) {
        snprintf(q->seen_id, sizeof q->seen_id, "%s", text);
        answered(r, OUT_WRONG_ID);
    } else {
        if (is_error && json_kind(message, '"'))
            json_string_copy(message, q->error, sizeof q->error);
        answered(r, is_error ? OUT_ERROR : OUT_RESULT);
    }
    plan_rest(r, obj);
    send_next(r);
}

/* A JSON-RPC message (MCP, LSP)?  Handles it if so. */
static int take_jsonrpc(struct run *r, struct span obj)
{
    struct span v, id, method, result, error, message = { NULL, NULL };
    if (!json_member(obj, "jsonrpc", &v) || !json_string_is(v, "2.0"))
        return 0;
    int has_id = json_member(obj, "id", &id);
    if (json_member(obj, "method", &method) && json_kind(method, '"')) {
        if (has_id) {
            r->server_requests++;
            answer_server_request(r, id, method);
        } else {
            r->notifications++;
        }
        return 1;
    }
    int is_result = json_member(obj, "result", &result);
    int is_error = json_member(obj, "error", &error);
    if (!has_id || is_result == is_error)
        return 0;
    if (is_error && json_kind(error, '{'))
        json_member(error, "message", &message);
    take_answer(r, obj, id, is_error, message);
    return 1;
}

/* A DAP message ("type", integer "seq")?  Handles it if so. */
static int take_dap(struct run *r, struct span obj)
{
    struct span type, seq, id, command, success, message = { NULL, NULL };
    if (!json_member(obj, "type", &type) || !json_member(obj, "seq", &seq) ||
        !(is_digit(*seq.p) || *seq.p == '-'))
        return 0;
    if (json_string_is(type, "event")) {
        r->notifications++;
        return 1;
    }
    if (json_string_is(type, "request")) {
        if (!json_member(obj, "command", &command))
            return 0;
        r->server_requests++;
        answer_server_request(r, seq, command);
        return 1;
    }
    if (!json_string_is(type, "response") || !json_member(obj, "request_seq", &id) ||
        !json_member(obj, "success", &success))
        return 0;
    json_member(obj, "message", &message);
    take_answer(r, obj, id, json_kind(success, 'f'), message);
    return 1;
}

/* Not protocol, but an answer to the waiting request all the same (its id,
 * and a result or an error)?  Then that request's answer is malformed. */
static void check_malformed_answer(struct run *r, struct span obj)
{
    struct span id, v;
    char text[40];
    const char *key = r->opt->protocol == PROTO_DAP ? "request_seq" : "id";
    if (r->waiting < 0 || !json_member(obj, key, &id))
        return;
    if (r->opt->protocol != PROTO_DAP && !json_member(obj, "result", &v) && !json_member(obj, "error", &v))
        return;
    copy_token(id, text, sizeof text);
    if (strcmp(text, r->req[r->waiting].id) == 0) {
        answered(r, OUT_MALFORMED);
        plan_rest(r, obj);
        send_next(r);
    }
}

/* One object of a message on the wire: a JSON-RPC 2.0 (or DAP) message is
 * handled; anything else on the wire is a malformed message. */
static void take_object(struct run *r, const char *p, const char *e)
{
    struct span obj;
    int ok = json_is_object(p, e, &obj);
    if (ok)
        ok = r->opt->protocol == PROTO_DAP ? take_dap(r, obj) : take_jsonrpc(r, obj);
    if (ok)
        return;
    r->malformed++;
    if (json_is_object(p, e, &obj))
        check_malformed_answer(r, obj);
}

/* A whole message passed the classifier: a line (an object, or a batch of
 * them) or a Content-Length frame. */
static void take_wire_message(struct run *r, const char *p, const char *e)
{
    r->messages++;
    if (r->phase == PHASE_BEFORE)
        r->phase = PHASE_SERVING;
    close_stretch(r);
    if (r->out.msg_overflow) {
        /* not read: taken for the answer it most likely is */
        r->oversized++;
        if (r->waiting >= 0) {
            answered(r, OUT_RESULT);
            send_next(r);
        }
        return;
    }
    if (r->opt->protocol != PROTO_MCP) {
        const char *body = memmem(p, (size_t)(e - p), "\r\n\r\n", 4);
        take_object(r, body ? body + 4 : e, e);
        return;
    }
    p = json_ws(p, e);
    if (p < e && *p == '[') {
        const char *end = json_value_end(p, e, 0);
        if (!end) {
            r->malformed++;
            return;
        }
        for (p = json_ws(p + 1, end); p < end && *p == '{';) {
            const char *q = json_value_end(p, end, 1);
            take_object(r, p, q);
            p = json_ws(q, end);
            if (p < end && *p == ',')
                p = json_ws(p + 1, end);
        }
        return;
    }
    take_object(r, p, e);
}

/* MCP junk, line by line: a line that is an answer to the waiting request
 * but not JSON-RPC (no "jsonrpc") is junk, and that request's answer. */
static void junk_line_bytes(struct run *r, const char *p, size_t n)
{
    struct out_stream *s = &r->out;
    while (n > 0) {
        const char *nl = memchr(p, '\n', n);
        size_t take = nl ? (size_t)(nl - p) : n;
        if (s->line_len + take > SG_HOLD_MAX)
            s->line_overflow = 1;
        else if (!s->line_overflow)
            memcpy(s->line + s->line_len, p, take);
        s->line_len += take;
        if (!nl)
            return;
        if (!s->line_overflow) {
            struct span obj;
            if (json_is_object(s->line, s->line + s->line_len, &obj))
                check_malformed_answer(r, obj);
        }
        s->line_len = 0;
        s->line_overflow = 0;
        p = nl + 1;
        n -= take + 1;
    }
}

/* The classifier decided the bytes in piece: junk, or more of a message. */
static void piece_decided(struct run *r, enum sg_verdict verdict)
{
    struct out_stream *s = &r->out;
    if (verdict == SG_JUNK) {
        add_junk(r, s->piece_phase, s->piece_start, s->piece_len, s->piece,
                 s->piece_len < HEAD_MAX ? s->piece_len : HEAD_MAX);
        if (r->opt->protocol == PROTO_MCP)
            junk_line_bytes(r, (const char *)s->piece, s->piece_len);
    } else {
        s->line_len = 0;
        s->line_overflow = 0;
        if (!s->in_msg) {
            s->in_msg = 1;
            s->msg_len = 0;
            s->msg_overflow = 0;
        }
        if (s->msg_len + s->piece_len > MESSAGE_MAX) {
            s->msg_overflow = 1;
        } else if (!s->msg_overflow) {
            if (s->msg_len + s->piece_len > s->msg_cap) {
                s->msg_cap = s->msg_len + s->piece_len > 2 * s->msg_cap ? s->msg_len + s->piece_len : 2 * s->msg_cap;
                s->msg = xrealloc(s->msg, s->msg_cap);
            }
            memcpy(s->msg + s->msg_len, s->piece, s->piece_len);
            s->msg_len += s->piece_len;
        }
        if (s->cls.where == SW_OUTSIDE) {
            s->in_msg = 0;
            take_wire_message(r, s->msg, s->msg + s->msg_len);
        }
    }
    s->piece_len = 0;
}

static void feed_stdout(struct run *r, const char *p, size_t n)
{
    struct out_stream *s = &r->out;
    while (n > 0) {
        enum sg_verdict verdict;
        size_t k = sg_stream_scan(&s->cls, (const unsigned char *)p, n, &verdict);
        if (s->piece_len == 0) {
            s->piece_start = s->offset;
            s->piece_phase = r->phase;
        }
        memcpy(s->piece + s->piece_len, p, k);  /* held bytes are at most SG_HOLD_MAX */
        s->piece_len += k;
        s->offset += k;
        p += k;
        n -= k;
        if (verdict != SG_UNDECIDED)
            piece_decided(r, verdict);
    }
}

/* stdout ended: what the classifier still holds is junk, and a message cut
 * short is malformed. */
static void end_stdout(struct run *r)
{
    struct out_stream *s = &r->out;
    if (s->eof)
        return;
    s->eof = 1;
    if (sg_stream_end(&s->cls) == SG_JUNK || s->piece_len)
        piece_decided(r, SG_JUNK);
    if (s->in_msg) {
        s->in_msg = 0;
        r->malformed++;
    }
    close_stretch(r);
}

static void read_stdout(struct run *r)
{
    static char buf[READ_SIZE];
    ssize_t n = read(r->out_fd, buf, sizeof buf);
    if (n > 0)
        feed_stdout(r, buf, (size_t)n);
    else if (n == 0 || (errno != EAGAIN && errno != EINTR))
        end_stdout(r);
}

/* A line of the server's stderr ended: the library's level-1 report of
 * startup output it could not deliver is counted (nothing lost, or said). */
static void stderr_line(struct run *r)
{
    static const char said[] = " bytes of startup output were dropped";
    char *p = r->err_line, *colon;
    r->err_line[r->err_line_len] = '\0';
    if (strncmp(p, "stdiogate[", 10) == 0 && (colon = strstr(p, "]: ")) && strstr(colon, said))
        r->dropped += strtoull(colon + 3, NULL, 10);
    r->err_line_len = 0;
}

static void scan_stderr(struct run *r, const char *p, size_t n)
{
    while (n > 0) {
        const char *nl = memchr(p, '\n', n);
        size_t take = nl ? (size_t)(nl - p) : n;
        size_t room = sizeof r->err_line - 1 - r->err_line_len;
        memcpy(r->err_line + r->err_line_len, p, take < room ? take : room);
        r->err_line_len += take < room ? take : room;
        if (!nl)
            return;
        stderr_line(r);
        p = nl + 1;
        n -= take + 1;
    }
}

static void read_stderr(struct run *r)
{
    static char buf[65536];
    ssize_t n = read(r->err_fd, buf, sizeof buf);
    if (n > 0) {
        scan_stderr(r, buf, (size_t)n);
        size_t keep = ERR_HEAD_MAX - r->err_head_len;
        if (keep > (size_t)n)
            keep = (size_t)n;
        memcpy(r->err_head + r->err_head_len, buf, keep);
        r->err_head_len += keep;
        r->err_bytes += (unsigned long long)n;
    } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        r->err_eof = 1;
    }
}

/* --- the process */

static void start_process(struct run *r)
{
    int in[2], out[2], err[2], status_pipe[2];
    int e = 0;
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) || pipe2(status_pipe, O_CLOEXEC))
        die(EXIT_USAGE, "pipe: %s", strerror(errno));
    r->t0 = now();
    r->pid = fork();
    if (r->pid < 0)
        die(EXIT_USAGE, "fork: %s", strerror(errno));
    if (r->pid == 0) {
        struct sigaction sa;
        int sigs[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGPIPE };
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = SIG_DFL;
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
            sigaction(sigs[i], &sa, NULL);
        setpgid(0, 0);
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(err[1], 2);
        execvp(r->argv[0], r->argv);
        e = errno;
        if (write(status_pipe[1], &e, sizeof e) < 0)
            _exit(127);
        _exit(127);
    }
    setpgid(r->pid, r->pid);  /* both sides, so that no kill(-pgid) misses it */
    close(in[0]);
    close(out[1]);
    close(err[1]);
    close(status_pipe[1]);
    r->in_fd = in[1];
    r->out_fd = out[0];
    r->err_fd = err[0];
    set_nonblock_cloexec(r->in_fd);
    set_nonblock_cloexec(r->out_fd);
    set_nonblock_cloexec(r->err_fd);
    while (read(status_pipe[0], &e, sizeof e) < 0 && errno == EINTR)
        ;
    close(status_pipe[0]);
    r->exec_errno = e;
    r->started = e == 0;
}

static void reap(struct run *r)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        if (pid == r->pid && !r->exited) {
            r->exited = 1;
            r->exited_early = !r->stdin_closed;
            r->status = status;
            r->exit_time = now() - r->t0;
        }
    }
}

/* Processes of this run still alive: in its process group, or orphans
 * handed to us (PR_SET_CHILD_SUBREAPER).  Kills them; returns how many,
 * and in *others how many of them are not the server's main process. */
/* Is pid one of stdiogate's own processes (stdiogate-filter, in strict or
 * drain mode, or the library's stdiogate-wait)?  Their names say so. */
static int is_ours(long pid)
{
    char path[64], comm[32] = "";
    FILE *f;
    snprintf(path, sizeof path, "/proc/%ld/comm", pid);
    if (!(f = fopen(path, "r")))
        return 0;
    int r = fgets(comm, sizeof comm, f) && strncmp(comm, "stdiogate-", 10) == 0;
    fclose(f);
    return r;
}

static int kill_remaining(const struct run *r, int *others)
{
    DIR *d = opendir("/proc");
    struct dirent *de;
    int count = 0;
    *others = 0;
    if (!d)
        return 0;
    while ((de = readdir(d))) {
        char path[64], line[512];
        FILE *f;
        char *close_paren, state;
        long pid = strtol(de->d_name, NULL, 10), ppid, pgrp;
        if (pid <= 0 || pid == (long)getpid())
            continue;
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        if (!(f = fopen(path, "r")))
            continue;
        if (!fgets(line, sizeof line, f)) {
            fclose(f);
            continue;
        }
        fclose(f);
        if (!(close_paren = strrchr(line, ')')) ||
            sscanf(close_paren + 1, " %c %ld %ld", &state, &ppid, &pgrp) != 3 || state == 'Z')
            continue;
        if (pgrp == (long)r->pid || ppid == (long)getpid()) {
            kill((pid_t)pid, SIGKILL);
            count++;
            /* stdiogate's own helpers (the filter, the helper and the
             * process waiting for it) are not the server's leftovers */
            *others += pid != (long)r->pid && !is_ours(pid);
        }
    }
    closedir(d);
    return count;
}

/* The end of a run: nothing of it may survive the check. */
static void finish_process(struct run *r)
{
    if (!r->started)
        return;
    if (!r->exited) {
        kill(-r->pid, SIGKILL);
        kill(r->pid, SIGKILL);
        r->killed_by_check = 1;
    }
    for (int round = 0; round < 200; round++) {
        int others, n = kill_remaining(r, &others);
        struct timespec pause = { 0, 10000000L };
        if (round == 0)
            r->leftovers = others;  /* the main process was reported on its own */
        reap(r);
        if (n == 0 && r->exited)
            break;
        nanosleep(&pause, NULL);
    }
    end_stdout(r);
    close_stdin(r);
    close(r->out_fd);
    close(r->err_fd);
    free(r->out.piece);
    free(r->out.line);
    free(r->out.msg);
    free(r->wq);
    for (int i = 0; i < r->nitems; i++)
        free(r->items[i].frame);
}

/* --- the run's clock */

static void begin_closing(struct run *r)
{
    close_stdin(r);
    r->phase = PHASE_EXIT;
    r->state = S_CLOSING;
    r->deadline = now() + r->opt->timeout;
}

/* A server that closed its stdout is often exiting: tell which, waiting at
 * most this long. */
static void await_exit(struct run *r, double seconds)
{
    double end = now() + seconds;
    unsigned char sig[64];
    reap(r);
    while (!r->exited && now() < end) {
        struct pollfd p = { .fd = signal_pipe[0], .events = POLLIN };
        poll(&p, 1, (int)((end - now()) * 1000) + 1);
        while (read(signal_pipe[0], sig, sizeof sig) > 0)
            ;
        reap(r);
    }
}

/* Moves the run on; returns 1 if its state changed. */
static int advance(struct run *r)
{
    double t = now();
    switch (r->state) {
    case S_SESSION:
        if (r->waiting < 0) {
            r->state = S_LINGER;
            r->deadline = t + r->opt->linger;
            return 1;
        }
        if (r->out.eof || t >= r->deadline) {
            struct request *q = &r->req[r->waiting];
            if (r->out.eof)
                await_exit(r, 1);
            q->outcome = OUT_NONE;
            if (r->out.eof) {
                snprintf(q->seen_id, sizeof q->seen_id, "stdout closed");
                r->closed_alive = !r->exited && r->first_answer < 0;
            } else {
                snprintf(q->seen_id, sizeof q->seen_id, "timeout");
                r->answer_timeout = 1;
            }
            r->waiting = -1;
            begin_closing(r);
            return 1;
        }
        return 0;
    case S_LINGER:
        if (t >= r->deadline || (r->exited && r->out.eof && r->err_eof)) {
            begin_closing(r);
            return 1;
        }
        return 0;
    case S_CLOSING:
        if (r->exited) {
            r->state = S_DRAIN;
            r->deadline = t + (r->opt->timeout < 2 ? r->opt->timeout : 2);
            return 1;
        }
        if (t < r->deadline)
            return 0;
        if (!r->term_sent) {
            r->exit_timeout = 1;
            r->term_sent = 1;
            r->killed_by_check = 1;
            kill(-r->pid, SIGTERM);
            r->deadline = t + 1;
        } else if (!r->kill_sent) {
            r->kill_sent = 1;
            kill(-r->pid, SIGKILL);
            kill(r->pid, SIGKILL);
            r->deadline = t + 5;
        } else {
            r->state = S_DONE;
        }
        return 1;
    case S_DRAIN:
        if ((r->out.eof && r->err_eof) || t >= r->deadline) {
            r->state = S_DONE;
            return 1;
        }
        return 0;
    default:
        return 0;
    }
}

static int poll_timeout_ms(const struct run *r)
{
    double left = (r->deadline - now()) * 1000 + 1;
    return left < 0 ? 0 : left > 60000 ? 60000 : (int)left;
}

static void drive(struct run *r)
{
    plan_session(r);
    r->out.piece = xrealloc(NULL, PIECE_MAX);
    r->out.line = xrealloc(NULL, SG_HOLD_MAX);
    sg_stream_init(&r->out.cls, r->opt->protocol == PROTO_MCP ? SG_JSONL : SG_FRAMED);
    start_process(r);
    if (!r->started) {
        r->exited = 1;
        reap(r);
        close_stdin(r);
        close(r->out_fd);
        close(r->err_fd);
        return;
    }
    r->state = S_SESSION;
    r->phase = PHASE_BEFORE;
    r->first_answer = -1;
    send_next(r);
    while (r->state != S_DONE && !interrupted) {
        struct pollfd fds[4];
        int nfds = 0, out = -1, err = -1, in = -1;
        unsigned char sig[64];
        fds[nfds++] = (struct pollfd){ .fd = signal_pipe[0], .events = POLLIN };
        if (!r->out.eof) {
            out = nfds;
            fds[nfds++] = (struct pollfd){ .fd = r->out_fd, .events = POLLIN };
        }
        if (!r->err_eof) {
            err = nfds;
            fds[nfds++] = (struct pollfd){ .fd = r->err_fd, .events = POLLIN };
        }
        if (!r->stdin_closed && r->wq_off < r->wq_len) {
            in = nfds;
            fds[nfds++] = (struct pollfd){ .fd = r->in_fd, .events = POLLOUT };
        }
        if (poll(fds, (nfds_t)nfds, poll_timeout_ms(r)) < 0 && errno != EINTR)
            die(EXIT_USAGE, "poll: %s", strerror(errno));
        while (read(signal_pipe[0], sig, sizeof sig) > 0)
            ;
        reap(r);
        if (out >= 0 && fds[out].revents)
            read_stdout(r);
        if (err >= 0 && fds[err].revents)
            read_stderr(r);
        if (in >= 0 && fds[in].revents)
            flush_queue(r);
        while (advance(r))
            ;
    }
    finish_process(r);
}

/* ------------------------------------------------------------------ */
/* Judging the runs */

static int protocol_errors(const struct run *r)
{
    int n = (int)(r->stray + r->malformed);
    for (int i = 0; i < r->nreq; i++)
        if (r->req[i].outcome == OUT_NONE || r->req[i].outcome == OUT_WRONG_ID ||
            r->req[i].outcome == OUT_MALFORMED)
            n++;
    return n;
}

static unsigned long long junk_bytes(const struct run *r)
{
    return r->junk[0] + r->junk[1] + r->junk[2];
}

/* Started, but exited or closed stdout before any answer (not a timeout). */
static int died_before_answering(const struct run *r)
{
    return !r->started || (r->first_answer < 0 && !r->answer_timeout);
}

static int run_clean(const struct run *r)
{
    return !r->skipped && r->started && !died_before_answering(r) && junk_bytes(r) == 0 &&
           protocol_errors(r) == 0;
}

struct verdict {
    int status;
    const struct run *fixed_by;   /* the weakest clean run, or NULL */
    char summary[400];
    char advice[400];
    char notes[2][200];     /* a stronger mode broke what a weaker one ran clean */
    int nnotes;
};

/* Do no harm: every run after the weakest clean one should be clean too. */
static void harm_notes(const struct run *runs, int nruns, struct verdict *v)
{
    int after = 0;
    for (int i = 0; i < nruns && v->nnotes < 2; i++) {
        if (&runs[i] == v->fixed_by)
            after = 1;
        else if (after && !runs[i].skipped && !run_clean(&runs[i]))
            snprintf(v->notes[v->nnotes++], sizeof v->notes[0],
                     "the %s run was not clean although the %s one was: please report it", runs[i].title,
                     v->fixed_by->title);
    }
}

/* "N bytes of non-protocol output (A before the first message, B at exit)" */
static void describe_junk(const struct run *u, char *out, size_t cap)
{
    size_t k = (size_t)snprintf(out, cap, "%llu bytes of non-protocol output (", junk_bytes(u));
    const char *sep = "";
    for (int phase = PHASE_BEFORE; phase <= PHASE_EXIT && k < cap; phase++) {
        if (u->junk[phase] == 0)
            continue;
        k += (size_t)snprintf(out + k, cap - k, "%s%llu %s", sep, u->junk[phase], phase_words[phase]);
        sep = ", ";
    }
    if (k < cap)
        snprintf(out + k, cap - k, ")");
}

/* Why the default gate cannot keep it all off: the program's own stdout is
 * not guarded (sg_inspect), or the junk comes after the first message. */
static const char *gate_shortfall(const struct run *u, const struct program_facts *facts)
{
    static const unsigned unguarded = SG_SETUID | SG_SETGID | SG_CAPABILITIES | SG_DOCKER | SG_FOREIGN_LOADER |
                                      SG_STATIC | SG_GO | SG_BUN;
    if (facts->known && (facts->in.findings & unguarded))
        return "the library cannot guard this program's own stdout (see the warning above)";
    if (u->junk[PHASE_SERVING] || u->junk[PHASE_EXIT])
        return "the default gate guards only what comes before the first message";
    return "the default gate lets it through";
}

static void judge(const struct run *runs, int nruns, int found, const char *not_found,
                  const struct program_facts *facts, struct verdict *v)
{
    const struct run *u = &runs[0];
    int all_errors = 1;
    char junk[200];
    memset(v, 0, sizeof *v);
    describe_junk(u, junk, sizeof junk);
    if (!found) {
        v->status = 4;
        snprintf(v->summary, sizeof v->summary, "the server could not be started: %s", not_found);
        snprintf(v->advice, sizeof v->advice, "check COMMAND and PATH; no stdiogate mode can help");
        return;
    }
    for (int i = 0; i < nruns; i++) {
        if (run_clean(&runs[i])) {
            v->fixed_by = &runs[i];
            break;
        }
    }
    harm_notes(runs, nruns, v);
    if (v->fixed_by == u) {
        v->status = 0;
        snprintf(v->summary, sizeof v->summary, "clean: nothing but protocol on stdout, every request answered");
        snprintf(v->advice, sizeof v->advice, "no change needed");
    } else if (v->fixed_by && strcmp(v->fixed_by->mode, "gated") == 0) {
        v->status = 1;
        snprintf(v->summary, sizeof v->summary, "%s; the default gate keeps them off the wire", junk);
        snprintf(v->advice, sizeof v->advice, "run it under stdiogate");
    } else if (v->fixed_by) {
        v->status = 2;
        snprintf(v->summary, sizeof v->summary, "%s; %s; --strict keeps them off the wire", junk,
                 gate_shortfall(u, facts));
        snprintf(v->advice, sizeof v->advice, "run it under stdiogate --strict");
    } else if (died_before_answering(u)) {
        v->status = 4;
        if (!u->started)
            snprintf(v->summary, sizeof v->summary, "the server could not be started: %s", strerror(u->exec_errno));
        else if (u->closed_alive)
            snprintf(v->summary, sizeof v->summary, "the server closed its stdout before it answered");
        else
            snprintf(v->summary, sizeof v->summary, "the server exited before it answered");
        snprintf(v->advice, sizeof v->advice, "look at its stderr and its arguments; no stdiogate mode can help");
    } else {
        for (int i = 0; i < nruns; i++)
            if (!runs[i].skipped && protocol_errors(&runs[i]) == 0)
                all_errors = 0;
        if (all_errors) {
            v->status = 3;
            snprintf(v->summary, sizeof v->summary, "protocol errors in every run (%s)",
                     u->answer_timeout ? "a request got no answer within the timeout"
                                       : "missing answers, wrong ids or malformed answers");
            if (u->answer_timeout)
                snprintf(v->advice, sizeof v->advice,
                         "a bug in the server, or it needs more than %gs (try a longer --timeout); "
                         "no stdiogate mode fixes it", u->opt->timeout);
            else
                snprintf(v->advice, sizeof v->advice, "a bug in the server; no stdiogate mode fixes it");
        } else {
            v->status = 2;
            snprintf(v->summary, sizeof v->summary, "%s; %s, and no other installed mode keeps them off the wire",
                     junk, gate_shortfall(u, facts));
            snprintf(v->advice, sizeof v->advice, "%s",
                     runs[nruns - 1].skipped || strcmp(runs[nruns - 1].mode, "strict") != 0
                         ? "strict mode (stdiogate-filter) is not installed; the server has to stop writing it"
                         : "the server has to stop writing it");
        }
    }
}

/* ------------------------------------------------------------------ */
/* Reports */

static double ms(double seconds)
{
    return seconds * 1000.0;
}

static void describe_exit(const struct run *r, char *out, size_t cap)
{
    if (!r->started)
        snprintf(out, cap, "not started: %s", strerror(r->exec_errno));
    else if (r->exit_timeout)
        snprintf(out, cap, "did not exit within %gs after its stdin was closed: killed", r->opt->timeout);
    else if (!r->exited || r->killed_by_check)
        snprintf(out, cap, "killed by the check");
    else if (WIFEXITED(r->status))
        snprintf(out, cap, "exited with status %d%s", WEXITSTATUS(r->status),
                 r->exited_early ? " before its stdin was closed" : "");
    else if (WIFSIGNALED(r->status))
        snprintf(out, cap, "killed by signal %d (%s)", WTERMSIG(r->status), strsignal(WTERMSIG(r->status)));
    else
        snprintf(out, cap, "ended");
}

static void put_argv_text(char **argv)
{
    for (int i = 0; argv[i]; i++) {
        const char *a = argv[i];
        int plain = *a != '\0';
        for (const char *c = a; *c; c++)
            if (!(strchr("-_./=:,+@%", *c) || (*c >= '0' && *c <= '9') || ((*c | 32) >= 'a' && (*c | 32) <= 'z')))
                plain = 0;
        printf("%s", i ? " " : "");
        if (plain) {
            fputs(a, stdout);
        } else {
            putchar('\'');
            for (const char *c = a; *c; c++)
                *c == '\'' ? fputs("'\\''", stdout) : putchar(*c);
            putchar('\'');
        }
    }
}

static void put_json_argv(char **argv, int skip_first)
{
    putchar('[');
    for (int i = skip_first; argv[i]; i++) {
        if (i > skip_first)
            fputs(", ", stdout);
        put_json_string(argv[i]);
    }
    putchar(']');
}

/* The configuration that fixes it: argv of the client's server entry. */
static char **fix_argv(const struct options *o, const struct verdict *v, char **scratch, size_t cap)
{
    size_t k = 0;
    if (!v->fixed_by)
        return NULL;
    if (strcmp(v->fixed_by->mode, "unwrapped") != 0) {
        scratch[k++] = "stdiogate";
        if (strcmp(v->fixed_by->mode, "strict") == 0) {
            scratch[k++] = "--strict";
            scratch[k++] = "--protocol";
            scratch[k++] = o->protocol == PROTO_MCP ? "jsonl" : "framed";
        }
        if (o->command[0][0] == '-')
            scratch[k++] = "--";
    }
    for (int i = 0; o->command[i] && k + 1 < cap; i++)
        scratch[k++] = o->command[i];
    scratch[k] = NULL;
    return scratch;
}

static void text_run(const struct run *r, int index)
{
    char buf[HEAD_MAX * 4 + 8], exit_text[200];
    printf("\nrun %d, %s: ", index + 1, r->title);
    if (r->skipped) {
        printf("not run: %s\n", r->note);
        return;
    }
    put_argv_text(r->argv);
    putchar('\n');
    if (!r->started) {
        printf("  could not start: %s\n", strerror(r->exec_errno));
        return;
    }
    if (r->out.offset == 0) {
        printf("  stdout: nothing\n");
    } else if (junk_bytes(r) == 0) {
        printf("  stdout: protocol only, %llu message%s\n", r->messages, r->messages == 1 ? "" : "s");
    } else {
        int stretches = r->nst + (int)r->more_stretches;
        printf("  stdout: %llu bytes of non-protocol output in %d stretch%s, %llu protocol message%s\n",
               junk_bytes(r), stretches, stretches == 1 ? "" : "es", r->messages, r->messages == 1 ? "" : "s");
        unsigned long long more = r->more_stretches, more_bytes = r->more_bytes;
        for (int i = 0; i < r->nst; i++) {
            const struct stretch *s = &r->st[i];
            if (i >= TEXT_STRETCHES) {
                more++;
                more_bytes += s->length;
                continue;
            }
            escape_bytes(s->head, s->head_len, buf, sizeof buf);
            printf("    %s, offset %llu, %llu bytes: \"%s\"%s\n", phase_words[s->phase], s->offset, s->length,
                   buf, s->length > s->head_len ? "..." : "");
        }
        if (more)
            printf("    ... and %llu more stretch%s (%llu bytes), not listed\n", more, more == 1 ? "" : "es",
                   more_bytes);
    }
    if (r->oversized)
        printf("  (%llu messages over %u MiB were not read: taken as answers)\n", r->oversized, MESSAGE_MAX >> 20);
    printf("  answers:");
    for (int i = 0; i < r->nreq; i++) {
        const struct request *q = &r->req[i];
        printf("%s %s %s: ", i ? "," : "", q->method, q->id);
        switch (q->outcome) {
        case OUT_RESULT: printf("answered"); break;
        case OUT_ERROR: printf("error answer%s%s%s", *q->error ? " (" : "", q->error, *q->error ? ")" : ""); break;
        case OUT_NONE: printf("NO ANSWER (%s)", q->seen_id); break;
        case OUT_WRONG_ID: printf("WRONG ID %s", q->seen_id); break;
        case OUT_MALFORMED: printf("MALFORMED ANSWER (not %s)", r->opt->protocol == PROTO_DAP ? "DAP" : "JSON-RPC 2.0"); break;
        default: printf("not sent"); break;
        }
    }
    putchar('\n');
    if (r->stray)
        printf("  %llu answers to requests never made\n", r->stray);
    if (r->malformed)
        printf("  %llu message%s on the wire that %s not %s\n", r->malformed, r->malformed == 1 ? "" : "s",
               r->malformed == 1 ? "is" : "are", r->opt->protocol == PROTO_DAP ? "DAP" : "JSON-RPC 2.0");
    if (r->server_requests)
        printf("  %llu requests from the server (answered: not supported)\n", r->server_requests);
    describe_exit(r, exit_text, sizeof exit_text);
    if (r->first_answer >= 0)
        printf("  first answer after %.1f ms; ", ms(r->first_answer));
    else
        printf("  no answer; ");
    printf("stderr %llu bytes; %s\n", r->err_bytes, exit_text);
    if (r->dropped)
        printf("  stdiogate dropped %llu bytes of startup output it could not write to stderr\n", r->dropped);
    if (r->leftovers)
        printf("  left %d process%s running: killed\n", r->leftovers, r->leftovers == 1 ? "" : "es");
    if (died_before_answering(r) && r->err_head_len) {
        escape_bytes(r->err_head, r->err_head_len < 120 ? r->err_head_len : 120, buf, sizeof buf);
        printf("  stderr begins: \"%s\"%s\n", buf, r->err_bytes > 120 ? "..." : "");
    }
}

static void text_report(const struct options *o, const char *program, const struct program_facts *facts,
                        const struct run *runs, int nruns, const struct verdict *v)
{
    char *scratch[64];
    char **fix = fix_argv(o, v, scratch, 64);
    printf("stdiogate --check (%s, timeout %gs, linger %gs): ", protocol_titles[o->protocol], o->timeout, o->linger);
    put_argv_text(o->command);
    putchar('\n');
    printf("program: %s: %s\n", program, facts->note);
    for (size_t i = 0; facts->known && i < NFINDINGS; i++) {
        char line[3 * SG_PATH_SIZE];
        if (!(facts->in.findings & finding_bits[i]))
            continue;
        sg_warning(&facts->in, finding_bits[i], line, sizeof line);
        printf("  stdiogate: warning: %s\n", line);
    }
    for (int i = 0; i < nruns; i++)
        text_run(&runs[i], i);
    printf("\nverdict (exit status %d): %s.\n", v->status, v->summary);
    for (int i = 0; i < v->nnotes; i++)
        printf("note: %s\n", v->notes[i]);
    printf("%s%s\n", v->advice, fix ? ":" : ".");
    if (fix) {
        printf("  \"command\": ");
        put_json_string(fix[0]);
        printf(", \"args\": ");
        put_json_argv(fix, 1);
        putchar('\n');
    }
}

static void json_number_or_null(double seconds)
{
    if (seconds < 0)
        fputs("null", stdout);
    else
        printf("%.3f", ms(seconds));
}

static void json_run(const struct run *r)
{
    char buf[HEAD_MAX * 4 + 8], exit_text[200];
    printf("{\"mode\": \"%s\", \"argv\": ", r->mode);
    put_json_argv(r->argv, 0);
    printf(", \"ran\": %s, \"note\": ", r->skipped ? "false" : "true");
    put_json_string(r->skipped ? r->note : NULL);
    if (r->skipped) {
        fputs("}", stdout);
        return;
    }
    printf(",\n     \"started\": %s, \"start_error\": ", r->started ? "true" : "false");
    put_json_string(r->started ? NULL : strerror(r->exec_errno));
    printf(", \"clean\": %s, \"protocol_errors\": %d,\n", run_clean(r) ? "true" : "false", protocol_errors(r));
    printf("     \"stdout\": {\"bytes\": %llu, \"messages\": %llu, \"notifications\": %llu, "
           "\"server_requests\": %llu, \"junk_bytes\": %llu,\n",
           r->out.offset, r->messages, r->notifications, r->server_requests, junk_bytes(r));
    printf("       \"junk\": {\"before_first_message\": %llu, \"serving\": %llu, \"at_exit\": %llu},\n",
           r->junk[0], r->junk[1], r->junk[2]);
    printf("       \"stretches\": [");
    for (int i = 0; i < r->nst; i++) {
        const struct stretch *s = &r->st[i];
        escape_bytes(s->head, s->head_len, buf, sizeof buf);
        printf("%s\n         {\"phase\": \"%s\", \"offset\": %llu, \"length\": %llu, \"first_bytes\": ",
               i ? "," : "", phase_keys[s->phase], s->offset, s->length);
        put_json_string(buf);
        printf("}");
    }
    printf("],\n       \"stretches_omitted\": %llu, \"bytes_omitted\": %llu, \"oversized\": %llu, "
           "\"malformed_messages\": %llu, \"closed\": %s},\n",
           r->more_stretches, r->more_bytes, r->oversized, r->malformed, r->out.eof ? "true" : "false");
    printf("     \"requests\": [");
    for (int i = 0; i < r->nreq; i++) {
        const struct request *q = &r->req[i];
        printf("%s\n       {\"method\": \"%s\", \"id\": ", i ? "," : "", q->method);
        put_json_string(q->id);
        printf(", \"outcome\": \"%s\", \"answered\": %s, \"ms\": ", outcome_keys[q->outcome],
               q->outcome == OUT_RESULT || q->outcome == OUT_ERROR ? "true" : "false");
        json_number_or_null(q->outcome >= OUT_RESULT && q->outcome != OUT_NONE ? q->answered - q->sent : -1);
        printf(", \"seen_id\": ");
        put_json_string(q->outcome == OUT_WRONG_ID ? q->seen_id : NULL);
        printf(", \"reason\": ");
        put_json_string(q->outcome == OUT_NONE ? q->seen_id : NULL);
        printf(", \"error\": ");
        put_json_string(q->outcome == OUT_ERROR ? q->error : NULL);
        printf("}");
    }
    printf("],\n     \"stray_answers\": %llu, \"first_answer_ms\": ", r->stray);
    json_number_or_null(r->first_answer);
    printf(",\n     \"stderr\": {\"bytes\": %llu, \"dropped_by_stdiogate\": %llu, \"first_bytes\": ",
           r->err_bytes, r->dropped);
    escape_bytes(r->err_head, r->err_head_len < HEAD_MAX ? r->err_head_len : HEAD_MAX, buf, sizeof buf);
    put_json_string(buf);
    describe_exit(r, exit_text, sizeof exit_text);
    printf("},\n     \"exit\": {\"status\": ");
    if (r->exited && !r->killed_by_check && WIFEXITED(r->status))
        printf("%d", WEXITSTATUS(r->status));
    else
        fputs("null", stdout);
    printf(", \"signal\": ");
    if (r->exited && WIFSIGNALED(r->status))
        printf("%d", WTERMSIG(r->status));
    else
        fputs("null", stdout);
    printf(", \"killed_by_check\": %s, \"answer_timeout\": %s, \"exit_timeout\": %s, "
           "\"before_stdin_closed\": %s, \"leftover_processes\": %d, \"text\": ",
           r->killed_by_check ? "true" : "false", r->answer_timeout ? "true" : "false",
           r->exit_timeout ? "true" : "false", r->exited_early ? "true" : "false", r->leftovers);
    put_json_string(exit_text);
    printf("}}");
}

static void json_report(const struct options *o, const char *program, const struct program_facts *facts,
                        const struct run *runs, int nruns, const struct verdict *v, int strict_available)
{
    char *scratch[64];
    char **fix = fix_argv(o, v, scratch, 64);
    struct rusage ru;
    printf("{\"stdiogate_check\": 1, \"version\": \"%s\",\n", STDIOGATE_VERSION);
    printf(" \"command\": ");
    put_json_argv(o->command, 0);
    printf(", \"protocol\": \"%s\", \"timeout\": %g, \"linger\": %g, \"call\": ", protocol_names[o->protocol],
           o->timeout, o->linger);
    put_json_string(o->call);
    printf(",\n \"program\": {\"path\": ");
    put_json_string(program);
    printf(", \"inspected\": %s, \"text\": ", facts->known ? "true" : "false");
    put_json_string(facts->note);
    for (size_t i = 0; i < NFINDINGS; i++)
        printf(", \"%s\": %s", finding_keys[i], facts->in.findings & finding_bits[i] ? "true" : "false");
    printf(", \"musl\": %s", facts->known && strstr(facts->in.interp, "musl") ? "true" : "false");
    printf(",\n   \"script_interpreter\": ");
    put_json_string(facts->in.script[0] ? facts->in.program : NULL);
    printf(", \"elf_interpreter\": ");
    put_json_string(facts->in.interp[0] ? facts->in.interp : NULL);
    printf(", \"launcher\": ");
    put_json_string(facts->launcher);
    printf(", \"warnings\": [");
    for (size_t i = 0, n = 0; facts->known && i < NFINDINGS; i++) {
        char line[3 * SG_PATH_SIZE];
        if (!(facts->in.findings & finding_bits[i]))
            continue;
        sg_warning(&facts->in, finding_bits[i], line, sizeof line);
        printf("%s", n++ ? ", " : "");
        put_json_string(line);
    }
    printf("]},\n \"strict_available\": %s,\n \"runs\": [", strict_available ? "true" : "false");
    for (int i = 0; i < nruns; i++) {
        printf("%s\n    ", i ? "," : "");
        json_run(&runs[i]);
    }
    printf("],\n \"verdict\": {\"status\": %d, \"fixed_by\": ", v->status);
    put_json_string(v->fixed_by ? v->fixed_by->mode : NULL);
    printf(", \"summary\": ");
    put_json_string(v->summary);
    printf(", \"advice\": ");
    put_json_string(v->advice);
    printf(", \"notes\": [");
    for (int i = 0; i < v->nnotes; i++) {
        printf("%s", i ? ", " : "");
        put_json_string(v->notes[i]);
    }
    printf("],\n   \"config\": ");
    if (fix) {
        printf("{\"command\": ");
        put_json_string(fix[0]);
        printf(", \"args\": ");
        put_json_argv(fix, 1);
        printf("}");
    } else {
        fputs("null", stdout);
    }
    getrusage(RUSAGE_SELF, &ru);
    printf("},\n \"self\": {\"max_rss_kib\": %ld}}\n", ru.ru_maxrss);
}

/* ------------------------------------------------------------------ */
/* The check */

static char **make_argv(const char *first, const char *const *extra, char **command)
{
    int n = 0, k = 0;
    char **argv;
    while (command[n])
        n++;
    argv = xrealloc(NULL, sizeof *argv * (size_t)(n + 8));
    if (first)
        argv[k++] = (char *)first;
    for (; extra && *extra; extra++)
        argv[k++] = (char *)*extra;
    for (int i = 0; i < n; i++)
        argv[k++] = command[i];
    argv[k] = NULL;
    return argv;
}

static int check_main(int argc, char **argv)
{
    struct options o;
    struct run runs[3];
    struct program_facts facts;
    struct verdict v;
    char program[PATH_MAX], dir[PATH_MAX], filter[PATH_MAX + 32], wrapper_path[PATH_MAX + 32];
    const char *not_found = NULL;
    int nruns = 0, found, strict_available;
    const char *plain_extra[] = { "--", NULL };
    const char *strict_extra[] = { "--strict", "--protocol", NULL, "--", NULL };

    parse_check_options(argc, argv, &o);
    /* a closed standard descriptor would be taken by a server's pipe */
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
            die(EXIT_USAGE, "cannot open /dev/null");
    own_directory(dir, sizeof dir);
    if (!o.wrapper) {
        snprintf(wrapper_path, sizeof wrapper_path, "%s/stdiogate", dir);
        o.wrapper = wrapper_path;
    }
    if (access(o.wrapper, X_OK) != 0)
        die(EXIT_USAGE, "cannot find the stdiogate wrapper (%s): run this as 'stdiogate --check'", o.wrapper);
    snprintf(filter, sizeof filter, "%s/stdiogate-filter", dir);
    strict_available = access(filter, X_OK) == 0;
    strict_extra[2] = o.protocol == PROTO_MCP ? "jsonl" : "framed";

    switch (resolve_command(o.command[0], program, sizeof program)) {
    case 127:
        not_found = "command not found";
        break;
    case 126:
        not_found = "permission denied (not executable)";
        break;
    default:
        break;
    }
    found = not_found == NULL;
    if (found) {
        inspect_program(o.command[0], program, &facts);
    } else {
        memset(&facts, 0, sizeof facts);
        snprintf(facts.note, sizeof facts.note, "%s", not_found);
    }
    if (!found)
        snprintf(program, sizeof program, "%s", o.command[0]);

    install_signals();
    memset(runs, 0, sizeof runs);
    runs[0].mode = "unwrapped";
    runs[0].title = "unwrapped";
    runs[0].argv = make_argv(NULL, NULL, o.command);
    runs[1].mode = "gated";
    runs[1].title = "default gate";
    runs[1].argv = make_argv(o.wrapper, plain_extra, o.command);
    runs[2].mode = "strict";
    runs[2].title = "--strict";
    runs[2].argv = make_argv(o.wrapper, strict_extra, o.command);
    nruns = 3;
    for (int i = 0; i < nruns; i++) {
        struct run *r = &runs[i];
        r->opt = &o;
        r->waiting = -1;
        r->first_answer = -1;
        if (!found) {
            r->skipped = 1;
            snprintf(r->note, sizeof r->note, "%s: %s", o.command[0], not_found);
        } else if (i == 2 && !strict_available) {
            r->skipped = 1;
            snprintf(r->note, sizeof r->note, "strict mode is not installed (no %s)", filter);
        } else if (!interrupted) {
            drive(r);
        }
    }
    if (interrupted) {
        fprintf(stderr, "stdiogate --check: interrupted; the server's processes were killed\n");
        signal((int)interrupted, SIG_DFL);
        raise((int)interrupted);
        return 128 + (int)interrupted;
    }
    judge(runs, nruns, found, not_found, &facts, &v);
    if (o.json)
        json_report(&o, program, &facts, runs, nruns, &v, strict_available);
    else
        text_report(&o, program, &facts, runs, nruns, &v);
    fflush(stdout);
    return v.status;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--inspect") == 0)
        return inspect(argv[2], 0);
    if (argc == 6 && strcmp(argv[1], "--wrapper") == 0)
        return wrapper(argv[2], argv[3], argv[4], argv[5], 0);
    if (argc == 7 && strcmp(argv[1], "--wrapper") == 0 && strcmp(argv[6], "--strict") == 0)
        return wrapper(argv[2], argv[3], argv[4], argv[5], 1);
    if (argc == 3 && strcmp(argv[1], "--environment") == 0)
        return environment(argv[2]);
    if (argc >= 2 && strcmp(argv[1], "--check") == 0)
        return check_main(argc - 2, argv + 2);
    fprintf(stderr, "Usage: stdiogate-check --inspect PATH\n"
                    "       stdiogate-check --wrapper PID VERBOSITY LIBRARY PATH [--strict]\n"
                    "       stdiogate-check --environment PID\n"
                    "       stdiogate-check --check [OPTION]... [--] COMMAND [ARG]... (stdiogate --check)\n");
    return 125;
}
