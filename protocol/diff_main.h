/* SPDX-License-Identifier: MIT */
/* diff_main.h - what the two differential drivers (diff.c, stream_diff.c)
 * share: their options, their time budget and the growing buffer they build
 * their inputs in.
 *
 *   PROG [-s SEED] [-n ITERATIONS] [-t SECONDS] [-v] | FILE...
 */
#ifndef STDIOGATE_DIFF_MAIN_H
#define STDIOGATE_DIFF_MAIN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct diff_opts {
    uint64_t seed;
    unsigned long iterations;
    double seconds;
    int verbose;
    struct timespec start;
};

/* Parses the options into o (defaults: seed 1, 20000 iterations, 20 s) and
 * starts the clock.  Returns the index of the first FILE (argc if none), or
 * -1 after a usage line on stderr. */
static int diff_options(int argc, char **argv, struct diff_opts *o)
{
    int i;
    *o = (struct diff_opts){ .seed = 1, .iterations = 20000, .seconds = 20 };
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-s") == 0 && i + 1 < argc)
            o->seed = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
            o->iterations = strtoul(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
            o->seconds = strtod(argv[++i], NULL);
        else if (strcmp(argv[i], "-v") == 0)
            o->verbose = 1;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: %s [-s SEED] [-n ITERATIONS] [-t SECONDS] [-v] | FILE...\n", argv[0]);
            return -1;
        } else
            break;
    }
    clock_gettime(CLOCK_MONOTONIC, &o->start);
    return i;
}

/* The SECONDS budget is spent. */
static int diff_time_is_up(const struct diff_opts *o)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - o->start.tv_sec) + (double)(t.tv_nsec - o->start.tv_nsec) / 1e9 > o->seconds;
}

/* The input being built: grows by doubling; out of memory is exit 2. */
struct buf {
    uint8_t *p;
    size_t n, cap;
};

static void put(struct buf *b, const void *s, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n)
            cap *= 2;
        b->p = realloc(b->p, cap);
        if (b->p == NULL) {
            perror("realloc");
            exit(2);
        }
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

static void puts_(struct buf *b, const char *s)
{
    put(b, s, strlen(s));
}

#endif
