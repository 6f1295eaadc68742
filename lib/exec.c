/* SPDX-License-Identifier: MIT */
/* lib/exec.c - exec and spawn: where a child gets the wire (the marker,
 * LD_PRELOAD, #! and foreign loaders, posix_spawn file actions). */

#include "internal.h"

/* ------------------------------------------------------------------ */
/* exec and spawn: hand the wire to the next program.
 *
 * These run in vfork children too: they write nothing shared, and what
 * sits on the stack is bounded (ENV_ON_STACK, ACTS_ON_STACK); larger copies
 * are mapped, and unmapped again when the call returns (a vfork child's
 * exec leases its mapping: lib/scratch.c). */

/* Is fd 1 still the inherited diversion, with the wire at hand?  fd 1 is
 * looked at too: libuv closes it with a raw system call and reopens it on
 * /dev/null in the child, where no interposer sees it.  A close-on-exec
 * fd 1 is not the new program's: unwrapped it would have none. */
static int should_hand_wire(void)
{
    int fl = REAL(fcntl)(1, F_GETFD);
    return shut() && LOAD(g_core.fd1_ours) && fl >= 0 && !(fl & FD_CLOEXEC) && on_diversion(1) &&
           is(LOAD(g_core.wire), &g_core.wire_id);
}

/* After the gate, with the guard on: is fd 1 (not close-on-exec) the
 * wire?  Then the new program is on the wire too, and gets the guard
 * (the marker with ",open") or, if the library cannot enter it, the
 * filter.  Identity, not the bookkeeping: in a vfork child fd 1 may have
 * been changed by the child's own dup2, which left no trace. */
static int should_guard_child(void)
{
    int fl = REAL(fcntl)(1, F_GETFD);
    return guarding() && !gated() && fl >= 0 && !(fl & FD_CLOEXEC) && is(1, &g_core.wire_id);
}

static int is_marker(const char *e)
{
    return strncmp(e, MARKER "=", sizeof MARKER) == 0;
}

/* A marker that is not the program's own business: the one this process
 * was started with, come round again through a copy of its environment.
 * A marker the program set itself after it started is its own: a stdiogate
 * wrapper run by a shell that already has the library preloaded exports
 * one for the server it is about to exec, and that server's gate must act. */
static size_t marker_wire_len(const char *e)
{
    const char *colon = strchr(e, ':');
    colon = colon ? strchr(colon + 1, ':') : NULL;
    return colon ? (size_t)(colon - e) : strlen(e);
}

/* (The wire's identity decides: the :pid a program before an exec added
 * does not make the same marker another.) */
static int stale_marker(const char *e)
{
    size_t n = marker_wire_len(e);
    return is_marker(e) && g_marker[0] && n == marker_wire_len(g_marker) &&
           memcmp(e, g_marker, n) == 0;
}

static size_t env_count(char *const *env, int *has_stale, const char **preload)
{
    size_t n = 0;
    *has_stale = 0;
    *preload = NULL;
    for (; env && env[n]; n++) {
        if (stale_marker(env[n]))
            *has_stale = 1;
        else if (strncmp(env[n], SG_ENV_PRELOAD "=", sizeof SG_ENV_PRELOAD) == 0)
            *preload = env[n];
    }
    return n;
}

/* ------------------------------------------------------------------ */
/* Programs whose loader cannot resolve this library (musl's, linked
 * dynamically, exits 127 with "Error relocating libstdiogate.so"): they
 * are started without it, as if it were a static one.  The check reads the
 * file (a #! interpreter one level down, "#!/usr/bin/env NAME" included)
 * with pread into small buffers: it runs in vfork children too. */

#define LIB_NAME "libstdiogate.so"
#define EXEC_PATH_SIZE 512

/* Is name one of our LD_PRELOAD entries?  (Entries split on spaces and
 * colons, as ld.so splits them.) */
static int preload_entry_is_ours(const char *p, size_t len)
{
    size_t base = len;
    while (base > 0 && p[base - 1] != '/')
        base--;
    return len - base == sizeof LIB_NAME - 1 && memcmp(p + base, LIB_NAME, len - base) == 0;
}

static int preload_has_us(const char *value)
{
    for (const char *p = value; *p;) {
        size_t len = strcspn(p, " :");
        if (len && preload_entry_is_ours(p, len))
            return 1;
        p += len;
        if (*p)
            p++;
    }
    return 0;
}

