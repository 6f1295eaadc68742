/* SPDX-License-Identifier: MIT */
/* driver.h - the driver both harness families share (harness.h: the
 * first-message detector; stream_harness.h: the stream classifier): the
 * pseudo-random generator, and the pieces an input is fed in (whole, byte
 * by byte, or pseudo-random lengths from a seed). */
#ifndef STDIOGATE_FUZZ_DRIVER_H
#define STDIOGATE_FUZZ_DRIVER_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t fz_splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The generator argument of fz_piece(): the whole input in one piece, or
 * one byte at a time; any other value points at a generator's state. */
#define FZ_WHOLE ((uint64_t *)0)
#define FZ_BYTEWISE ((uint64_t *)1)

/* The length of the next piece when `left` bytes are still to be fed: all
 * of them (FZ_WHOLE), one (FZ_BYTEWISE), or from *rng one, up to 8, up to
 * 64 or up to `big` bytes, a quarter of the time each (at most `left`). */
static inline size_t fz_piece(uint64_t *rng, size_t left, size_t big)
{
    size_t len;
    if (rng == FZ_WHOLE)
        return left;
    if (rng == FZ_BYTEWISE)
        return 1;
    uint64_t x = fz_splitmix(rng);
    switch (x & 3) {
    case 0: len = 1; break;
    case 1: len = 1 + (size_t)((x >> 8) % 8); break;
    case 2: len = 1 + (size_t)((x >> 8) % 64); break;
    default: len = 1 + (size_t)((x >> 8) % big); break;
    }
    return len > left ? left : len;
}

#endif
