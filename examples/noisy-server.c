/* SPDX-License-Identifier: MIT */
/* noisy-server - a tiny MCP server on stdio that, like many real ones, prints
 * on stdout while it starts: a banner with printf, a line with puts, and a
 * line from a child process.  Then it serves newline-delimited JSON-RPC:
 * it answers initialize, tools/list and ping, and exits at the end of input.
 *
 *   noisy-server [--glued] [--serving]
 *
 * --glued: the banner alone, printed without its newline, so that the first
 * answer follows it on the same line (no client can read that line).
 * --serving: also a log line on stdout after each tools/list answer, while
 * serving.
 *
 * Unwrapped, the startup lines reach the client ahead of the first answer.
 * Run as `stdiogate noisy-server`, they go to stderr, and so does the log
 * line written while serving.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copies the value of "key" (a string's contents, or a number) into out.
 * Enough JSON for this example; a real server uses a JSON library. */
static int member(const char *msg, const char *key, char *out, size_t size)
{
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\"", key);
    const char *p = strstr(msg, pattern);
    if (!p)
        return 0;
    p += strlen(pattern);
    p += strspn(p, " \t");
    if (*p++ != ':')
        return 0;
    p += strspn(p, " \t");
    size_t n = *p == '"' ? strcspn(p + 1, "\"") + 2 : strcspn(p, ",} \t\r\n");
    if (n == 0 || n >= size)
        return 0;
    memcpy(out, p, n);
    out[n] = '\0';
    return 1;
}

static void answer(const char *id, const char *result)
{
    printf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n", id, result);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int glued = 0, serving = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--glued") == 0) {
            glued = 1;
        } else if (strcmp(argv[i], "--serving") == 0) {
            serving = 1;
        } else {
            fprintf(stderr, "usage: noisy-server [--glued] [--serving]\n");
            return 2;
        }
    }
    if (glued) {
        printf("Starting noisy-server 1.0 in stdio mode...");
    } else {
        /* Both sit in stdio's buffer (stdout is a pipe) until the first
         * answer flushes it; the child's line is written at once. */
        printf("Starting noisy-server 1.0 in stdio mode...\n");
        puts("Loaded 1 tool: echo");
        if (system("echo 'helper: cache warmed up (printed by a child process)'") != 0)
            fprintf(stderr, "noisy-server: the helper failed\n");
    }

    char line[65536], method[128], id[128];
    while (fgets(line, sizeof line, stdin)) {
        if (!member(line, "method", method, sizeof method))
            continue;
        if (!member(line, "id", id, sizeof id))
            continue;  /* a notification: no answer */
        if (strcmp(method, "\"initialize\"") == 0)
            answer(id, "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},"
                       "\"serverInfo\":{\"name\":\"noisy-server\",\"version\":\"1.0\"}}");
        else if (strcmp(method, "\"tools/list\"") == 0) {
            answer(id, "{\"tools\":[{\"name\":\"echo\",\"description\":\"Returns its text\","
                       "\"inputSchema\":{\"type\":\"object\",\"properties\":"
                       "{\"text\":{\"type\":\"string\"}}}}]}");
            if (serving) {
                printf("log: handled tools/list (1 tool)\n");
                fflush(stdout);
            }
        }
        else if (strcmp(method, "\"ping\"") == 0)
            answer(id, "{}");
        else {
            printf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":-32601,"
                   "\"message\":\"Method not found\"}}\n", id);
            fflush(stdout);
        }
    }
    return 0;
}
