/* SPDX-License-Identifier: MIT */
/* reference.h - whole-buffer reference for detect.h (see reference.c). */
#ifndef STDIOGATE_REFERENCE_H
#define STDIOGATE_REFERENCE_H

#include <stddef.h>

/* Where the client's first message ends in buf[0..n): 0 while the buffer
 * holds no complete first message, else k (1..n): it ended with buf[k-1]. */
size_t ref_first_message_end(const unsigned char *buf, size_t n);

#endif
