/* SPDX-License-Identifier: MIT */
/* echo_server - a minimal newline-delimited JSON-RPC server.
 *
 *   echo_server [-r] [-b BYTES]
 *
 * Answers every request (a line with an "id") with
 * {"jsonrpc":"2.0","id":ID,"result":{}}, or with -b a string result of
 * BYTES bytes.  Notifications get no answer.  Reads with getline(3) and
 * writes with stdio + fflush, as a plain C server would; -r uses read(2)
 * and write(2) directly. */
#include "common.h"

static size_t big;
static char *bigbuf;

/* The id's JSON text (number or string) inside line, or NULL. */
static const char *find_id(const char *line, size_t *len)
{
    const char *p = strstr(line, "\"id\"");
    if (!p)
        return NULL;
    p += 4;
    while (*p == ' ' || *p == ':')
        p++;
    const char *e = p;
    if (*e == '"') {
        e++;
        while (*e && *e != '"')
            e += (*e == '\\' && e[1]) ? 2 : 1;
        if (*e)
            e++;
    } else {
        while (*e && *e != ',' && *e != '}' && *e != ' ')
            e++;
    }
    *len = (size_t)(e - p);
    return e > p ? p : NULL;
}

/* The answer to one request in out (malloc'd), its length returned. */
static size_t answer(const char *line, char **out)
{
    size_t idlen;
    const char *id = find_id(line, &idlen);
    if (!id)
        return 0;
    if (!big) {
        static char small[512];
        if (idlen > 256)
            idlen = 256;
        int n = snprintf(small, sizeof small, "{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"result\":{}}\n",
                         (int)idlen, id);
        *out = small;
        return (size_t)n;
    }
    /* bigbuf = prefix (room for the id) + BYTES of 'x' + "\"}\n" */
    char head[320];
    int hn = snprintf(head, sizeof head, "{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"result\":\"",
                      (int)(idlen > 256 ? 256 : idlen), id);
    char *start = bigbuf + 320 - hn;
    memcpy(start, head, (size_t)hn);
    *out = start;
    return (size_t)hn + big + 3;
}

int main(int argc, char **argv)
{
    int raw = 0, opt;
    while ((opt = getopt(argc, argv, "rb:")) != -1) {
        switch (opt) {
        case 'r': raw = 1; break;
        case 'b': big = (size_t)atol(optarg); break;
        default: return 2;
        }
    }
    if (big) {
        bigbuf = malloc(320 + big + 3);
        if (!bigbuf)
            die("malloc");
        memset(bigbuf + 320, 'x', big);
        memcpy(bigbuf + 320 + big, "\"}\n", 3);
    }
    char *out;
    size_t n;
    if (!raw) {
        char *line = NULL;
        size_t cap = 0;
        while (getline(&line, &cap, stdin) > 0) {
            if ((n = answer(line, &out)) == 0)
                continue;
            fwrite(out, 1, n, stdout);
            fflush(stdout);
        }
        return 0;
    }
    static char buf[65536 + 1];
    size_t have = 0;
    for (;;) {
        ssize_t got = read(0, buf + have, sizeof buf - 1 - have);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return 0;
        have += (size_t)got;
        buf[have] = 0;
        char *p = buf, *nl;
        while ((nl = memchr(p, '\n', have - (size_t)(p - buf)))) {
            *nl = 0;
            if ((n = answer(p, &out)) != 0)
                write_all(1, out, n, NULL);
            p = nl + 1;
        }
        have -= (size_t)(p - buf);
        memmove(buf, p, have);
        if (have == sizeof buf - 1)
            have = 0;   /* a line longer than the buffer: drop it */
    }
}
