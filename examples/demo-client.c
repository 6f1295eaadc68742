/* SPDX-License-Identifier: MIT */
/* demo-client - a scripted MCP client for `make demo`.
 *
 *   demo-client COMMAND [ARG]...
 *
 * Starts COMMAND with pipes on stdin and stdout, sends initialize, the
 * initialized notification, tools/list and ping, one at a time, waiting for
 * each answer, then closes the server's stdin.  It prints every line the
 * server wrote on stdout, marked by whether it is a JSON-RPC message, and
 * then what the server wrote on stderr.  As a real client does, it skips a
 * line that is not JSON-RPC: an answer glued to junk on its line is lost,
 * and the client waits for it in vain.  Exit status 0 when stdout carried
 * nothing but JSON-RPC, 1 otherwise.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TIMEOUT_MS 3000
#define WIDTH 66

/* ---- a JSON syntax check: returns the end of the value at p, or NULL */

static const char *value(const char *p, int depth);

static const char *space(const char *p)
{
    return p + strspn(p, " \t\r\n");
}

static const char *string(const char *p)
{
    if (*p++ != '"')
        return NULL;
    for (; *p != '"'; p++) {
        if ((unsigned char)*p < 0x20)
            return NULL;
        if (*p == '\\' && !*++p)
            return NULL;
    }
    return p + 1;
}

static const char *number(const char *p)
{
    const char *start = p;
    p += *p == '-';
    p += strspn(p, "0123456789");
    if (*p == '.')
        p += 1 + strspn(p + 1, "0123456789");
    if (*p == 'e' || *p == 'E') {
        p++;
        p += *p == '+' || *p == '-';
        p += strspn(p, "0123456789");
    }
    return p > start && strchr("0123456789", p[-1]) ? p : NULL;
}

static const char *members(const char *p, char close, int depth)
{
    p = space(p + 1);
    if (*p == close)
        return p + 1;
    for (;;) {
        if (close == '}') {
            if (!(p = string(p)))
                return NULL;
            p = space(p);
            if (*p++ != ':')
                return NULL;
        }
        if (!(p = value(p, depth + 1)))
            return NULL;
        if (*p == close)
            return p + 1;
        if (*p++ != ',')
            return NULL;
    }
}

static const char *value(const char *p, int depth)
{
    p = space(p);
    if (depth > 64)
        return NULL;
    if (*p == '{')
        p = members(p, '}', depth);
    else if (*p == '[')
        p = members(p, ']', depth);
    else if (*p == '"')
        p = string(p);
    else if (strncmp(p, "true", 4) == 0 || strncmp(p, "null", 4) == 0)
        p += 4;
    else if (strncmp(p, "false", 5) == 0)
        p += 5;
    else
        p = number(p);
    return p ? space(p) : NULL;
}

/* A JSON object with "jsonrpc": "2.0" at its top level. */
static int is_jsonrpc(const char *line)
{
    const char *end = value(line, 0);
    if (!end || *end || *space(line) != '{')
        return 0;
    const char *p = space(space(line) + 1);
    while (*p == '"') {
        const char *key_end = string(p);
        int is_version = key_end - p == 9 && strncmp(p, "\"jsonrpc\"", 9) == 0;
        p = space(space(key_end) + 1);
        if (is_version && strncmp(p, "\"2.0\"", 5) == 0)
            return 1;
        p = value(p, 1);
        if (*p == ',')
            p = space(p + 1);
    }
    return 0;
}

/* ---- talking to the server */

static FILE *to_server;
static int from_server;
static char pending[1 << 16];
static size_t pending_len;
static int lines, bad_lines, eof, lost;
static char first_bad[32];
static size_t first_bad_len;

static void show(const char *who, const char *mark, const char *text)
{
    size_t n = strcspn(text, "\r\n");
    printf("  %-8s %-5s %.*s%s\n", who, mark, (int)(n > WIDTH ? WIDTH - 3 : n), text,
           n > WIDTH ? "..." : "");
}

static int stdout_line(char *line)
{
    int ok = is_jsonrpc(line);
    lines++;
    if (!ok && bad_lines++ == 0) {
        first_bad_len = strlen(line);
        memcpy(first_bad, line, first_bad_len < 31 ? first_bad_len + 1 : 31);
    }
    show("stdout", ok ? "ok" : "BAD", line);
    return ok;
}

/* Reads the server's stdout until a line contains "id":ID (ID > 0), or to
 * EOF (ID 0).  Returns 0 if the answer did not come. */
