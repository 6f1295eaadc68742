/* SPDX-License-Identifier: MIT */
/* fuzz_stream.c - libFuzzer target for detect.h's stream classifier (strict
 * mode).  The first byte picks the protocol (auto, jsonl, framed), the rest
 * is what a server writes.  Checks (protocol/stream_harness.h): the same verdict
 * for every byte whole, byte by byte and in random pieces; the bound on held
 * bytes; for jsonl, the wire against a whole-buffer reference parser. */
#include "stream_harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char msg[256];
    if (size == 0)
        return 0;
    enum sg_protocol proto = (enum sg_protocol)(data[0] % 3);
    const char *why = sh_check(data + 1, size - 1, proto, 4, msg, sizeof msg);
    if (why) {
        fprintf(stderr, "%s (protocol %d)\n", why, (int)proto);
        abort();
    }
    return 0;
}
