/* SPDX-License-Identifier: MIT */
/* endof.c - print where the first message ends in FILE, as the streaming
 * detector (fed whole) and the reference see it: "DETECTOR REFERENCE"
 * (0: no complete first message).  For hand-written test cases. */
#include <stdio.h>
#include <stdlib.h>

#include "detect.h"
#include "reference.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL) {
        perror(argv[1]);
        return 2;
    }
    size_t cap = 1 << 16, n = 0, got;
    unsigned char *p = malloc(cap);
    while (p != NULL && (got = fread(p + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            p = realloc(p, cap *= 2);
    }
    fclose(f);
    if (p == NULL)
        return 2;
    struct sg_detect d;
    sg_detect_init(&d);
    printf("%zu %zu\n", sg_detect_feed(&d, p, n), ref_first_message_end(p, n));
    free(p);
    return 0;
}
