/* SPDX-License-Identifier: MIT */
/* check/main.c - stdiogate-check, installed beside libstdiogate.so.
 *
 *   stdiogate-check --inspect PATH
 *   stdiogate-check --wrapper PID VERBOSITY LIBRARY PATH [--strict] [--answer FD]
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
 * once before it execs COMMAND: the same inspection and warning, then the
 * answer, the shell commands that set COMMAND's environment, for the wrapper
 * to run (on FD with --answer FD, its here-document: a simple command, which
 * dash starts with vfork; on stdout in $(...) otherwise, which forks the
 * shell): every variable the wrapper's shell set, exported or
 * dropped is put back as the caller gave it (read from /proc/PID/environ:
 * dash exports PWD, and a caller's exported variable named like one of the
 * wrapper's would carry the wrapper's value), then LD_PRELOAD,
 * STDIOGATE_WIRE and STDIOGATE_DEBUG are set, unless the library must stay
 * out.  It never writes anything else to stdout.
 *
 * --check is `stdiogate --check` (the wrapper passes its own path): it plays
 * the client to the stdio server COMMAND and tells whether the server's
 * stdout carries anything but protocol, when, and which configuration keeps
 * it off the wire.  The server runs up to three times: unwrapped, in the
 * default mode (WRAPPER COMMAND: the gate, then the library's guard), and
 * under WRAPPER --strict when stdiogate-filter is installed beside this
 * program.  Each run drives a real
 * session, then lingers for output on timers, closes stdin and waits for
 * the exit; the server runs in its own process group, and whatever it
 * leaves behind is killed.  What is protocol on stdout is decided by the
 * strict filter's own stream classifier (detect.h); the messages it passes
 * are then read for their ids.  The report (text, or JSON with --json:
 * docs/check-json.md) goes to stdout, diagnostics to stderr.  Exit status:
 * 0 clean unwrapped, 1 fixed by the default mode (junk before or after the
 * first message), 2 junk the default mode lets through (written by raw
 * system calls, or with --gate-only), fixed by --strict or by no installed
 * mode, 3 protocol errors, 4 the server could not start or died before
 * answering, 5 timed out (no answer within --timeout: a timing verdict,
 * never one on the output), 125 bad usage.
 */
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* Options */

static void check_usage(FILE *f)
{
    fputs("Usage: stdiogate --check [--protocol mcp|lsp|dap|auto] [--timeout S] [--linger S]\n"
          "                         [--call TOOL [--args JSON]] [--json] [--] COMMAND [ARG]...\n", f);
}

