/* SPDX-License-Identifier: MIT */
/* check/session.c - one run of the server: started in its own process
 * group, played a session, given time to linger, closed and cleared away
 * (what it writes is read in check/output.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

/* ------------------------------------------------------------------ */
/* One run of the server */

volatile sig_atomic_t interrupted;
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

void install_signals(void)
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

void queue_bytes(struct run *r, const char *p, size_t n)
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
char *frame_message(const struct run *r, const char *body)
{
    if (r->opt->protocol == PROTO_MCP)
        return xasprintf("%s\n", body);
    return xasprintf("Content-Length: %zu\r\n\r\n%s", strlen(body), body);
}

void flush_queue(struct run *r)
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
        break;  /* disconnect once initialize is answered (plan_rest) */
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

/* After the answer to initialize, whatever it was, the session goes on:
 * MCP's lists and calls; DAP's disconnect, numbered only now, after what
 * the checker has sent meanwhile (its answers to the adapter's requests:
 * each message's seq one more than the one before). */
void plan_rest(struct run *r, struct span answer)
{
    if (r->planned || r->waiting != 0)
        return;
    if (r->opt->protocol == PROTO_MCP) {
        plan_after_initialize(r, answer);
    } else if (r->opt->protocol == PROTO_DAP) {
        add_dap_request(r, "disconnect", "{}");
        r->planned = 1;
    }
}

/* Sends items up to and including the next request, which then waits. */
void send_next(struct run *r)
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

/* A process of this run's, from its /proc/PID/stat line: in the run's
 * process group, or an orphan handed to us (PR_SET_CHILD_SUBREAPER); not
 * one that has exited (a zombie, <defunct>, is no process left running).
 * Its name is read from the same line: a process gone meanwhile is not
 * mistaken for a nameless one. */
static int of_this_run(const struct run *r, long pid, char *name, size_t cap)
{
    char path[64], line[512];
    FILE *f;
    char *open_paren, *close_paren, state;
    long ppid, pgrp;
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    if (!(f = fopen(path, "r")))
        return 0;
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return 0;
    }
    fclose(f);
    if (!(open_paren = strchr(line, '(')) || !(close_paren = strrchr(line, ')')) ||
        sscanf(close_paren + 1, " %c %ld %ld", &state, &ppid, &pgrp) != 3 || state == 'Z' || state == 'X')
        return 0;
    snprintf(name, cap, "%.*s", (int)(close_paren - open_paren - 1), open_paren + 1);
    return pgrp == (long)r->pid || ppid == (long)getpid();
}

/* stdiogate's own processes (stdiogate-filter, in strict or drain mode,
 * and the library's stdiogate-wait) are not the server's leftovers: their
 * names say so. */
static int is_ours(const char *name)
{
    return strncmp(name, "stdiogate-", 10) == 0;
}

/* The run's processes still alive, the server's main process and ours
 * aside: how many, the first LEFT_MAX named in r->left when record is
 * set.  Kills every process of the run if kill_them is set. */
static int scan_run(struct run *r, int kill_them, int record, int *all)
{
    DIR *d = opendir("/proc");
    struct dirent *de;
    int others = 0;
    *all = 0;
    if (!d)
        return 0;
    while ((de = readdir(d))) {
        char name[64];
        long pid = strtol(de->d_name, NULL, 10);
        if (pid <= 0 || pid == (long)getpid() || !of_this_run(r, pid, name, sizeof name))
            continue;
        if (kill_them)
            kill((pid_t)pid, SIGKILL);
        ++*all;
        if (pid == (long)r->pid || is_ours(name))
            continue;
        if (record && others < LEFT_MAX) {
            r->left[others].pid = pid;
            snprintf(r->left[others].name, sizeof r->left[others].name, "%s", name);
        }
        others++;
    }
    closedir(d);
    return others;
}

/* The server has exited; processes of its own may still be on their way
 * out (a launcher's child that exits after it).  They get the linger to
 * go before they count as left behind, and after the group's SIGTERM a
 * second more: each process dies in its own time (a child that cleans up,
 * or one not yet scheduled on a loaded machine, outlives its launcher). */
#define TERM_GRACE 1.0

static void await_stragglers(struct run *r)
{
    double end = now() + r->opt->linger + (r->term_sent ? TERM_GRACE : 0);
    struct timespec pause = { 0, 10000000L };
    int all;
    while (scan_run(r, 0, 0, &all) > 0 && now() < end) {
        nanosleep(&pause, NULL);
        reap(r);
    }
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
    } else {
        await_stragglers(r);
    }
    for (int round = 0; round < 200; round++) {
        int all, others = scan_run(r, 1, round == 0, &all);
        struct timespec pause = { 0, 10000000L };
        if (round == 0)
            r->leftovers = others;  /* the main process was reported on its own */
        reap(r);
        if (all == 0 && r->exited)
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
        if (r->trying == 1 && other_framing_seen(r)) {
            /* the other framing's answer: this try is over */
            r->other_framing = 1;
            r->req[r->waiting].outcome = OUT_NONE;
            snprintf(r->req[r->waiting].seen_id, sizeof r->req[r->waiting].seen_id, "other framing");
            r->state = S_DONE;
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
            } else if (r->trying == 2 && r->first_answer < 0) {
                /* the other framing, tried after the first had no answer
                 * in twice --timeout: silence again ends it */
                snprintf(q->seen_id, sizeof q->seen_id, "timeout");
                r->answer_timeout = 1;
                r->state = S_DONE;
                return 1;
            } else {
                snprintf(q->seen_id, sizeof q->seen_id, "timeout");
                r->answer_timeout = 1;
                progress("run %d: no answer to %s within %gs; waiting %gs more for a late one", r->index,
                         q->method, r->opt->timeout, r->opt->timeout);
                /* A slow server is told from a silent one by its late
                 * answer: stdin stays open for another --timeout (and
                 * the answer is taken as late until the run ends). */
                r->late = r->waiting;
                r->waiting = -1;
                r->state = S_LATE;
                r->deadline = t + r->opt->timeout;
                return 1;
            }
            r->waiting = -1;
            begin_closing(r);
            return 1;
        }
        return 0;
    case S_LATE:
        if (r->req[r->late].late || r->out.eof || t >= r->deadline) {
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
            progress("run %d: still running %gs after its stdin was closed: killing it", r->index,
                     r->opt->timeout);
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

void drive(struct run *r)
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
    progress("run %d of %d, %s (%s): started; waiting up to %gs for the answer to %s", r->index, r->of, r->title,
             protocol_titles[r->opt->protocol], r->opt->timeout, r->req[0].method);
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

