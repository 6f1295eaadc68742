/* SPDX-License-Identifier: MIT */
/* trivial.c - the smallest dynamically linked C program that uses stdio:
 * one line on stdout, exit 0.  Stands for "any C program" in the
 * per-process cost. */
#include <stdio.h>

int main(void)
{
    puts("hello");
    return 0;
}
