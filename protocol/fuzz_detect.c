/* SPDX-License-Identifier: MIT */
/* fuzz_detect.c - libFuzzer target for detect.h.
 *
 * Each input is the byte stream a server reads from stdin.  It is fed to the
 * detector whole, byte by byte and in several pseudo-random chunkings (the
 * split points derive from the input, so a crash reproduces from the file
 * alone); after every call the detector's state must be in bounds, every way
 * of splitting must give the same end offset, and that offset must be the
 * whole-buffer reference's (protocol/reference.c).  Any violation aborts with a
 * message, and libFuzzer saves the input.
 *
 * Build and run: make fuzz (FUZZ_SECONDS, default 60).  Reproduce:
 *   protocol/bin/fuzz_detect CRASH-FILE
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char msg[256];
    if (h_check(data, size, 4, msg, sizeof msg) != NULL) {
        fprintf(stderr, "detect.h: %s\ninput (%zu bytes): ", msg, size);
        if (size <= 512)
            h_print_c(stderr, data, size);
        else
            fputs("(long; see the saved crash file)", stderr);
        fputc('\n', stderr);
        abort();
    }
    return 0;
}
