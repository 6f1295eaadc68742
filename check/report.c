/* SPDX-License-Identifier: MIT */
/* check/report.c - stdiogate-check's verdict on the runs, and its report:
 * text, or JSON (docs/check-json.md). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static const char *const protocol_names[] = { "mcp", "lsp", "dap" };
static const char *const source_keys[] = { "option", "default", "command", "framed_answer", "silent_line",
                                           "line_answer", "silent_frame" };
static const char *const phase_keys[] = { "before_first_message", "serving", "at_exit" };
static const char *const phase_words[] = { "before the first message", "while serving", "at exit" };
static const char *const outcome_keys[] = {
    "not_sent", "waiting", "result", "error", "no_answer", "wrong_id", "malformed"
};

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

static void describe_junk(const struct run *u, char *out, size_t cap);

/* Do no harm: every run after the weakest clean one should be clean too
 * (one that only got no answer in time says nothing about stdiogate). */
static void harm_notes(const struct run *runs, int nruns, struct verdict *v)
{
    int after = 0;
    for (int i = 0; i < nruns && v->nnotes < 2; i++) {
        if (&runs[i] == v->fixed_by)
            after = 1;
        else if (after && !runs[i].skipped && runs[i].answer_timeout)
            snprintf(v->notes[v->nnotes++], sizeof v->notes[0],
                     "the %s run got no answer within %gs: timing, not junk (raise --timeout)", runs[i].title,
                     runs[i].opt->timeout);
        else if (after && !runs[i].skipped && !run_clean(&runs[i]))
            snprintf(v->notes[v->nnotes++], sizeof v->notes[0],
                     "the %s run was not clean although the %s one was: please report it", runs[i].title,
                     v->fixed_by->title);
    }
}

/* The request a run gave up on (--timeout), or NULL. */
static const struct request *timed_out_request(const struct run *r)
{
    for (int i = 0; r->answer_timeout && i < r->nreq; i++)
        if (r->req[i].outcome == OUT_NONE && strcmp(r->req[i].seen_id, "timeout") == 0)
            return &r->req[i];
    return NULL;
}

/* Did the unwrapped run, or a run weaker than the weakest clean one, get
 * no answer in time?  Then the runs cannot be compared: a timing verdict,
 * whatever else they wrote.  (With no clean run, a stronger run's silence
 * after the unwrapped run's bad answer is that answer filtered out.) */
static int timing_decides(const struct run *runs, int nruns, const struct verdict *v)
{
    if (runs[0].answer_timeout)
        return 1;
    for (int i = 0; v->fixed_by && i < nruns && &runs[i] != v->fixed_by; i++)
        if (!runs[i].skipped && runs[i].answer_timeout)
            return 1;
    return 0;
}

/* Launchers that fetch the package on their first run (a cold cache). */
static int fetches_packages(const struct program_facts *facts)
{
    static const char *const fetchers[] = { "npm exec", "npm", "pnpm", "yarn", "bun x", "uv tool run", "uv",
                                            "pipx", "poetry" };
    for (size_t i = 0; facts->launcher && i < sizeof fetchers / sizeof fetchers[0]; i++)
        if (strcmp(facts->launcher, fetchers[i]) == 0)
            return 1;
    return 0;
}

/* "slow: the answer took 11.2 s" (the slowest answer to a request that
 * some run gave up on), or "no answer within N s". */
static void timing_verdict(const struct run *runs, int nruns, const char *command,
                           const struct program_facts *facts, struct verdict *v)
{
    const struct run *u = &runs[0];
    const struct request *given_up = NULL;
    double took = -1;
    v->status = 5;
    v->fixed_by = NULL;  /* runs that did not all answer in time cannot be compared */
    for (int i = 0; i < nruns && !given_up; i++)
        if (!runs[i].skipped)
            given_up = timed_out_request(&runs[i]);
    for (int i = 0; i < nruns && given_up; i++)
        for (int k = 0; !runs[i].skipped && k < runs[i].nreq; k++) {
            const struct request *q = &runs[i].req[k];
            int answered = q->late || q->outcome == OUT_RESULT || q->outcome == OUT_ERROR;
            if (strcmp(q->id, given_up->id) == 0 && answered && q->answered - q->sent > took)
                took = q->answered - q->sent;
        }
    if (took >= 0)
        snprintf(v->summary, sizeof v->summary, "slow: the answer took %.1f s (--timeout %g)", took, u->opt->timeout);
    else
        snprintf(v->summary, sizeof v->summary, "no answer within %g s", u->opt->timeout);
    if (junk_bytes(u)) {
        char junk[300];
        size_t k = strlen(v->summary);
        describe_junk(u, junk, sizeof junk);
        snprintf(v->summary + k, sizeof v->summary - k, "; it also wrote %s, to be judged once it answers in time",
                 junk);
    }
    if (took >= 0)
        snprintf(v->advice, sizeof v->advice, "raise --timeout and check again");
    else if (fetches_packages(facts))
        snprintf(v->advice, sizeof v->advice, "raise --timeout, or run it again once %s has cached the package",
                 command);
    else
        snprintf(v->advice, sizeof v->advice,
                 "raise --timeout, or look at its stderr: a server that never answers is a bug no stdiogate "
                 "mode fixes");
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
        k += (size_t)snprintf(out + k, cap - k, ")");
    for (int i = 0; i < u->nreq && k < cap; i++)
        if (u->req[i].glued) {
            snprintf(out + k, cap - k, ", the answer to %s glued to it on one line: real clients lose that answer",
                     u->req[i].method);
            break;
        }
}

