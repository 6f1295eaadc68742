/* SPDX-License-Identifier: MIT */
/* check/wrapper.c - stdiogate-check --inspect, --wrapper and --environment:
 * what the wrapper runs before it execs COMMAND (check/main.c's comment). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "../common/junk.h"
#include "../common/stderr.h"

extern char **environ;

static struct stat g_wire;          /* the wire, once wire_identity has found it */
static int g_wire_known;

/* line onto stderr, never waiting for room: a stderr nobody reads must not
 * hold up the server (a blocking write would stop the wrapper before it
 * execs COMMAND).  A socket: MSG_DONTWAIT; a pipe or a terminal: our own
 * non-blocking handle (fd 2 where none opens); a file: fd 2.  A poll first:
 * POLLERR is a reader gone, where a write would raise SIGPIPE (--inspect
 * keeps its default).  On a full stderr the line is dropped (a pipe takes a
 * line shorter than PIPE_BUF whole or not at all) or cut (a terminal). */
static void put_line(const char *line, size_t n)
{
    struct stat st;
    if (fstat(2, &st) != 0)
        return;
    if (g_wire_known && st.st_dev == g_wire.st_dev && st.st_ino == g_wire.st_ino && !S_ISCHR(st.st_mode))
        return;     /* stderr is the wire (2>&1), not a person's terminal: nothing of ours on it */
    if (S_ISSOCK(st.st_mode)) {
        while (send(2, line, n, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 && errno == EINTR)
            ;
        return;
    }
    int own = S_ISFIFO(st.st_mode) || isatty(2) ? sg_stderr_reopen(3) : -1;
    struct pollfd p = { .fd = own >= 0 ? own : 2, .events = POLLOUT };
    if (poll(&p, 1, 0) == 1 && (p.revents & POLLOUT) && !(p.revents & (POLLERR | POLLHUP)))
        while (write(p.fd, line, n) < 0 && errno == EINTR)
            ;
    if (own >= 0)
        close(own);
}

/* A line of ours on stderr, if it has room (put_line). */
__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
    char line[PIPE_BUF];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line) {   /* a path of thousands of bytes */
        n = sizeof line - 1;
        line[n - 1] = '\n';
    }
    put_line(line, (size_t)n);
}

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

/* The warning for r, unless quiet (under --strict the filter guards what
 * the library cannot, and the warning recommends --strict); the status of
 * --inspect. */
static int warn(const struct sg_inspection *r, int quiet)
{
    char line[3 * SG_PATH_SIZE];
    unsigned finding = main_finding(r->findings);
    if (!finding)
        return 0;
    sg_warning(r, finding, line, sizeof line);
    if (!quiet)
        say("stdiogate: warning: %s\n", line);
    return sg_drop_library(r) ? 2 : 1;
}

int inspect(const char *path, int quiet)
{
    static struct sg_inspection r;
    return sg_inspect(path, &r) == 0 ? warn(&r, quiet) : 0;
}

/* The default mode for a program the library cannot guard (issue 24):
 * strict mode, chosen here, unless STDIOGATE_AUTO_STRICT=0 (--gate-only)
 * asks for the gate alone, or the filter is not installed.  Returns 1 when
 * the filter is to run COMMAND, into filter. */
static int choose_strict(const char *pid, const char *library, const struct sg_inspection *r,
                         int level, char *filter, size_t size)
{
    unsigned finding;
    if (!sg_env_auto_strict(getenv(SG_ENV_AUTO_STRICT)) || !(finding = main_finding(r->findings)))
        return 0;
    snprintf(filter, size, "%.*s/stdiogate-filter", (int)(strrchr(library, '/') - library), library);
    if (access(filter, X_OK) != 0)
        return 0;
    if (level >= 2 && r->script[0])
        say("stdiogate[%s]: %s runs %s, %s: strict mode\n", pid, r->script, r->program,
                finding_name(finding));
    else if (level >= 2)
        say("stdiogate[%s]: %s is %s: strict mode\n", pid, r->program,
                finding_name(finding));
    return 1;
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
    return strncmp(e, SG_ENV_PREFIX, sizeof SG_ENV_PREFIX - 1) == 0;
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
    if (sg_env_debug(given, &level) == SG_LEVEL_INVALID)
        say("stdiogate: warning: " SG_ENV_DEBUG "=%s is not a level from 0 to 4: "
                "using %d\n", given, level);
    if (verbosity > 0) {
        int wanted = verbosity + 1 > 4 ? 4 : verbosity + 1;
        level = level > wanted ? level : wanted;
    }
    return level;
}

/* The positional parameters the wrapper's eval leaves for its `shift;
 * exec "$@"`: the filter in front of COMMAND. */
