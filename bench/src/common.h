/* SPDX-License-Identifier: MIT */
/* common.h - small helpers shared by the bench programs (not by the library). */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static inline long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline void die(const char *what)
{
    fprintf(stderr, "bench: %s: %s\n", what, strerror(errno));
    exit(2);
}

/* A child environment: ours, with NAME=VALUE entries replaced or added
 * (-e) and names removed (-u).  The bench programs themselves are never run
 * with LD_PRELOAD: only the programs they start get it. */
struct envb {
    char **v;
    size_t n, cap;
};

static inline void env_init(struct envb *e)
{
    e->n = 0;
    e->cap = 16;
    for (char **p = environ; *p; p++)
        e->cap++;
    e->cap += 16;
    e->v = calloc(e->cap, sizeof *e->v);
    if (!e->v)
        die("calloc");
    for (char **p = environ; *p; p++)
        e->v[e->n++] = *p;
}

static inline void env_unset(struct envb *e, const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < e->n; i++) {
        if (strncmp(e->v[i], name, len) == 0 && e->v[i][len] == '=') {
            e->v[i] = e->v[--e->n];
            e->v[e->n] = NULL;
            i--;
        }
    }
}

static inline void env_set(struct envb *e, char *assignment)
{
    char *eq = strchr(assignment, '=');
    if (!eq) {
        fprintf(stderr, "bench: -e wants NAME=VALUE, got %s\n", assignment);
        exit(2);
    }
    char name[256];
    size_t len = (size_t)(eq - assignment);
    if (len >= sizeof name)
        exit(2);
    memcpy(name, assignment, len);
    name[len] = 0;
    env_unset(e, name);
    if (e->n + 2 > e->cap) {
        e->cap *= 2;
        e->v = realloc(e->v, e->cap * sizeof *e->v);
        if (!e->v)
            die("realloc");
    }
    e->v[e->n++] = assignment;
    e->v[e->n] = NULL;
}

/* STDIOGATE_WIRE=<st_dev>:<st_ino> for the open file on fd. */
static inline char *wire_of(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        die("fstat");
    char *s = malloc(96);
    if (!s)
        die("malloc");
    snprintf(s, 96, "STDIOGATE_WIRE=%llu:%llu", (unsigned long long)st.st_dev,
             (unsigned long long)st.st_ino);
    return s;
}

/* posix_spawnp, or dies naming the program. */
static inline pid_t spawn_or_die(const posix_spawn_file_actions_t *fa, char **argv, char **env)
{
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], fa, NULL, argv, env);
    if (rc != 0) {
        errno = rc;
        die(argv[0]);
    }
    return pid;
}

/* Writes all of p[0..n) to fd, through EINTR; on an error dies with `what`
 * on stderr, or exits 1 silently when `what` is NULL (a server's stderr is
 * not the bench's). */
static inline void write_all(int fd, const char *p, size_t n, const char *what)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (!what)
                exit(1);
            die(what);
        }
        p += w;
        n -= (size_t)w;
    }
}

/* The options of the programs that start one (spawnloop, client):
 * -n N, -w (STDIOGATE_WIRE of its stdout), -e NAME=VALUE, -u NAME. */
struct run_opts {
    long n;
    int wire;
    char *sets[64];
    int nsets;
    struct envb env;
};

static inline void run_opts_init(struct run_opts *o, long n)
{
    o->n = n;
    o->wire = 0;
    o->nsets = 0;
    env_init(&o->env);
}

/* One option from getopt(); 0 if it is not one of these. */
static inline int run_opt(struct run_opts *o, int opt, char *arg)
{
    switch (opt) {
    case 'n': o->n = atol(arg); return 1;
    case 'w': o->wire = 1; return 1;
    case 'e': if (o->nsets < 64) o->sets[o->nsets++] = arg; return 1;
    case 'u': env_unset(&o->env, arg); return 1;
    default: return 0;
    }
}

/* The child's environment once the options are read: the -e assignments,
 * then with -w the identity of wire_fd's pipe. */
static inline char **run_env(struct run_opts *o, int wire_fd)
{
    for (int i = 0; i < o->nsets; i++)
        env_set(&o->env, o->sets[i]);
    if (o->wire)
        env_set(&o->env, wire_of(wire_fd));
    return o->env.v;
}

#endif
