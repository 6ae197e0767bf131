/*
 * Preload library for the backgammon cases: seeds glibc's random() before
 * the student's main runs, so that a case can vary the dice without touching
 * the student's code.
 *
 *   gcc -shared -fPIC -o seed.so seed.c
 *   LD_PRELOAD=./seed.so BACKGAMMON_SEED=5 ./program
 *
 * Without BACKGAMMON_SEED it does nothing, and the program draws glibc's
 * default sequence (the same as srandom(1)).
 */

#define _DEFAULT_SOURCE

#include <stdlib.h>

__attribute__((constructor)) static void backgammon_seed(void)
{
    const char *value = getenv("BACKGAMMON_SEED");

    if (value != NULL) {
        srandom((unsigned) strtoul(value, NULL, 10));
    }
}