static void put_filter(const char *filter)
{
    fputs("shift; set -- : '", stdout);
    for (const char *c = filter; *c; c++)
        if (*c == '\'')
            fputs("'\\''", stdout);
        else
            putchar(*c);
    /* its protocol: STDIOGATE_PROTOCOL, or auto; --unenterable: COMMAND
     * cannot load the library, so nothing is named to it (lib/strict.c) */
    puts("' --unenterable -- \"$@\"");
}

/* Once per command (the library speaks per process, and a launcher's tree
 * has several): a terminal on stderr gets no startup output, which the
 * library sends to /dev/null there (Node would take a terminal stdout for
 * its answers). */
static void tty_note(int strict, int status, int level)
{
    if (strict || status != 0 || level == 0 || !isatty(2) || sg_env_log(getenv(SG_ENV_LOG)) ||
        sg_env_discard(getenv(SG_ENV_DISCARD)))
        return;
    say("stdiogate: stderr is a terminal: the server's startup output goes to /dev/null "
                    "(redirect stderr to a file, 2>server.log, to keep it)\n");
}

/* A #! script whose interpreter cannot be run: the shell would say only
 * "./x: not found".  Prints the wrapper's exit, as the shell's status
 * (127 missing, 126 not executable); 0 if the interpreter is fine. */
static int bad_interpreter(const char *path, const struct sg_inspection *r)
{
    struct stat st;
    int missing;
    if (!r->script[0])
        return 0;
    missing = stat(r->program, &st) != 0;
    if (!missing && S_ISREG(st.st_mode) && access(r->program, X_OK) == 0)
        return 0;
    if (missing && windows_line_ends(r))
        say("stdiogate: %s: bad interpreter %.*s^M: not found (its #! line ends in a carriage return: the "
            "file has Windows line ends; convert them, e.g. sed -i 's/\\r$//' %s)\n", path,
            (int)strlen(r->program) - 1, r->program, path);
    else
        say("stdiogate: %s: bad interpreter %s: %s\n", path, r->program,
            missing ? "not found" : "not executable");
    printf("exit %d\n", missing ? 127 : 126);
    return missing ? 127 : 126;
}

/* The wire's device:inode into wire ("" when the wrapper's stdout is
 * closed), seen from here: fd 1 itself when it is the wrapper's (--answer),
 * its /proc entry when fd 1 is the pipe of a $(...), which took the number
 * for a moment if the wrapper's stdout was closed. */
static void wire_identity(const char *pid, int answer_fd, char *wire, size_t size)
{
    struct stat st, mine;
    int open1 = fstat(1, &mine) == 0;
    if (answer_fd >= 0) {
        if (!open1)
            return;
        st = mine;
    } else {
        char fd1[64];
        snprintf(fd1, sizeof fd1, "/proc/%s/fd/1", pid);
        if (stat(fd1, &st) != 0 || (open1 && mine.st_dev == st.st_dev && mine.st_ino == st.st_ino))
            return;
    }
    snprintf(wire, size, "%llu:%llu", (unsigned long long)st.st_dev,
             (unsigned long long)st.st_ino);
    g_wire = st;
    g_wire_known = 1;
}

/* The answer, whole (an answer is at most a few variables of 128 KiB). */
static char answer_buffer[1 << 20];

/* --answer FD: the answer goes to the wrapper's here-document on FD,
 * reopened for writing (a pipe, or a deleted file in some shells), in
 * fd 1's place here: fd 1 is the wire, which nothing of ours writes to.
 * It waits whole in stdout's buffer until answer_fits has made room for it
 * (the wrapper reads only once we have exited); the write does not block:
 * an answer the pipe cannot hold fails (status 3, and the wrapper asks again
 * through $(...)) instead of waiting for a reader that waits for us. */
static int answer_to(int fd)
{
    /* dash keeps the script at fd 10 and sources the answer at 11, where its
     * `exec FD<&-` needs one more to save FD in: under a limit of 13 that
     * would fail half-way, so the wrapper asks again through $(...). */
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < 13)
        return -1;
    char path[32];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    struct stat st;
    int w = open(path, O_WRONLY | O_TRUNC | O_NONBLOCK | O_CLOEXEC);
    if (w < 0)
        return -1;
    /* (a shell may give an empty here-document as /dev/null) */
    if (fstat(w, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISREG(st.st_mode))) {
        close(w);
        return -1;
    }
    if (w != 1 && (dup2(w, 1) != 1 || close(w) != 0))
        return -1;
    return setvbuf(stdout, answer_buffer, _IOFBF, sizeof answer_buffer) == 0 ? 0 : -1;
}

/* Whether the pipe the answer goes to can hold it all (a file can): a pipe
 * holds 64 KiB unless grown, and it has the here-document's line already. */
