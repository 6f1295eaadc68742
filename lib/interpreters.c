/* SPDX-License-Identifier: MIT */
/* lib/interpreters.c - Python's, Perl's and Ruby's stdout unbuffered where
 * only the gate keeps junk off the wire (--gate-only): what each reads at
 * start (PYTHONUNBUFFERED, PERL5OPT, RUBYOPT), answered by getenv alone.
 *
 * Why only there: with the session guard (the default) a junk line that
 * waits in an interpreter's buffer is kept off the wire when the buffer is
 * written after the gate, glued to an answer or not; without it, that line
 * would reach the client.  So the process that diverts, with no guard to
 * come, gets its interpreter's stdout unbuffered, as the wrapper used to
 * give every process through the environment.
 *
 * Why getenv and not the environment: the variables reached every program
 * the server ran, and an unbuffered stdout into a pipe made a tool's
 * python3 ten times slower (issue 43); and the server would see them in its
 * own environment (os.environ, %ENV), which is the caller's.  getenv
 * answers a name only in the interpreter that reads it (one whose runtime
 * is loaded: Node's process.env and Ruby's ENV ask getenv too), once (it
 * reads it once, as it starts; Ruby's ENV["RUBYOPT"] later gets the
 * caller's value), and only while the gate is shut.  The environment is
 * never changed. */

#include "internal.h"

enum { PYTHON, PERL, RUBY, INTERPRETERS };

static const char *const g_names[INTERPRETERS] = { "PYTHONUNBUFFERED", "PERL5OPT", "RUBYOPT" };

/* A function of each runtime: present (in the program or a library it was
 * linked with) where that interpreter runs. */
static const char *const g_runtimes[INTERPRETERS] = { "Py_Initialize", "perl_parse", "ruby_options" };

/* Each name's answer until getenv has given it; NULL: the caller's value. */
static char *g_answers[INTERPRETERS];
static int g_unanswered;     /* answers not given yet */

static char *take_answer(const char *name)
{
    for (int i = 0; i < INTERPRETERS; i++) {
        if (strcmp(name, g_names[i]) != 0)
            continue;
        /* (a vfork child leaves the answer to its parent) */
        if (!shut() || in_vfork_child())
            return NULL;
        char *a = __atomic_exchange_n(&g_answers[i], NULL, __ATOMIC_ACQ_REL);
        if (a)
            __atomic_sub_fetch(&g_unanswered, 1, __ATOMIC_ACQ_REL);
        return a;
    }
    return NULL;
}

/* What libc's getenv does: the value of the first NAME= in environ.  Not
 * the real function through dlsym: getenv runs before the constructor, in
 * vfork children (the exec interposers' PATH search) and in every process
 * that merely loads the library, where a lookup must not run or would cost.
 * No call of libc's either (strlen, strncmp): each would be bound lazily in
 * every process that loads the library, the constructor's look for the
 * marker included (issue 43's load: about 600 instructions a binding).  The
 * library's own lookups call this, not the exported getenv (no binding of
 * that either).  Most entries differ at their first byte: Node asks getenv
 * once per console.log. */
char *env_value(const char *name)
{
    if (!environ || !*name)
        return NULL;
    for (char **e = environ; *e; e++) {
        const char *a = *e, *b = name;
        while (*b && *a == *b)
            a++, b++;
        if (!*b && *a == '=')
            return (char *)a + 1;
    }
    return NULL;
}

EXPORT char *getenv(const char *name)
{
    if (unlikely(LOAD(g_unanswered) > 0)) {
        char *a = take_answer(name);
        if (a)
            return a;
    }
    return env_value(name);
}

/* given, a space where given is not empty, then option: in a mapping of
 * its own (given may be long).  NULL if it cannot be had. */
static char *appended(const char *given, const char *option)
{
    const char *g = given ? given : "";
    size_t size = strlen(g) + strlen(option) + 2;
    char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    if (snprintf(p, size, "%s%s%s", g, *g ? " " : "", option) < 0) {
        munmap(p, size);
        return NULL;
    }
    return p;
}

/* snprintf that says whether all of it fitted. */
#define FITS(buf, ...) (snprintf(buf, sizeof buf, __VA_ARGS__) < (int)sizeof buf)

/* The caller's NAME with option appended, where the file that option loads
 * is installed (dir/file) and the caller's value does not hold it already
 * (an outer stdiogate, or the caller's own). */
static char *with_option(const char *name, const char *dir, const char *file, const char *option)
{
    char path[sizeof g_helper_path + 64];
    const char *given = env_value(name);
    if (!FITS(path, "%s/%s", dir, file) || access(path, R_OK) != 0 ||
        (given && strstr(given, option)))
        return NULL;
    return appended(given, option);
}

static int runs(int interpreter)
{
    return dlsym(RTLD_DEFAULT, g_runtimes[interpreter]) != NULL;
}

/* In the constructor of a process that diverts: with no guard to come,
 * getenv gives the interpreter what unbuffers its stdout.  The files
 * Perl and Ruby load are in runtime/, beside the library. */
void answer_interpreters(void)
{
    char dir[sizeof g_helper_path], option[2 * sizeof g_helper_path];
    const char *slash = strrchr(g_helper_path, '/');
    const char *py = env_value(g_names[PYTHON]);
    int n = 0;
    if (!shut() || LOAD(g_guard_wanted) || !slash ||
        !FITS(dir, "%.*s/runtime", (int)(slash - g_helper_path), g_helper_path))
        return;
    /* Python reads an empty value as unset; the caller's own value is kept. */
    if (runs(PYTHON) && (!py || !*py))
        g_answers[PYTHON] = (char *)"1";
    if (runs(PERL) && FITS(option, "-I%s/perl -MStdiogate::Unbuffered", dir))
        g_answers[PERL] = with_option(g_names[PERL], dir, "perl/Stdiogate/Unbuffered.pm", option);
    if (runs(RUBY) && FITS(option, "-r%s/ruby/stdiogate_unbuffered.rb", dir))
        g_answers[RUBY] = with_option(g_names[RUBY], dir, "ruby/stdiogate_unbuffered.rb", option);
    for (int i = 0; i < INTERPRETERS; i++)
        n += g_answers[i] != NULL;
    STORE(g_unanswered, n);
    if (n)
        say(3, "no guard after the gate: the interpreter's stdout is made unbuffered (getenv "
               "answers ", g_names[g_answers[PYTHON] ? PYTHON : g_answers[PERL] ? PERL : RUBY],
            " once; the environment is left as it is)");
}