/* The file execvp would run for name, into out ("" if none). */
static void exec_search(const char *name, int search, char *out)
{
    out[0] = '\0';
    if (!search || strchr(name, '/')) {
        if (strlen(name) < EXEC_PATH_SIZE)
            memcpy(out, name, strlen(name) + 1);
        return;
    }
    const char *path = env_value("PATH");
    for (const char *p = path ? path : "/bin:/usr/bin";; p++) {
        size_t len = strcspn(p, ":"), nlen = strlen(name);
        if (len + 1 + nlen < EXEC_PATH_SIZE) {
            memcpy(out, len ? p : ".", len ? len : 1);
            size_t k = len ? len : 1;
            out[k] = '/';
            memcpy(out + k + 1, name, nlen + 1);
            if (access(out, X_OK) == 0)
                return;
        }
        out[0] = '\0';
        p += len;
        if (!*p)
            return;
    }
}

/* The next word of a #! line at *p (NUL-terminated), or NULL. */
static char *shebang_word(char **p)
{
    char *w = *p + strspn(*p, " \t");
    size_t len = strcspn(w, " \t");
    if (!len)
        return NULL;
    *p = w + len + (w[len] != '\0');
    w[len] = '\0';
    return w;
}

/* The program the "#!" line in line runs, into path: the interpreter, or
 * for "#!/usr/bin/env [-S] NAME", NAME searched in PATH.  0 if none. */
static int script_program(char *line, char *path)
{
    char *end = strchr(line, '\n'), *p = line + 2, *w;
    if (!end)
        return 0;   /* longer than we read */
    *end = '\0';
    char *interp = shebang_word(&p);
    if (!interp || strlen(interp) >= EXEC_PATH_SIZE)
        return 0;
    const char *base = strrchr(interp, '/');
    if (strcmp(base ? base + 1 : interp, "env") != 0) {
        memcpy(path, interp, strlen(interp) + 1);
        return 1;
    }
    while ((w = shebang_word(&p)) && (w[0] == '-' || strchr(w, '=')))
        ;
    if (!w)
        return 0;
    exec_search(w, 1, path);
    return path[0] != '\0';
}

/* ------------------------------------------------------------------ */
/* Programs the library cannot guard (issue 24).  One it cannot even be
 * loaded into (a loader that is not glibc's) runs without our LD_PRELOAD
 * entry.  And when one of them is about to get the wire while the gate is
 * still shut, it is started under the strict filter instead, in the same
 * process, with the same argv, environment and descriptors: static and Go
 * programs, Bun, musl, secure execution (setuid, setgid, file
 * capabilities: ld.so drops LD_PRELOAD) and container CLIs (the server runs
 * elsewhere).  The wrapper makes the same choice for COMMAND, through
 * inspect.c; this is its exec-time twin, malloc-free for vfork children.
 * The file is read only where a program is about to get the wire. */

enum { RUNS_FOREIGN = 1u, RUNS_UNGUARDED = 2u };

struct program {
    char path[EXEC_PATH_SIZE];  /* the file the exec runs */
    const char *why;            /* what it is, for the diagnostics */
};

int g_auto_strict = 1;

/* Secure execution (ld.so drops LD_PRELOAD), in words. */
static const char *secure_kind(int fd)
{
    switch (sg_secure_finding(fd)) {
    case SG_SETUID: return "a setuid program";
    case SG_SETGID: return "a setgid program";
    case SG_CAPABILITIES: return "a program with file capabilities";
    }
    return NULL;
}

/* The ELF file open on fd.  deep: look for every reason, not only the
 * loader (the program is about to get the wire). */
static unsigned elf_kind(int fd, int deep, const char **why)
{
    const unsigned bun = SG_SEC_BUN | SG_SEC_BUN_BUILTINS;
    struct sg_elf e;
    char interp[256];
    int r = sg_elf_interp(fd, interp, sizeof interp);
    if (r < 0 || !sg_elf_header(fd, &e))
        return 0;
    if (r == 1 && !sg_interp_is_glibc(interp)) {
        *why = "a program whose loader cannot load " LIB_NAME;
        /* Without its loader the exec fails: let it fail as it would. */
        if (interp[0] && access(interp, X_OK) != 0)
            return RUNS_FOREIGN;
        return RUNS_FOREIGN | RUNS_UNGUARDED;
    }
    /* One the kernel would refuse (another architecture) is left to fail
     * as it would. */
    if (!deep || !sg_elf_native(&e))
        return 0;
    if ((*why = secure_kind(fd)))
        return RUNS_UNGUARDED;
    if (r == 0)
        *why = "a static program";
    else if (sg_elf_go_note(fd, &e))
        *why = "a Go program";
    else if ((sg_elf_section_names(fd, &e) & bun) == bun)
        *why = "a Bun program";
    return *why ? RUNS_UNGUARDED : 0;
}