/* Why the default mode cannot keep it all off: the program's own stdout is
 * not guarded (sg_inspect), the runs had no guard after the gate
 * (STDIOGATE_GUARD=0, --gate-only: the library reads it as this check got
 * it), or the junk passed the library by (raw system calls, a child the
 * library does not enter). */
static const char *gate_shortfall(const struct run *u, const struct program_facts *facts)
{
    static const unsigned unguarded = SG_SETUID | SG_SETGID | SG_CAPABILITIES | SG_DOCKER | SG_FOREIGN_LOADER |
                                      SG_STATIC | SG_GO | SG_BUN;
    if (facts->known && (facts->in.findings & unguarded))
        return "the library cannot guard this program's own stdout (see the warning above)";
    if ((u->junk[PHASE_SERVING] || u->junk[PHASE_EXIT]) && !sg_env_guard(getenv(SG_ENV_GUARD)))
        return "with --gate-only (STDIOGATE_GUARD=0) the default mode guards only what comes before the first "
               "message";
    if (u->junk[PHASE_SERVING] || u->junk[PHASE_EXIT])
        return "the default mode does not see all of it (written past the library, by raw system calls)";
    return "the default mode lets it through";
}

void judge(const struct run *runs, int nruns, int found, const char *not_found,
           const struct program_facts *facts, struct verdict *v)
{
    const struct run *u = &runs[0];
    int all_errors = 1;
    char junk[300];
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
    if (timing_decides(runs, nruns, v)) {
        const char *base = strrchr(u->opt->command[0], '/');
        timing_verdict(runs, nruns, base ? base + 1 : u->opt->command[0], facts, v);
    } else if (v->fixed_by == u) {
        v->status = 0;
        snprintf(v->summary, sizeof v->summary, "clean: nothing but protocol on stdout, every request answered");
        snprintf(v->advice, sizeof v->advice, "no change needed");
    } else if (v->fixed_by && strcmp(v->fixed_by->mode, "gated") == 0) {
        v->status = 1;
        snprintf(v->summary, sizeof v->summary, "%s; stdiogate's default mode keeps them off the wire", junk);
        snprintf(v->advice, sizeof v->advice, "run it under stdiogate");
    } else if (v->fixed_by) {
        v->status = 2;
        snprintf(v->summary, sizeof v->summary, "%s; %s; --strict keeps them off the wire", junk,
                 gate_shortfall(u, facts));
        snprintf(v->advice, sizeof v->advice, "run it under stdiogate --strict");
    } else if (died_before_answering(u)) {
        v->status = 4;
        if (!u->started)
            snprintf(v->summary, sizeof v->summary, "the server could not be started: %s%s", strerror(u->exec_errno),
                     facts->known && windows_line_ends(&facts->in) ?
                     " (its #! line ends in a carriage return: the file has Windows line ends)" : "");
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
            snprintf(v->summary, sizeof v->summary,
                     "protocol errors in every run (missing answers, wrong ids or malformed answers)");
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

/* "command": ARGV[0], "args": [ARGV[1]...]: the fix, as a client's
 * configuration holds it (the text report and the JSON one). */
static void put_command_args(char **argv)
{
    printf("\"command\": ");
    put_json_string(argv[0]);
    printf(", \"args\": ");
    put_json_argv(argv, 1);
}


/* A path as a client needs it: absolute, since clients start servers from
 * a directory of their own and graphical ones without the shell's PATH. */
static char *absolute(const char *path)
{
    char cwd[PATH_MAX];
    if (path[0] == '/' || !getcwd(cwd, sizeof cwd))
        return xasprintf("%s", path);
    while (strncmp(path, "./", 2) == 0)
        path += 2;
    return xasprintf("%s/%s", cwd, path);
}

/* An argument naming a file by a relative path (a script the command
 * runs, such as node's server.js): absolute in the entry.  Options and
 * names that are no file here (npx's package) stay, and so does python's
 * -m module (fix_argv). */
static const char *entry_argument(const char *arg)
{
    struct stat st;
    if (arg[0] == '-' || arg[0] == '/' || !arg[0] || stat(arg, &st) != 0 || !S_ISREG(st.st_mode))
        return arg;
    return absolute(arg);
}

/* The configuration that fixes it: argv of the client's server entry, with
 * stdiogate by its real path and COMMAND as the client must name it (the
 * file PATH finds, relative script paths made absolute). */
static char **fix_argv(const struct options *o, const char *program, const struct verdict *v)
{
    size_t k = 0;
    char **scratch;
    if (!v->fixed_by)
        return NULL;
    /* stdiogate, --strict --protocol P, --, then every word of COMMAND */
    scratch = xrealloc(NULL, sizeof *scratch * ((size_t)o->ncommand + 6));
    if (strcmp(v->fixed_by->mode, "unwrapped") != 0) {
        char real[PATH_MAX];
        scratch[k++] = realpath(o->wrapper, real) ? absolute(real) : absolute(o->wrapper);
        if (strcmp(v->fixed_by->mode, "strict") == 0) {
            scratch[k++] = "--strict";
            scratch[k++] = "--protocol";
            scratch[k++] = o->protocol == PROTO_MCP ? "jsonl" : "framed";
        }
        if (o->command[0][0] == '-')
            scratch[k++] = "--";
    }
    scratch[k++] = absolute(program);
    for (int i = 1; o->command[i]; i++)
        scratch[k++] = strcmp(o->command[i - 1], "-m") == 0 ? o->command[i] : (char *)entry_argument(o->command[i]);
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
        printf("  (%llu message%s over %u MiB %s not read: taken as %s)\n", r->oversized,
               r->oversized == 1 ? "" : "s", MESSAGE_MAX >> 20, r->oversized == 1 ? "was" : "were",
               r->oversized == 1 ? "an answer" : "answers");
    printf("  answers:");
    for (int i = 0; i < r->nreq; i++) {
        const struct request *q = &r->req[i];
        printf("%s %s %s: ", i ? "," : "", q->method, q->id);
        switch (q->outcome) {
        case OUT_RESULT: printf("answered"); break;
        case OUT_ERROR: printf("error answer%s%s%s", *q->error ? " (" : "", q->error, *q->error ? ")" : ""); break;
        case OUT_NONE:
            printf("NO ANSWER (%s)", q->seen_id);
            if (q->late)
                printf(", a late answer after %.1f ms", ms(q->answered - q->sent));
            break;
        case OUT_WRONG_ID: printf("WRONG ID %s", q->seen_id); break;
        case OUT_MALFORMED: printf("MALFORMED ANSWER (not %s)", r->opt->protocol == PROTO_DAP ? "DAP" : "JSON-RPC 2.0"); break;
        default: printf("not sent"); break;
        }
        if (q->glued)
            printf(" but GLUED to the junk before it (no newline between): real clients lose this answer");
    }
    putchar('\n');
    if (r->stray)
        printf("  %llu %s never made\n", r->stray, r->stray == 1 ? "answer to a request" : "answers to requests");
    if (r->malformed)
        printf("  %llu message%s on the wire that %s not %s\n", r->malformed, r->malformed == 1 ? "" : "s",
               r->malformed == 1 ? "is" : "are", r->opt->protocol == PROTO_DAP ? "DAP" : "JSON-RPC 2.0");
    if (r->server_requests)
        printf("  %llu request%s from the server (answered: not supported)\n", r->server_requests,
               r->server_requests == 1 ? "" : "s");
    describe_exit(r, exit_text, sizeof exit_text);
    if (r->first_answer >= 0)
        printf("  first answer after %.1f ms; ", ms(r->first_answer));
    else
        printf("  no answer; ");
    printf("stderr %llu bytes; %s\n", r->err_bytes, exit_text);
    if (r->dropped)
        printf("  stdiogate dropped %llu bytes of startup output it could not write to stderr\n", r->dropped);
    if (r->leftovers) {
        printf("  left %d process%s running, killed:", r->leftovers, r->leftovers == 1 ? "" : "es");
        for (int i = 0; i < r->leftovers && i < LEFT_MAX; i++)
            printf("%s pid %ld (%s)", i ? "," : "", r->left[i].pid, r->left[i].name);
        printf("%s\n", r->leftovers > LEFT_MAX ? ", ..." : "");
    }
    if (died_before_answering(r) && r->err_head_len) {
        escape_bytes(r->err_head, r->err_head_len < 120 ? r->err_head_len : 120, buf, sizeof buf);
        printf("  stderr begins: \"%s\"%s\n", buf, r->err_bytes > 120 ? "..." : "");
    }
}

void text_report(const struct options *o, const char *program, const struct program_facts *facts,
                 const struct run *runs, int nruns, const struct verdict *v)
{
    char **fix = fix_argv(o, program, v);
    printf("stdiogate --check (%s, timeout %gs, linger %gs): ", protocol_titles[o->protocol], o->timeout, o->linger);
    put_argv_text(o->command);
    putchar('\n');
    printf("protocol: %s\n", o->protocol_note);
    printf("program: %s: %s\n", program, facts->note);
    if (facts->auto_strict)
        printf("  default mode: strict, chosen by itself (%s); with --gate-only the wrapper would warn:\n",
               facts->auto_strict);
    for (size_t i = 0; facts->known && i < NFINDINGS; i++) {
        char line[3 * SG_PATH_SIZE];
        if (!(facts->in.findings & finding_bits[i]))
            continue;
        sg_warning(&facts->in, finding_bits[i], line, sizeof line);
        printf("  %sstdiogate: warning: %s\n", facts->auto_strict ? "  " : "", line);
    }
    for (int i = 0; i < nruns; i++)
        text_run(&runs[i], i);
    printf("\nverdict (exit status %d): %s.\n", v->status, v->summary);
    for (int i = 0; i < v->nnotes; i++)
        printf("note: %s\n", v->notes[i]);
    printf("%s%s\n", v->advice, fix ? ":" : ".");
    if (fix) {
        fputs("  ", stdout);
        put_command_args(fix);
        putchar('\n');
    }
    free(fix);
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
    char buf[HEAD_MAX * 4 + 8], tail[ERR_TAIL_MAX * 4 + 8], exit_text[200];
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
        printf(", \"late_ms\": ");
        json_number_or_null(q->late ? q->answered - q->sent : -1);
        printf(", \"glued_to_junk\": %s", q->glued ? "true" : "false");
        printf("}");
    }
    printf("],\n     \"stray_answers\": %llu, \"first_answer_ms\": ", r->stray);
    json_number_or_null(r->first_answer);
    printf(",\n     \"stderr\": {\"bytes\": %llu, \"dropped_by_stdiogate\": %llu, \"first_bytes\": ",
           r->err_bytes, r->dropped);
    escape_bytes(r->err_head, r->err_head_len < HEAD_MAX ? r->err_head_len : HEAD_MAX, buf, sizeof buf);
    put_json_string(buf);
    printf(", \"last_bytes\": ");
    escape_bytes(r->err_tail, r->err_tail_len, tail, sizeof tail);
    put_json_string(tail);
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
    printf(", \"leftovers\": [");
    for (int i = 0; i < r->leftovers && i < LEFT_MAX; i++) {
        printf("%s{\"pid\": %ld, \"name\": ", i ? ", " : "", r->left[i].pid);
        put_json_string(r->left[i].name);
        printf("}");
    }
    printf("]");
    printf("}}");
}

void json_report(const struct options *o, const char *program, const struct program_facts *facts,
                 const struct run *runs, int nruns, const struct verdict *v, int strict_available)
{
    char **fix = fix_argv(o, program, v);
    struct rusage ru;
    printf("{\"stdiogate_check\": 1, \"version\": \"%s\",\n", STDIOGATE_VERSION);
    printf(" \"command\": ");
    put_json_argv(o->command, 0);
    printf(", \"protocol\": \"%s\", \"timeout\": %g, \"linger\": %g, \"call\": ", protocol_names[o->protocol],
           o->timeout, o->linger);
    put_json_string(o->call);
    printf(", \"protocol_source\": \"%s\", \"protocol_note\": ", source_keys[o->source]);
    put_json_string(o->protocol_note);
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
    printf(", \"default_mode\": \"%s\"", facts->auto_strict ? "strict" : "gate");
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
        putchar('{');
        put_command_args(fix);
        putchar('}');
    } else {
        fputs("null", stdout);
    }
    free(fix);
    getrusage(RUSAGE_SELF, &ru);
    printf("},\n \"self\": {\"max_rss_kib\": %ld}}\n", ru.ru_maxrss);
}
