/* SPDX-License-Identifier: MIT */
/* check/program.c - the program COMMAND names: which file it is, and what
 * stdiogate knows about it. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

/* ------------------------------------------------------------------ */
/* What stdiogate knows about the program: sg_inspect's findings, the
 * wrapper's warnings, and whether COMMAND is a launcher. */

static const char *launcher_kind(const char *command)
{
    static const char *const names[][2] = {
        { "npx", "npm exec" }, { "npm", "npm" }, { "pnpm", "pnpm" }, { "pnpx", "pnpm" },
        { "yarn", "yarn" }, { "bunx", "bun x" }, { "uvx", "uv tool run" }, { "uv", "uv" },
        { "pipx", "pipx" }, { "poetry", "poetry" }, { "env", "env" }, { "sh", "a shell" },
        { "bash", "a shell" }, { "dash", "a shell" }, { "zsh", "a shell" }, { "timeout", "timeout" },
        { "docker", "a container" }, { "podman", "a container" }, { "nix", "nix" },
    };
    const char *base = strrchr(command, '/');
    base = base ? base + 1 : command;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(base, names[i][0]) == 0)
            return names[i][1];
    return NULL;
}

const unsigned finding_bits[] = { SG_SETUID, SG_SETGID, SG_CAPABILITIES, SG_DOCKER,
                                  SG_FOREIGN_LOADER, SG_STATIC, SG_GO, SG_BUN };
const char *const finding_keys[] = { "setuid", "setgid", "capabilities", "container",
                                     "foreign_loader", "static", "go", "bun" };

/* A #! script saved with Windows line ends: its interpreter's name ends
 * in the carriage return, which the kernel takes as part of it. */
int windows_line_ends(const struct sg_inspection *in)
{
    size_t n = strlen(in->program);
    return in->script[0] && n && in->program[n - 1] == '\r';
}

void inspect_program(const char *command, const char *path, struct program_facts *f)
{
    size_t k = 0;
    memset(f, 0, sizeof *f);
    f->launcher = launcher_kind(command);
    f->known = sg_inspect(path, &f->in) == 0;
    if (!f->known) {
        snprintf(f->note, sizeof f->note, "cannot be read");
        return;
    }
    if (windows_line_ends(&f->in))
        k += (size_t)snprintf(f->note + k, sizeof f->note - k, "a #! script run by %.*s^M (Windows line ends); ",
                              (int)strlen(f->in.program) - 1, f->in.program);
    else if (f->in.script[0])
        k += (size_t)snprintf(f->note + k, sizeof f->note - k, "a #! script run by %s; ", f->in.program);
    if (f->in.findings & SG_STATIC)
        k += (size_t)snprintf(f->note + k, sizeof f->note - k, "statically linked");
    else if (f->in.interp[0])
        k += (size_t)snprintf(f->note + k, sizeof f->note - k, "dynamically linked (%s)", f->in.interp);
    else
        k += (size_t)snprintf(f->note + k, sizeof f->note - k, "not an ELF program");
    for (size_t i = 0; i < NFINDINGS && k < sizeof f->note; i++)
        if (finding_bits[i] != SG_STATIC && (f->in.findings & finding_bits[i]))
            k += (size_t)snprintf(f->note + k, sizeof f->note - k, ", %s", finding_keys[i]);
    if (f->launcher && k < sizeof f->note)
        snprintf(f->note + k, sizeof f->note - k, "; a launcher (%s): the server runs under it", f->launcher);
}

/* The default mode's choice for a program the library cannot enter, as
 * the wrapper makes it (check/wrapper.c): strict mode, unless
 * STDIOGATE_AUTO_STRICT=0 or the filter is not installed. */
/* What a finding makes of the program, in a few words (the wrapper's
 * level-2 line, the check's report). */
const char *finding_name(unsigned finding)
{
    switch (finding) {
    case SG_SETUID: return "a setuid program";
    case SG_SETGID: return "a setgid program";
    case SG_CAPABILITIES: return "a program with file capabilities";
    case SG_DOCKER: return "a container CLI (the server runs in a container)";
    case SG_FOREIGN_LOADER: return "a program whose loader cannot load libstdiogate.so";
    case SG_STATIC: return "a static program";
    case SG_GO: return "a Go program";
    case SG_BUN: return "a Bun program";
    }
    return "a program the library cannot guard";
}

void choose_default_mode(struct program_facts *f, int strict_available)
{
    f->auto_strict = NULL;
    if (!f->known || !strict_available || !sg_env_auto_strict(getenv(SG_ENV_AUTO_STRICT)))
        return;
    for (size_t i = 0; i < NFINDINGS; i++)
        if (f->in.findings & finding_bits[i]) {
            f->auto_strict = finding_name(finding_bits[i]);
            return;
        }
}

/* ------------------------------------------------------------------ */
/* Finding programs */

/* Sets out to the file exec would run for name, searching PATH as execvp
 * does.  Returns 0 found, 126 found but not executable, 127 not found. */
int resolve_command(const char *name, char *out, size_t cap)
{
    const char *path = getenv("PATH");
    int denied = 0;
    struct stat st;
    if (strchr(name, '/')) {
        snprintf(out, cap, "%s", name);
        if (stat(name, &st) != 0)
            return 127;
        return S_ISREG(st.st_mode) && access(name, X_OK) == 0 ? 0 : 126;
    }
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (;;) {
        const char *colon = strchr(path, ':');
        size_t len = colon ? (size_t)(colon - path) : strlen(path);
        char candidate[PATH_MAX];
        snprintf(candidate, sizeof candidate, "%.*s/%s", (int)(len ? len : 1), len ? path : ".", name);
        if (stat(candidate, &st) == 0) {
            if (S_ISREG(st.st_mode) && access(candidate, X_OK) == 0) {
                snprintf(out, cap, "%s", candidate);
                return 0;
            }
            if (!denied) {
                snprintf(out, cap, "%s", candidate);
                denied = 1;
            }
        }
        if (!colon)
            break;
        path = colon + 1;
    }
    return denied ? 126 : 127;
}

/* The directory this program is in (where the library and
 * stdiogate-filter are installed beside it). */
void own_directory(char *out, size_t cap)
{
    ssize_t n = readlink("/proc/self/exe", out, cap - 1);
    char *slash;
    if (n <= 0) {
        snprintf(out, cap, ".");
        return;
    }
    out[n] = '\0';
    slash = strrchr(out, '/');
    if (slash)
        *slash = '\0';
}