/* What the file that file (searched in PATH if search) runs is to us:
 * RUNS_ bits, p->path the file.  A "#!" script is judged by its
 * interpreter, one level down. */
static unsigned program_kind(const char *file, int search, int deep, struct program *p)
{
    char buf[256], interp[EXEC_PATH_SIZE];
    const char *at = p->path;
    unsigned kind = 0;
    int saved = errno;
    p->why = NULL;
    exec_search(file, search, p->path);
    for (int depth = 0; at[0] && depth < 2; depth++) {
        int fd = open(at, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            break;
        ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
        int script = n >= 2 && buf[0] == '#' && buf[1] == '!';
        if (!script)
            kind = elf_kind(fd, deep, &p->why);
        REAL(close)(fd);
        if (!script) {
            if (deep && sg_is_container_cli(at)) {
                p->why = "a container CLI (the server runs in a container)";
                kind |= RUNS_UNGUARDED;
            }
            break;
        }
        buf[n] = '\0';
        if (depth > 0 || !script_program(buf, interp))
            break;
        at = interp;
    }
    errno = saved;
    return kind;
}

/* Environment arrays this large are not edited (and the program still
 * gets the wire, unguarded): more entries than the kernel takes. */
#define MAX_ENV (1UL << 24)
/* Copies of up to this many entries live on the stack (2 KiB: safe on any
 * thread's stack); larger ones are mapped (lib/scratch.c). */
#define ENV_ON_STACK 256

/* LD_PRELOAD values up to this long are rewritten on the stack; longer
 * ones are mapped. */
#define PRELOAD_ON_STACK 512

/* The filter's argv, up to this many entries on the stack; more are
 * mapped. */
#define FILTER_ARGV_ON_STACK 32

struct exec_plan {
    int hand;           /* give the new program the wire as fd 1 */
    int guard;          /* its fd 1 is the wire already, the gate open: the guard's marker */
    int filter;         /* start it under the strict filter */
    int edit_env;       /* build a new environment */
    int foreign;        /* the program's loader cannot resolve us: leave it out */
    int saved;          /* our fd 1 while the exec is tried */
    const char *preload; /* the LD_PRELOAD entry of env */
    size_t n;           /* entries in the caller's environment */
    size_t marker_at;   /* where out[] holds our marker, or 0 */
    char **out;         /* the new environment */
    char *pre;          /* our LD_PRELOAD entry rewritten, for a foreign program */
    char **fargv;       /* the filter's argv */
    struct scratch mem; /* what does not fit on the stack */
    struct program prog; /* what the exec runs */
    char *small[ENV_ON_STACK];
    char pre_small[PRELOAD_ON_STACK];
    char *fargv_small[FILTER_ARGV_ON_STACK];
};

/* The copies the plan needs: on the stack where they fit, else in one
 * mapping (lib/scratch.c).  Without one the plan does without what needed
 * it, and says so: the program gets its environment as it is, or the wire
 * without the filter. */
static void plan_memory(struct exec_plan *x, const char *what, char *const *argv, int returns)
{
    size_t argc = 0, plen = x->foreign ? strlen(x->preload) + 1 : 0;
    while (x->filter && argv[argc])
        argc++;
    size_t env = x->edit_env && x->n + 2 > ENV_ON_STACK ? (x->n + 2) * sizeof *x->out : 0;
    size_t fargv = x->filter && argc + 5 > FILTER_ARGV_ON_STACK ? (argc + 5) * sizeof *x->fargv
                                                                : 0;
    size_t pre = x->edit_env && plen > PRELOAD_ON_STACK ? plen : 0;
    size_t need = env + fargv + pre;
    char *mem = need ? scratch_get(&x->mem, need, returns) : NULL;
    x->out = x->small;
    x->fargv = x->fargv_small;
    x->pre = x->pre_small;
    if (need && !mem) {
        const char *why = err_name(errno);
        if (env + pre) {
            x->edit_env = 0;
            say(1, "exec: no memory to rewrite the environment of ", what, " (", why,
                "): it gets it as it is");
        }
        if (fargv) {
            x->filter = 0;
            say(1, "exec: no memory to start ", what, " under the strict filter (", why,
                "): it runs unguarded");
        }
        return;
    }
    if (env) {
        x->out = (char **)(void *)mem;
        mem += env;
    }
    if (fargv) {
        x->fargv = (char **)(void *)mem;
        mem += fargv;
    }
    if (pre)
        x->pre = mem;
}

/* check: 0 do not look at the program, 1 what is its path, 2 its name,
 * searched in PATH.  argv: the new program's (the filter needs its
 * argv[0]).  returns: the call comes back whatever happens (a spawn). */
static void plan_exec(struct exec_plan *x, char *const *env, const char *what, int check,
                      char *const *argv, int returns)
{
    int has_stale;
    x->hand = gated() && should_hand_wire();
    /* (A program that cannot be looked at, fexecve's or execveat's, gets
     * no marker after the gate: it might not take it out.) */
    x->guard = !x->hand && check && should_guard_child();
    x->filter = 0;
    x->saved = -1;
    x->marker_at = 0;
    x->mem = (struct scratch){ 0 };
    x->n = env_count(env, &has_stale, &x->preload);
    int ours = x->preload && preload_has_us(x->preload + 11);
    int deep = (x->hand || x->guard) && LOAD(g_auto_strict) && g_helper_path[0] && argv && argv[0];
    unsigned kind = check && (ours || deep) ? program_kind(what, check == 2, deep, &x->prog) : 0;
    x->foreign = ours && (kind & RUNS_FOREIGN);
    x->filter = deep && (kind & RUNS_UNGUARDED);
    x->edit_env = (x->hand || x->guard || has_stale || x->foreign) && x->n < MAX_ENV;
    if (x->foreign && !x->filter)
        say(x->hand || x->guard ? 1 : 2, "exec: ", what, " has a loader that cannot load " LIB_NAME
            ": it runs without it", x->hand || x->guard ? ", unguarded" : "");
    plan_memory(x, what, argv, returns);
}

/* LD_PRELOAD=... without our entries into out; NULL if none is left. */
static char *preload_without_us(const char *entry, char *out)
{
    size_t k = 11;
    memcpy(out, entry, 11);
    for (const char *p = entry + 11; *p;) {
        size_t len = strcspn(p, " :");
        if (len && !preload_entry_is_ours(p, len)) {
            if (k > 11)
                out[k++] = ' ';
            memcpy(out + k, p, len);
            k += len;
        }
        p += len;
        if (*p)
            p++;
    }
    out[k] = '\0';
    return k > 11 ? out : NULL;
}

/* Copy env without a stale marker (without any when handing the wire,
 * which takes ours); a program left without us gets neither marker nor our
 * LD_PRELOAD entry. */
static char *const *exec_env(struct exec_plan *x, char *const *env)
{
    size_t k = 0;
    if (!x->edit_env)
        return env;
    for (size_t i = 0; i < x->n; i++) {
        if (is_marker(env[i]) && (x->hand || x->guard || x->foreign || stale_marker(env[i])))
            continue;
        if (x->foreign && env[i] == x->preload) {
            if ((x->out[k] = preload_without_us(env[i], x->pre)))
                k++;
            continue;
        }
        x->out[k++] = env[i];
    }
    if ((x->hand || x->guard) && !x->foreign && g_marker_out[0]) {
        x->marker_at = k;
        x->out[k++] = x->hand ? g_marker_out : g_marker_guarded;
    }
    x->out[k] = NULL;
    return x->out;
}

/* The gate opened since plan_exec: the new program gets fd 1 as it is. */
static void exec_unhand(struct exec_plan *x)
{
    x->hand = 0;
    if (x->edit_env && x->out[x->marker_at] == g_marker_out)
        x->out[x->marker_at] = NULL;
}

/* Point fd 1 at the wire for the new program; keep ours to come back to.
 * Under the wire lock: open_gate cannot run between the test and the
 * dup2, nor close the wire under it.  What the drain holds reaches stderr
 * first (bounded), so that the new program's output comes after it. */
static void exec_begin(struct exec_plan *x, const char *what)
{
    if (!x->hand)
        return;
    drain_if_needed("exec", LOAD(g_ncopies) > 0, 0);
    wait_drained();
    int held = lock_wire();
    if (!should_hand_wire()) {
        unlock_wire(held);
        exec_unhand(x);
        return;
    }
    x->saved = REAL(fcntl)(1, F_DUPFD_CLOEXEC, 3);
    if (x->saved < 0 || REAL(dup2)(LOAD(g_core.wire), 1) < 0) {
        if (x->saved >= 0)
            REAL(close)(x->saved);
        x->saved = -1;
        x->hand = 0;
    }
    unlock_wire(held);
    if (x->hand)
        say(2, "exec: handing the wire to ", what ? what : "a program");
}

/* The exec failed: divert again, keep errno.  Unless the gate opened in
 * another thread meanwhile (it left fd 1 alone, as it was the wire): then
 * fd 1 stays on the wire, where the open gate wants it.  A vfork child's
 * descriptors are its own: it always goes back. */
static void exec_failed(struct exec_plan *x)
{
    int saved = errno;
    if (x->saved >= 0) {
        int held = lock_wire();
        if (shut() || in_vfork_child())
            REAL(dup2)(x->saved, 1);
        REAL(close)(x->saved);
        unlock_wire(held);
    }
    scratch_put(&x->mem);
    errno = saved;
}

/* A shell's PATH search tries execve on every directory: only a file that
 * can run is worth handing the wire to. */
static int runnable(const char *path)
{
    int saved = errno, r = access(path, X_OK) == 0;
    errno = saved;
    return r;
}

/* The filter's argv: stdiogate-filter --path FILE -- ARGV..., where the
 * plan made room for it. */
static char **filter_argv(struct exec_plan *x, char *const argv[])
{
    size_t argc = 0;
    while (argv[argc])
        argc++;
    char **f = x->fargv;
    f[0] = g_helper_path;
    f[1] = (char *)"--path";
    f[2] = x->prog.path;
    f[3] = (char *)"--";
    memcpy(f + 4, argv, (argc + 1) * sizeof *argv);
    return f;
}

/* Should the program be started under the filter now?  Only while it is
 * still about to get the wire (the gate may have opened since the plan),
 * and only a file that can run: an exec that would fail must fail as it
 * would, in the caller. */
static int filter_now(const struct exec_plan *x)
{
    return x->filter && (x->hand || x->guard) && runnable(x->prog.path);
}

static void say_filtered(const struct exec_plan *x)
{
    say(2, "exec: ", x->prog.path, " is ", x->prog.why, ": starting it under the strict filter");
}

/* Exec the program under the filter.  Returns only if that failed: the
 * caller then execs the program itself, as it asked. */
static void exec_filtered(struct exec_plan *x, char *const argv[], char *const env[])
{
    int saved = errno;
    if (!filter_now(x))
        return;
    say_filtered(x);
    REAL(execve)(g_helper_path, filter_argv(x, argv), env);
    say(1, "exec: cannot start the strict filter ", g_helper_path, ": ", x->prog.path,
        " runs unguarded");
    errno = saved;
}

#define EXEC_WITH(env, what, exact, check, argv, call)      \
    do {                                                    \
        struct exec_plan x_;                                \
        plan_exec(&x_, (env), (what), (check), (argv), 0);  \
        if (x_.hand && (exact) && !runnable(what))          \
            x_.hand = 0;                                    \
        char *const *envp_ = exec_env(&x_, (env));          \
        if (gated() && shut())                              \
            hold_settle("exec", 0);                         \
        else if (guarding())                                \
            guard_settle("exec", SETTLE_EXEC);              \
        exec_begin(&x_, (what));                            \
        exec_filtered(&x_, (argv), envp_);                  \
        int r_ = (call);                                    \
        exec_failed(&x_);                                   \
        return r_;                                          \
    } while (0)

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    EXEC_WITH(envp, path, 1, 1, argv, REAL(execve)(path, argv, envp_));
}

