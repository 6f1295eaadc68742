/* SPDX-License-Identifier: MIT */
/* stall.h - when a stderr that takes nothing counts as read by nobody.
 *
 * Junk kept off the wire goes to stderr.  While stderr's reader keeps up,
 * or is merely slow, the server waits for it (as its own stderr writes
 * would): nothing is lost.  A stderr that has accepted no byte at all for
 * SG_STALL_MS is taken as read by nobody: junk is dropped and counted from
 * then on (until it accepts again), so that the server never blocks for
 * good.  One rule for every place that decides it: the filter's junk path
 * (filter/junk.c), which both the strict filter and the drain run (the helper,
 * `stdiogate-filter --drain`, started by lib/helper.c), and the library's
 * own bounded waits (lib/write.c, write_whole; lib/guard.c).
 */
#ifndef STDIOGATE_STALL_H
#define STDIOGATE_STALL_H

#define SG_STALL_MS 5000

#endif
