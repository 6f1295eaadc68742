/* SPDX-License-Identifier: MIT */
/* banner.c - a program that prints one line at start with write(2), as
 * Python's print, Node's console.log and Rust's println! do, and exits 0:
 * the start cost with startup junk that stderr takes at once. */
#include <unistd.h>

int main(void)
{
    return write(1, "hello\n", 6) == 6 ? 0 : 1;
}