EXPORT int execv(const char *path, char *const argv[])
{
    EXEC_WITH(environ, path, 1, 1, argv, REAL(execve)(path, argv, envp_));
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    EXEC_WITH(envp, file, 0, 2, argv, REAL(execvpe)(file, argv, envp_));
}

EXPORT int execvp(const char *file, char *const argv[])
{
    EXEC_WITH(environ, file, 0, 2, argv, REAL(execvpe)(file, argv, envp_));
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    EXEC_WITH(envp, "a descriptor", 0, 0, argv, REAL(fexecve)(fd, argv, envp_));
}

EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
    EXEC_WITH(envp, path, 0, 0, argv, REAL(execveat)(dirfd, path, argv, envp_, flags));
}

/* The execl family: gather the arguments on the stack. */
static size_t count_args(const char *arg0, va_list ap)
{
    size_t n = 1;
    if (!arg0)
        return 0;
    while (va_arg(ap, const char *))
        n++;
    return n;
}

static void collect_args(char **argv, const char *arg0, size_t n, va_list ap)
{
    argv[0] = (char *)arg0;
    for (size_t i = 1; i < n; i++)
        argv[i] = va_arg(ap, char *);
    argv[n] = NULL;
}

/* Declares argv[] holding arg0 and the arguments after it, and leaves ap
 * just past the NULL that ends them (where execle's envp is). */