static void check_help(void)
{
    check_usage(stdout);
    fputs("\nPlay the client to the stdio server COMMAND: run it unwrapped, in the\n"
          "default mode and under --strict (when installed), drive a session in each\n"
          "run, and report every stretch of non-protocol bytes on its stdout, the\n"
          "answers, the exit, and the configuration that keeps the junk off the wire.\n\n"
          "  --protocol P   mcp, lsp or dap (jsonl: mcp, framed: lsp); by default (auto)\n"
          "                 the command's name says, or the first run finds out: MCP's JSON\n"
          "                 line first, LSP's Content-Length frame if that gets no answer\n"
          "  --timeout S    bound on each answer and on the exit (default 10)\n"
          "  --linger S     after the session, wait S seconds for output on timers (default 1)\n"
          "  --call TOOL    MCP: also call TOOL, with the arguments --args JSON (default {})\n"
          "  --json         print one JSON document (docs/check-json.md) instead of text\n\n"
          "Every server your clients are configured with (stdiogate --check --config --help):\n"
          "  --config [FILE]  check each one (--fix: wrap those that need it), --list them,\n"
          "  --client NAME    print the entry to paste for client NAME\n\n"
          "Exit status: 0 clean unwrapped; 1 junk the default mode keeps off the wire\n"
          "(before or after the first message); 2 junk it lets through (written by raw\n"
          "system calls, or with --gate-only): fixed by --strict, or by no installed\n"
          "mode; 3 protocol errors no mode fixes; 4 the server could not be started or\n"
          "died before answering; 5 timed out: no answer within --timeout (slow, or\n"
          "silent), not judged; 125 bad usage.\n", stdout);
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
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            check_help();
            exit(0);
        } else if (strcmp(a, "--json") == 0) {
            o->json = 1;
        } else if (is_option(a, "--wrapper-path")) {
            o->wrapper = option_value(argv, &i, "--wrapper-path");
        } else if (is_option(a, "--protocol")) {
            /* (also the wrapper's words: jsonl is MCP's framing, framed LSP's) */
            const char *p = option_value(argv, &i, "--protocol");
            o->protocol_given = 1;
            if (strcmp(p, "mcp") == 0 || strcmp(p, "jsonl") == 0)
                o->protocol = PROTO_MCP;
            else if (strcmp(p, "lsp") == 0 || strcmp(p, "framed") == 0)
                o->protocol = PROTO_LSP;
            else if (strcmp(p, "dap") == 0)
                o->protocol = PROTO_DAP;
            else if (strcmp(p, "auto") == 0)
                o->protocol_given = 0;
            else
                usage_error("unknown protocol '%s' (mcp, lsp, dap; or jsonl, framed, auto)", p);
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
    if (o->call && o->protocol_given && o->protocol != PROTO_MCP)
        usage_error("%s is for MCP servers", "--call");
    if (o->call) {
        o->protocol_given = 1;
        o->protocol = PROTO_MCP;        /* (not an earlier --protocol's, undone by auto) */
    }
    if (o->call_args) {
        struct span obj;
        if (!json_is_object(o->call_args, o->call_args + strlen(o->call_args), &obj))
            usage_error("--args is not a JSON object: %s", o->call_args);
        char *one_line = xasprintf("%s", o->call_args);
        json_squeeze(one_line);
        o->call_args = one_line;
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

/* ------------------------------------------------------------------ */
/* The doctor: --config, --list, --fix and --client are handled by
 * stdiogate-doctor (doctor/stdiogate-doctor, a Python script installed
 * beside this program), which runs this check once per server it finds. */

static int doctor_option(const char *a)
{
    static const char *const names[] = { "--config", "--list", "--fix", "--client", "--dry-run", "--yes",
                                         "--jobs", NULL };
    for (const char *const *n = names; *n; n++)
        if (is_option(a, *n))
            return 1;
    return 0;
}

/* An option of the check's given as "--name value": the value is skipped
 * (a COMMAND's own --fix is not the doctor's). */
static int takes_value(const char *a)
{
    static const char *const names[] = { "--protocol", "--timeout", "--linger", "--call", "--args",
                                         "--wrapper-path", NULL };
    for (const char *const *n = names; *n; n++)
        if (strcmp(a, *n) == 0)
            return 1;
    return 0;
}

static void run_doctor(int argc, char **argv)
{
    char dir[PATH_MAX], path[PATH_MAX + 32];
    char **args = xrealloc(NULL, sizeof *args * (size_t)(argc + 2));
    own_directory(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/stdiogate-doctor", dir);
    if (access(path, F_OK) != 0)
        snprintf(path, sizeof path, "%s/doctor/stdiogate-doctor", dir);
    args[0] = path;
    for (int i = 0; i < argc; i++)
        args[i + 1] = argv[i];
    args[argc + 1] = NULL;
    execv(path, args);
    if (errno == ENOENT && access(path, F_OK) == 0)
        die(EXIT_USAGE, "%s needs python3, which is not installed", path);
    die(EXIT_USAGE, "cannot run %s: %s", path, strerror(errno));
}

static void init_run(struct run *r, const struct options *o, int index, int of)
{
    r->opt = o;
    r->waiting = -1;
    r->late = -1;
    r->first_answer = -1;
    r->index = index;
    r->of = of;
}

static void run(struct run *r)
{
    drive(r);
    if (r->started)
        progress("run %d: done in %.1fs", r->index, now() - r->t0);
}

/* The protocol tried first: the one --protocol names, or the command's
 * name, or MCP. */
static void first_protocol(struct options *o)
{
    const char *word;
    if (o->protocol_given) {
        o->source = FROM_OPTION;
        snprintf(o->protocol_note, sizeof o->protocol_note, "%s, as %s says", protocol_titles[o->protocol],
                 o->call ? "--call" : "--protocol");
        return;
    }
    o->protocol = protocol_of_command(o->command, &word);
    o->source = word ? FROM_COMMAND : FROM_DEFAULT;
    if (word)
        snprintf(o->protocol_note, sizeof o->protocol_note, "%s, by the command's name (%s)",
                 protocol_titles[o->protocol], word);
    else
        snprintf(o->protocol_note, sizeof o->protocol_note, "%s, the default", protocol_titles[o->protocol]);
}

/* How the other framing's try came about, and what it found: p is the
 * protocol tried first (the run first), its other framing the one tried
 * after it (for DAP too: the first run's options already name the other). */
static void note_other_try(struct options *o, const struct run *first, enum protocol p, int answered)
{
    size_t k = strlen(o->protocol_note);
    enum protocol tried = other_protocol(p);
    if (!answered) {
        snprintf(o->protocol_note + k, sizeof o->protocol_note - k, "; %s (%s) got no answer either",
                 framing_words[tried], protocol_titles[tried]);
        return;
    }
    o->source = first->other_framing ? (p == PROTO_MCP ? FROM_FRAMED_ANSWER : FROM_LINE_ANSWER)
                                     : (p == PROTO_MCP ? FROM_SILENT_LINE : FROM_SILENT_FRAME);
    if (first->other_framing)
        snprintf(o->protocol_note, sizeof o->protocol_note, "%s: given %s (%s), its stdout began with %s",
                 protocol_titles[tried], framing_words[p], protocol_titles[p], framing_words[tried]);
    else
        snprintf(o->protocol_note, sizeof o->protocol_note, "%s: %s (%s) got no answer at all, %s did",
                 protocol_titles[tried], framing_words[p], protocol_titles[p], framing_words[tried]);
}

/* The unwrapped run.  When --protocol did not name the protocol, the one
 * the command's name says (MCP if none) is tried first; if that gets no
 * answer at all, or one in the other framing, the other framing is tried
 * in a new run, which is the unwrapped run if it answered. */
static void run_unwrapped(struct run *r, struct options *o)
{
    struct run other;
    enum protocol first = o->protocol;
    r->trying = !o->protocol_given;
    run(r);
    if (!r->trying || interrupted || !no_answer_at_all(r))
        return;
    o->protocol = other_protocol(first);
    progress("run 1: %s (%s) got %s: trying %s (%s)", framing_words[first], protocol_titles[first],
             r->other_framing ? "an answer in the other framing" : "no answer", framing_words[o->protocol],
             protocol_titles[o->protocol]);
    memset(&other, 0, sizeof other);
    other.mode = r->mode;
    other.title = r->title;
    other.argv = r->argv;
    init_run(&other, o, r->index, r->of);
    other.trying = 2;
    run(&other);
    if (interrupted)
        return;
    if (no_answer_at_all(&other)) {
        o->protocol = first;
        note_other_try(o, r, first, 0);
    } else {
        note_other_try(o, r, first, 1);
        *r = other;
    }
}

static int check_main(int argc, char **argv)
{
    struct options o;
    struct run runs[3];
    struct program_facts facts;
    struct verdict v;
    char program[PATH_MAX], dir[PATH_MAX], filter[PATH_MAX + 32], wrapper_path[PATH_MAX + 32];
    const char *not_found = NULL;
    int nruns, found, strict_available;
    const char *plain_extra[] = { "--", NULL };
    const char *strict_extra[] = { "--strict", "--protocol", NULL, "--", NULL };

    for (int i = 0; i < argc && argv[i][0] == '-' && strcmp(argv[i], "--") != 0; i++) {
        if (doctor_option(argv[i]))
            run_doctor(argc, argv);
        if (takes_value(argv[i]))
            i++;
    }
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

    switch (resolve_command(o.command[0], program, sizeof program)) {
    case 127:
        not_found = "command not found";
        break;
    case 126: {
        struct stat st;
        not_found = stat(program, &st) == 0 && S_ISDIR(st.st_mode) ? "is a directory" /* (as the wrapper says) */
                                                                    : "permission denied (not executable)";
        break;
    }
    default:
        break;
    }
    found = not_found == NULL;
    if (found) {
        inspect_program(o.command[0], program, &facts);
        choose_default_mode(&facts, strict_available);
    } else {
        memset(&facts, 0, sizeof facts);
        snprintf(facts.note, sizeof facts.note, "%s", not_found);
    }
    if (!found)
        snprintf(program, sizeof program, "%s", o.command[0]);

    first_protocol(&o);
    install_signals();
    progress_start();
    memset(runs, 0, sizeof runs);
    nruns = 3;
    runs[0].mode = "unwrapped";
    runs[0].title = "unwrapped";
    runs[0].argv = make_argv(NULL, NULL, o.command);
    runs[1].mode = "gated";
    runs[1].title = facts.auto_strict ? "default mode (strict, chosen by itself)" : "default mode";
    runs[1].argv = make_argv(o.wrapper, plain_extra, o.command);
    runs[2].mode = "strict";
    runs[2].title = "--strict";
    for (int i = 0; i < nruns; i++)
        init_run(&runs[i], &o, i + 1, strict_available ? nruns : nruns - 1);
    if (!found) {
        for (int i = 0; i < nruns; i++) {
            runs[i].skipped = 1;
            snprintf(runs[i].note, sizeof runs[i].note, "%s: %s", o.command[0], not_found);
        }
    } else {
        run_unwrapped(&runs[0], &o);
    }
    /* (the protocol is known now) */
    strict_extra[2] = o.protocol == PROTO_MCP ? "jsonl" : "framed";
    runs[2].argv = make_argv(o.wrapper, strict_extra, o.command);
    for (int i = 1; found && i < nruns && !interrupted; i++) {
        struct run *r = &runs[i];
        if (i == 2 && !strict_available) {
            r->skipped = 1;
            snprintf(r->note, sizeof r->note, "strict mode is not installed (no %s)", filter);
        } else if (runs[0].answer_timeout && no_answer_at_all(&runs[0])) {
            r->skipped = 1;
            snprintf(r->note, sizeof r->note,
                     "the unwrapped run got no answer at all (in %gs, and %gs more for a late one): "
                     "this run would wait as long for nothing", o.timeout, o.timeout);
            if (i == 1)
                progress("no answer at all: the runs under stdiogate are not run (they would wait as long)");
        } else {
            run(r);
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

/* --wrapper PID VERBOSITY LIBRARY PATH [--strict] [--answer FD]: with
 * --answer, status 0 says the whole answer is on FD, 3 that it is not (the
 * wrapper then asks again through $(...)); how the answer ends:
 * check/wrapper.c, end_answer. */
static int wrapper_main(int argc, char **argv)
{
    /* A stderr (or the shell's pipe) whose reader has gone: EPIPE, not the
     * death of the wrapper before it execs COMMAND.  (This process execs
     * nothing: the disposition stays here.) */
    signal(SIGPIPE, SIG_IGN);
    int strict = argc > 4 && strcmp(argv[4], "--strict") == 0, answer = -1;
    if (argc == 4 + strict + 2 && strcmp(argv[4 + strict], "--answer") == 0) {
        char *end;
        long fd = strtol(argv[5 + strict], &end, 10);
        if (*end || end == argv[5 + strict] || fd < 0 || fd > 9)
            return 125;
        answer = (int)fd;
    } else if (argc != 4 + strict) {
        return 125;
    }
    return wrapper(argv[0], argv[1], argv[2], argv[3], strict, answer);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--inspect") == 0)
        return inspect(argv[2], 0);
    if (argc >= 6 && argc <= 9 && strcmp(argv[1], "--wrapper") == 0)
        return wrapper_main(argc - 2, argv + 2);
    if (argc == 3 && strcmp(argv[1], "--environment") == 0)
        return environment(argv[2]);
    if (argc >= 2 && strcmp(argv[1], "--check") == 0)
        return check_main(argc - 2, argv + 2);
    fprintf(stderr, "Usage: stdiogate-check --inspect PATH\n"
                    "       stdiogate-check --wrapper PID VERBOSITY LIBRARY PATH [--strict] [--answer FD]\n"
                    "       stdiogate-check --environment PID\n"
                    "       stdiogate-check --check [OPTION]... [--] COMMAND [ARG]... (stdiogate --check)\n");
    return 125;
}