static int answer_fits(void)
{
    struct stat st;
    size_t n = __fpending(stdout) + 4096;
    if (fstat(1, &st) != 0 || !S_ISFIFO(st.st_mode))
        return 1;
    int size = fcntl(1, F_GETPIPE_SZ);
    return (size >= 0 && (size_t)size >= n) ||
           (n <= INT_MAX && fcntl(1, F_SETPIPE_SZ, (int)n) >= 0);
}

/* The answer's end: FD closed again (--answer), and "answered" as the
 * wrapper's $1, its proof that the whole answer ran.  With --answer, the
 * status is 0 once all of it is on FD, 3 if it is not. */
static int end_answer(int status, int answer_fd)
{
    if (status == 3 || status == 125)
        return answer_fd < 0 ? status : 3;
    if (answer_fd >= 0)
        printf("exec %d<&-\n", answer_fd);
    puts("shift; set -- answered \"$@\"");
    if (answer_fd < 0)
        return status;
    return !answer_fits() || fflush(stdout) != 0 || ferror(stdout) ? 3 : 0;
}

/* A log that cannot be opened would be named by every process that tries
 * it (a server that starts three: four warnings), and with --discard what
 * is kept off the wire would go nowhere: said once here, and stderr gets it
 * instead.  A FIFO or device is left to the processes: opening one now
 * would give its reader an end of file. */
static void check_log(const char *pid, int level)
{
    const char *path = sg_env_log(getenv(SG_ENV_LOG));
    struct stat st;
    if (!path || (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)))
        return;
    int fd = open(path, SG_LOG_OPEN_FLAGS, 0666);
    if (fd >= 0) {
        close(fd);
        return;
    }
    if (level != 0)             /* (-1: unset, the default 1) */
        say("stdiogate[%s]: cannot open the log %s: %s: what is kept off the wire goes to stderr instead\n",
            pid, path, strerror(errno));
    puts("unset " SG_ENV_LOG " " SG_ENV_DISCARD);
}

static int answer(const char *pid, const char *verbosity, const char *library, const char *path,
                  int strict, int answer_fd)
{
    static struct sg_inspection r;
    char wire[64] = "";
    wire_identity(pid, answer_fd, wire, sizeof wire);
    if (answer_fd >= 0 && answer_to(answer_fd) != 0)
        return 3;
    int known = sg_inspect(path, &r) == 0;
    if (known && bad_interpreter(path, &r))
        return 1;
    size_t len = 0;
    char *block = initial_environment(pid, &len), filter[SG_PATH_SIZE];
    int level = debug_level(getenv(SG_ENV_DEBUG), atoi(verbosity));
    int chosen = known && !strict && choose_strict(pid, library, &r, level, filter, sizeof filter);
    int status = known ? warn(&r, strict || chosen) : 0;
    if (block)
        restore_environment(block, len);
    if (level >= 0)
        printf("export " SG_ENV_DEBUG "=%d\n", level);
    check_log(pid, level);
    if (status == 2) {
        free(block);
        if (chosen)
            put_filter(filter);
        puts(":");
        return status;
    }
    const char *preload = block ? block_get(block, len, SG_ENV_PRELOAD, sizeof SG_ENV_PRELOAD - 1)
                                : getenv(SG_ENV_PRELOAD);
    char *value = malloc(strlen(library) + (preload ? strlen(preload) : 0) + 2);
    if (!value)
        return 125;
    sprintf(value, "%s%s%s", library, preload && *preload ? " " : "", preload ? preload : "");
    put_export(SG_ENV_PRELOAD, sizeof SG_ENV_PRELOAD - 1, value);
    free(value);
    /* (PYTHONUNBUFFERED, PERL5OPT and RUBYOPT stay the caller's: where an
     * interpreter's stdout must be unbuffered, the library's getenv says so,
     * lib/interpreters.c) */
    if (wire[0]) {
        /* ",seen": COMMAND, an ELF file the wrapper execs, was read here and
         * is no Bun program: the library need not read it again. */
        printf("export " SG_ENV_WIRE "=%s%s\n", wire,
               known && !r.script[0] && !(r.findings & SG_BUN) ? SG_MARKER_SEEN : "");
    } else {
        puts("unset " SG_ENV_WIRE);
    }
    if (level >= 2)
        say("stdiogate[%s]: preloading %s, running %s%s\n", pid, library, path,
                wire[0] ? "" : " (its stdout is closed)");
    if (level >= 3 && wire[0])
        say("stdiogate[%s]: the wire is device:inode %s\n", pid, wire);
    tty_note(strict || chosen, status, level);
    free(block);
    if (chosen)
        put_filter(filter);
    return status;
}

int wrapper(const char *pid, const char *verbosity, const char *library, const char *path,
            int strict, int answer_fd)
{
    return end_answer(answer(pid, verbosity, library, path, strict, answer_fd), answer_fd);
}

/* --environment: only the commands that put the caller's environment back
 * (what the wrapper runs before it execs --check, whose servers must see the
 * caller's environment). */
int environment(const char *pid)
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