#define GATHER_ARGS(arg0, ap)                       \
    va_list ap, ap2_;                               \
    va_start(ap, arg0);                             \
    va_copy(ap2_, ap);                              \
    size_t n_ = count_args(arg0, ap2_);             \
    va_end(ap2_);                                   \
    char *argv[n_ + 1];                             \
    collect_args(argv, arg0, n_, ap);               \
    if (n_)                                         \
        (void)va_arg(ap, char *)

EXPORT int execl(const char *path, const char *arg0, ...)
{
    GATHER_ARGS(arg0, ap);
    va_end(ap);
    return execve(path, argv, environ);
}

EXPORT int execlp(const char *file, const char *arg0, ...)
{
    GATHER_ARGS(arg0, ap);
    va_end(ap);
    return execvpe(file, argv, environ);
}

EXPORT int execle(const char *path, const char *arg0, ...)
{
    GATHER_ARGS(arg0, ap);
    char *const *envp = va_arg(ap, char *const *);
    va_end(ap);
    return execve(path, argv, envp);
}

/* posix_spawn: glibc applies file actions in its own vfork child with
 * internal calls, so the wire goes in as a file action of its own, put
 * first: the program's own actions still decide fd 1 after it, and the
 * caller's fd 1 is never touched (the action layout: see "glibc
 * internals").  Only where that layout is unknown and the caller brings
 * actions of its own is the caller's fd 1 pointed at the wire for the
 * length of the call. */
