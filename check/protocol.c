/* SPDX-License-Identifier: MIT */
/* check/protocol.c - which protocol COMMAND speaks when --protocol does not
 * say: a word of its command line may name it (mcp; a language server; a
 * debug adapter); otherwise the unwrapped run finds out, from a first answer
 * in the other framing, or from silence to one framing and an answer to the
 * other (check/main.c tries them). */
#include <string.h>
#include <strings.h>

#include "check.h"

const char *const protocol_titles[3] = { "MCP", "LSP", "DAP" };
const char *const framing_words[3] = { "a JSON line", "a Content-Length frame", "a Content-Length frame" };

static int contains(const char *word, const char *part)
{
    return strcasestr(word, part) != NULL;
}

static int ends_with(const char *word, const char *end)
{
    size_t n = strlen(word), k = strlen(end);
    return n > k && strcasecmp(word + n - k, end) == 0;
}

static int one_of(const char *word, const char *const *names)
{
    for (; *names; names++)
        if (strcmp(word, *names) == 0)
            return 1;
    return 0;
}

static int names_mcp(const char *w)
{
    return contains(w, "mcp") || contains(w, "modelcontextprotocol");
}

static int names_dap(const char *w)
{
    static const char *const names[] = { "dap", "lldb-dap", "lldb-vscode", "codelldb", "netcoredbg",
                                         "OpenDebugAD7", "debugpy.adapter", NULL };
    return one_of(w, names) || contains(w, "debug-adapter") || contains(w, "debugadapter");
}

/* Servers named by what they are (language-server, -lsp, -ls) and a few
 * well-known ones that are not. */
static int names_lsp(const char *w)
{
    static const char *const names[] = { "lsp", "pylsp", "pyls", "clangd", "ccls", "rust-analyzer", "gopls",
                                         "jdtls", "solargraph", "texlab", "marksman", "zls", "ocamllsp",
                                         "metals", "omnisharp", "fortls", "serve-d", "nixd", "tinymist", NULL };
    return one_of(w, names) || contains(w, "language-server") || contains(w, "languageserver") ||
           contains(w, "langserver") || ends_with(w, "-lsp") || ends_with(w, "_lsp") ||
           strncasecmp(w, "lsp-", 4) == 0 || ends_with(w, "-ls");
}

/* The protocol a word of COMMAND names (its base name; options aside),
 * into word; MCP and *word NULL when none does.  A word naming MCP wins: an
 * MCP server may wrap a language server (mcp-language-server). */
enum protocol protocol_of_command(char **command, const char **word)
{
    static int (*const tests[])(const char *) = { names_mcp, names_dap, names_lsp };
    static const enum protocol named[] = { PROTO_MCP, PROTO_DAP, PROTO_LSP };
    for (size_t t = 0; t < sizeof tests / sizeof tests[0]; t++)
        for (char **c = command; *c; c++) {
            const char *base = strrchr(*c, '/');
            base = base ? base + 1 : *c;
            if (**c != '-' && *base && tests[t](base)) {
                *word = base;
                return named[t];
            }
        }
    *word = NULL;
    return PROTO_MCP;
}

/* The protocol tried when one gets no answer at all: the other framing. */
enum protocol other_protocol(enum protocol p)
{
    return p == PROTO_MCP ? PROTO_LSP : PROTO_MCP;
}

/* Before any protocol message, stdout began as the other framing's would:
 * a Content-Length header where JSON lines were expected, or a JSON-RPC
 * line where frames were. */
int other_framing_seen(const struct run *r)
{
    const struct stretch *s = r->nst ? &r->st[0] : r->cur_open ? &r->cur : NULL;
    static const char header[] = "Content-Length:";
    if (r->messages || !s)
        return 0;
    if (r->opt->protocol == PROTO_MCP)
        return s->head_len >= sizeof header - 1 && strncasecmp((const char *)s->head, header, sizeof header - 1) == 0;
    return s->head_len > 0 && s->head[0] == '{' && memmem(s->head, s->head_len, "\"jsonrpc\"", 9);
}

/* Started, and nothing it wrote answered a request, not even late. */
int no_answer_at_all(const struct run *r)
{
    if (!r->started || r->skipped || r->first_answer >= 0)
        return 0;
    for (int i = 0; i < r->nreq; i++)
        if (r->req[i].late)
            return 0;
    return 1;
}