static int read_until(int id)
{
    char want[32];
    snprintf(want, sizeof want, "\"id\":%d", id);
    for (;;) {
        char *nl;
        while ((nl = memchr(pending, '\n', pending_len))) {
            *nl = '\0';
            int ok = stdout_line(pending);
            /* (an answer on a line that does not parse is no answer) */
            int found = id && ok && strstr(pending, want);
            if (id && !ok && strstr(pending, want))
                lost = id;
            pending_len -= (size_t)(nl + 1 - pending);
            memmove(pending, nl + 1, pending_len);
            if (found)
                return 1;
        }
        if (eof) {
            if (id)
                printf("  (the server closed its stdout without answering)\n");
            return !id;
        }
        struct pollfd pfd = { .fd = from_server, .events = POLLIN };
        if (poll(&pfd, 1, TIMEOUT_MS) == 0) {
            printf("  (no answer within %d s: giving up; a real client waits until its own timeout)\n",
                   TIMEOUT_MS / 1000);
            return 0;
        }
        ssize_t n = read(from_server, pending + pending_len, sizeof pending - 1 - pending_len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            eof = 1;
            if (pending_len) {  /* a last line without a newline */
                pending[pending_len] = '\0';
                stdout_line(pending);
                pending_len = 0;
            }
        } else {
            pending_len += (size_t)n;
        }
    }
}

static int request(int id, const char *method, const char *params)
{
    if (id)
        fprintf(to_server, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\",\"params\":%s}\n",
                id, method, params);
    else
        fprintf(to_server, "{\"jsonrpc\":\"2.0\",\"method\":\"%s\"}\n", method);
    fflush(to_server);
    char what[80];
    snprintf(what, sizeof what, id ? "%s (id %d)" : "%s (a notification, no answer)", method, id);
    show("client", "->", what);
    return !id || read_until(id);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: demo-client COMMAND [ARG]...\n");
        return 2;
    }
    const char *name = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
    int wrapped = strcmp(name, "stdiogate") == 0;
    printf("\n=== %s stdiogate ===\n$", wrapped ? "With" : "Without");
    for (int i = 1; i < argc; i++)
        printf(" %s", argv[i]);
    printf("\n");
    fflush(stdout);

    int in[2], out[2];
    FILE *err = tmpfile();
    if (pipe(in) || pipe(out) || !err) {
        perror("demo-client");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(fileno(err), 2);
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        execvp(argv[1], argv + 1);
        fprintf(stderr, "demo-client: cannot run %s: %s\n", argv[1], strerror(errno));
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    to_server = fdopen(in[1], "w");
    from_server = out[0];

    int answered = request(1, "initialize",
                           "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                           "\"clientInfo\":{\"name\":\"demo-client\",\"version\":\"1.0\"}}")
        && request(0, "notifications/initialized", NULL)
        && request(2, "tools/list", "{}")
        && request(3, "ping", "{}");
    fclose(to_server);
    if (answered)
        read_until(0);
    else
        kill(pid, SIGTERM);
    int status;
    waitpid(pid, &status, 0);

    printf("  The server's stderr carried:\n");
    rewind(err);
    char line[4096];
    int err_lines = 0;
    int err_serving = 0;
    while (fgets(line, sizeof line, err)) {
        show("stderr", "", line);
        err_lines++;
        err_serving |= strncmp(line, "log: ", 5) == 0;
    }
    if (!err_lines)
        show("stderr", "", "(nothing)");

    if (lost) {
        printf("  Result: the answer to request %d came on the same line as the junk before it (a banner\n"
               "  printed without its newline): no client can read that line, so the answer is lost and\n"
               "  the session hangs.\n", lost);
    } else if (bad_lines) {
        printf("  Result: %d of %d lines on stdout are not JSON-RPC.", bad_lines, lines);
        if (first_bad[0] && !strchr("{[\"-0123456789tfn \t\r", first_bad[0]))
            /* as V8's JSON.parse words it */
            printf(" A Node.js client reports:\n    Unexpected token '%c', \"%.*s\"%s is not valid JSON\n",
                   first_bad[0], first_bad_len > 20 ? 10 : (int)first_bad_len, first_bad,
                   first_bad_len > 20 ? "..." : "");
        else
            printf(" Clients reject or drop the connection.\n");
    } else if (answered) {
        printf("  Result: all %d lines on stdout are JSON-RPC; the startup output went to stderr%s.\n",
               lines, err_serving ? ", and so did the line written while serving" : "");
    } else {
        printf("  Result: the server did not answer.\n");
    }
    return bad_lines || !answered;
}