#define MAX_SPAWN_ACTIONS 1024
#define ACTS_ON_STACK 8

/* The caller's actions after a dup2(wire, 1) of ours.  The wire goes in as
 * a copy of its own, taken under the wire lock and closed when the call
 * returns: a gate opening in another thread meanwhile closes g_core.wire, not
 * the number the child will dup2 from. */
struct spawn_copy {
    struct spawn_action small[ACTS_ON_STACK], *acts;
    size_t mapped;
    int wire;
    posix_spawn_file_actions_t mine;
};

static const posix_spawn_file_actions_t *spawn_actions(struct spawn_copy *c, struct exec_plan *x,
                                                       const posix_spawn_file_actions_t *fa)
{
    int used = fa ? fa->__used : 0;
    size_t bytes = (size_t)(used + 1) * sizeof c->small[0];
    c->acts = c->small;
    c->mapped = 0;
    c->wire = -1;
    if (used < 0 || used >= MAX_SPAWN_ACTIONS || LOAD(g_spawn_layout) != 1)
        return NULL;
    if (used + 1 > ACTS_ON_STACK) {
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        c->acts = p;
        c->mapped = bytes;
    }
    int held = lock_wire();
    if (should_hand_wire())
        c->wire = high_dup(LOAD(g_core.wire));
    unlock_wire(held);
    if (c->wire < 0) {
        if (!shut())
            exec_unhand(x);   /* the gate opened: nothing to hand */
        return NULL;
    }
    memset(&c->mine, 0, sizeof c->mine);
    memset(&c->acts[0], 0, sizeof c->acts[0]);
    c->acts[0].tag = g_spawn_dup2_tag;
    c->acts[0].action.dup2_action.fd = c->wire;
    c->acts[0].action.dup2_action.newfd = 1;
    if (used)
        memcpy(&c->acts[1], fa->__actions, (size_t)used * sizeof c->acts[0]);
    c->mine.__allocated = used + 1;
    c->mine.__used = used + 1;
    c->mine.__actions = (struct __spawn_action *)(void *)c->acts;
    return &c->mine;
}

