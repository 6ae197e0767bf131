/*
 * The command loop of every function-level driver: see driver-main.h.
 *
 * Compiled as its own translation unit beside the student's files and the
 * assignment's driver.c; a recipe may rename the student's main with
 * -Dmain=student_main, which must not rename this one.
 */

#undef main

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver-main.h"

/* Parse a whole token as a (decimal) int; 1 on success. */
int drv_parse_int(const char *s, int *value) {
    char *end;
    long v;

    if (s[0] == '\0') {
        return 0;
    }
    v = strtol(s, &end, 10);
    if (*end != '\0' || v < -1000000 || v > 1000000) {
        return 0;
    }
    *value = (int)v;
    return 1;
}

/* Read one line of any length; NULL at end of input. Caller frees. */
static char *drv_read_line(void) {
    size_t cap = 128, len = 0;
    char *buf = malloc(cap);
    int c;

    if (buf == NULL) {
        return NULL;
    }
    while ((c = getchar()) != EOF && c != '\n') {
        if (len + 1 >= cap) {
            char *bigger;
            cap *= 2;
            bigger = realloc(buf, cap);
            if (bigger == NULL) {
                free(buf);
                return NULL;
            }
            buf = bigger;
        }
        buf[len++] = (char)c;
    }
    if (c == EOF && len == 0) {
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    return buf;
}

int main(void) {
    char *line;
    char **tok;
    char *p;
    int ntok, i;

    setvbuf(stdout, NULL, _IONBF, 0);

    while ((line = drv_read_line()) != NULL) {
        /* a line of n characters holds at most (n + 1) / 2 tokens */
        tok = malloc((strlen(line) / 2 + 2) * sizeof *tok);
        if (tok == NULL) {
            free(line);
            return 1;
        }
        ntok = 0;
        p = line;
        while (*p != '\0') {
            while (*p == ' ' || *p == '\t' || *p == '\r') {
                *p++ = '\0';
            }
            if (*p == '\0') {
                break;
            }
            tok[ntok++] = p;
            while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\r') {
                p++;
            }
        }
        if (ntok > 0 && tok[0][0] != '#') {
            printf(">");
            for (i = 0; i < ntok; i++) {
                printf(" %s", tok[i]);
            }
            printf("\n");
            drv_command(tok, ntok);
        }
        free(tok);
        free(line);
    }
    return 0;
}
