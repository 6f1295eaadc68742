/* SPDX-License-Identifier: MIT */
/* inspect.c - why the preloaded library cannot guard a program, read from
 * its file: setuid or file capabilities (the dynamic linker drops
 * LD_PRELOAD), a container CLI, a loader that is not glibc's (musl), no
 * loader at all (static), or a runtime that does its stdio with raw system
 * calls (Go, Bun).  A #! script is judged by its interpreter, one level
 * down, "#!/usr/bin/env [-S] NAME" included.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "inspect.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------ */
/* #! scripts. */

/* Sets out to the file execvp would run for NAME (PATH searched), or "". */
static void search_path(const char *name, char *out, size_t size)
{
    const char *path = getenv("PATH");
    out[0] = '\0';
    if (strchr(name, '/')) {
        snprintf(out, size, "%s", name);
        return;
    }
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path;; p++) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        struct stat st;
        char candidate[SG_PATH_SIZE];
        if (snprintf(candidate, sizeof candidate, "%.*s/%s", (int)(len ? len : 1),
                     len ? p : ".", name) < (int)sizeof candidate &&
            stat(candidate, &st) == 0 && S_ISREG(st.st_mode) && access(candidate, X_OK) == 0) {
            snprintf(out, size, "%s", candidate);
            return;
        }
        if (!end)
            return;
        p = end;
    }
}

static const char *next_word(char **s)
{
    char *p = *s, *w;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!*p)
        return NULL;
    w = p;
    while (*p && *p != ' ' && *p != '\t')
        p++;
    if (*p)
        *p++ = '\0';
    *s = p;
    return w;
}

/* The program a "#!" line runs, as the kernel reads it (interpreter, then
 * one optional argument), env's own options and assignments skipped.
 * Returns 1 with out set, 0 if the line names nothing to inspect. */
static int script_interpreter(char *line, char *out, size_t size)
{
    char *rest = line + 2, *nl = strchr(rest, '\n');
    if (!nl)
        return 0;   /* longer than the kernel reads: it would fail to run */
    *nl = '\0';
    const char *interp = next_word(&rest), *word;
    if (!interp)
        return 0;
    const char *base = strrchr(interp, '/');
    if (strcmp(base ? base + 1 : interp, "env") != 0) {
        snprintf(out, size, "%s", interp);
        return 1;
    }
    /* "#!/usr/bin/env -S VAR=x NAME ARG": the first word that is neither an
     * option nor an assignment (an option taking a value skips it). */
    while ((word = next_word(&rest))) {
        if (strcmp(word, "-u") == 0 || strcmp(word, "-C") == 0 || strcmp(word, "-P") == 0) {
            (void)next_word(&rest);
            continue;
        }
        if (word[0] == '-' || strchr(word, '='))
            continue;
        search_path(word, out, size);
        return out[0] != '\0';
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* The ELF file. */

/* Go: its build ID note, or .go.buildinfo (written also without the note).
 * Bun: .bun and .bun_builtins together (Bun, and `bun build --compile`
 * executables), as the library's own check wants. */
static unsigned runtime_findings(int fd, const struct sg_elf *e)
{
    unsigned names = sg_elf_section_names(fd, e), found = 0;
    if (sg_elf_go_note(fd, e) || (names & SG_SEC_GO_BUILDINFO))
        found |= SG_GO;
    if ((names & (SG_SEC_BUN | SG_SEC_BUN_BUILTINS)) == (SG_SEC_BUN | SG_SEC_BUN_BUILTINS))
        found |= SG_BUN;
    return found;
}

static unsigned elf_findings(int fd, struct sg_inspection *r)
{
    struct sg_elf e;
    unsigned found = 0;
    int interp = sg_elf_interp(fd, r->interp, sizeof r->interp);
    if (interp < 0 || !sg_elf_header(fd, &e))
        return 0;
    if (interp == 0)
        found |= SG_STATIC;
    else if (!sg_interp_is_glibc(r->interp))
        found |= SG_FOREIGN_LOADER;
    return found | runtime_findings(fd, &e);
}

/* ------------------------------------------------------------------ */
/* The file as a whole. */

static unsigned file_findings(const char *path, struct sg_inspection *r)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    unsigned found = sg_secure_finding(fd) | elf_findings(fd, r);
    close(fd);
    if (sg_is_container_cli(path))
        found |= SG_DOCKER;
    return found;
}

int sg_inspect(const char *path, struct sg_inspection *r)
{
    char line[258];
    memset(r, 0, sizeof *r);
    snprintf(r->program, sizeof r->program, "%s", path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = pread(fd, line, sizeof line - 1, 0);
    close(fd);
    line[n > 0 ? n : 0] = '\0';
    if (n >= 2 && line[0] == '#' && line[1] == '!') {
        char interp[SG_PATH_SIZE];
        if (!script_interpreter(line, interp, sizeof interp))
            return 0;
        snprintf(r->script, sizeof r->script, "%s", path);
        snprintf(r->program, sizeof r->program, "%s", interp);
    }
    r->findings = file_findings(r->program, r);
    return 0;
}

/* ------------------------------------------------------------------ */
/* The warning: the one finding that matters most. */

void sg_warning(const struct sg_inspection *r, unsigned finding, char *buf, size_t size)
{
    const char *why = "";
    char loader[512];
    switch (finding) {
    case SG_SETUID:
    case SG_SETGID:
        why = finding == SG_SETUID ? "is setuid, so the dynamic linker drops LD_PRELOAD: its stdout is not guarded"
                                   : "is setgid, so the dynamic linker drops LD_PRELOAD: its stdout is not guarded";
        break;
    case SG_CAPABILITIES:
        why = "has file capabilities, so the dynamic linker drops LD_PRELOAD: its stdout is not guarded";
        break;
    case SG_DOCKER:
        why = "is a container CLI: the server runs in a container, which the library does not enter, "
              "so its stdout is not guarded (use stdiogate --strict, or stdiogate inside the image)";
        break;
    case SG_FOREIGN_LOADER:
        snprintf(loader, sizeof loader, "uses the loader %s, which cannot load libstdiogate.so: "
                 "it runs without the library, and its stdout is not guarded (use stdiogate --strict)",
                 r->interp);
        why = loader;
        break;
    case SG_STATIC:
        why = "is statically linked, so its own stdout is not guarded (programs it starts are; "
              "use stdiogate --strict)";
        break;
    case SG_GO:
        why = "is a Go program (raw system calls), so its own stdout is not guarded (programs it "
              "starts are; use stdiogate --strict)";
        break;
    case SG_BUN:
        why = "is a Bun program (raw system calls), so its own stdout is not guarded (programs it "
              "starts are; use stdiogate --strict)";
        break;
    }
    if (r->script[0])
        snprintf(buf, size, "%s runs %s, which %s", r->script, r->program, why);
    else
        snprintf(buf, size, "%s %s", r->program, why);
}