static void spawn_done(struct spawn_copy *c)
{
    int saved = errno;
    if (c->wire >= 0)
        REAL(close)(c->wire);
    if (c->mapped)
        munmap(c->acts, c->mapped);
    errno = saved;
}

/* Do the caller's file actions leave the child's fd 1 as it is (the
 * wire, then)?  1 yes, 0 no, -1 cannot tell.  A dup2 onto another number,
 * a chdir, an fchdir leave it; a dup2 onto 1 and any other action on fd 0
 * or 1 (a close, an open, a closefrom) touch it; an action of a kind
 * lib/glibc.c did not learn, or an unknown layout, cannot tell. */
static int actions_leave_fd1(const posix_spawn_file_actions_t *fa)
{
    if (!fa || fa->__used == 0)
        return 1;
    if (LOAD(g_spawn_layout) != 1 || fa->__used < 0 || fa->__used >= MAX_SPAWN_ACTIONS)
        return -1;
    const struct spawn_action *a = (const struct spawn_action *)(const void *)fa->__actions;
    int leaves = 1;
    for (int i = 0; i < fa->__used && leaves == 1; i++) {
        switch (spawn_action_kind(a[i].tag)) {
        case SPAWN_DUP2: leaves = a[i].action.dup2_action.newfd != 1; break;
        case SPAWN_ON_FD: leaves = a[i].action.close_action.fd > 1; break;
        case SPAWN_ELSEWHERE: break;
        default: leaves = -1;
        }
    }
    return leaves;
}

/* Spawn the program under the filter (see exec_filtered).  Returns the
 * call's result, or -1 if it was not made or failed: the caller then
 * spawns the program itself. */
static int spawn_filtered(struct exec_plan *x, pid_t *pid, const posix_spawn_file_actions_t *fa,
                          const posix_spawn_file_actions_t *given, const posix_spawnattr_t *attr,
                          char *const argv[], char *const env[])
{
    if (!filter_now(x))
        return -1;
    int leaves = actions_leave_fd1(given);
    if (leaves < 0)
        say(1, "exec: cannot tell where the file actions of the spawn of ", x->prog.path,
            " put its stdout: if it is the wire, it runs unguarded");
    if (leaves != 1)
        return -1;
    say_filtered(x);
    int r = REAL(posix_spawn)(pid, g_helper_path, fa, attr, filter_argv(x, argv), env);
    if (r != 0)
        say(1, "exec: cannot start the strict filter ", g_helper_path, ": ", x->prog.path,
            " runs unguarded");
    return r == 0 ? 0 : -1;
}

static int spawn_with(int search, pid_t *pid, const char *file,
                      const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
                      char *const argv[], char *const envp[])
{
    struct exec_plan x;
    struct spawn_copy c = { .wire = -1 };
    const posix_spawn_file_actions_t *mine = NULL, *given = fa;
    int r;

    plan_exec(&x, envp, file, search ? 2 : 1, argv, 1);
    char *const *env = exec_env(&x, envp);
    if (guarding())
        guard_settle("spawn", SETTLE_SPAWN);
    if (x.hand) {
        /* As at exec: what the helper holds reaches stderr first, so that
         * the new program's stderr lines come after it. */
        drain_if_needed("spawn", LOAD(g_ncopies) > 0, 0);
        wait_drained();
        mine = spawn_actions(&c, &x, fa);
    }
    if (mine) {
        fa = mine;
        say(2, "exec: handing the wire to ", file);
    } else if (x.hand && !fa && g_spawn_wire_only_fd >= 0 && g_spawn_wire_only_fd == LOAD(g_core.wire)) {
        fa = &g_spawn_wire_only;   /* unknown layout, no actions of the caller's */
        say(2, "exec: handing the wire to ", file);
    } else {
        exec_begin(&x, file);      /* unknown layout: the caller's fd 1, for the call */
    }
    if (spawn_filtered(&x, pid, fa, given, attr, argv, env) == 0)
        r = 0;
    else
        r = search ? REAL(posix_spawnp)(pid, file, fa, attr, argv, env)
                   : REAL(posix_spawn)(pid, file, fa, attr, argv, env);
    exec_failed(&x);
    spawn_done(&c);
    return r;
}

EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                       const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    return spawn_with(0, pid, path, fa, attr, argv, envp);
}

EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                        const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    return spawn_with(1, pid, file, fa, attr, argv, envp);
}
