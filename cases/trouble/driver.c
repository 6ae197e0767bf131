/*
 * Function-level grading driver for the Trouble assignment.
 *
 * Compiled together with the student's main.c built with -DTEST_MAIN (which
 * removes the template's main). Reads one command per line from standard
 * input and calls the student's functions; see cases/trouble/README.md for
 * the command language. Uses only the six required functions and the global
 * arrays of the template, never any helper of the student's.
 */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/driver-main.h"

extern int gPieces[16];
extern int gHome[4];
extern int gRing[28];
extern int gFinish[4][4];

void initializeBoard();
void printStatus();
int printMoves(int player, int roll);
int movePiece(int player, int from, int roll);
int checkWin(int player);

/* Parse a location string of the handout; 1 on success with *loc set. */
static int drv_parse_location(const char *s, int *loc) {
    static const char colors[] = "RGYB";
    const char *p;
    int color;

    if (strcmp(s, "H") == 0) {
        *loc = -1;
        return 1;
    }
    if (s[0] == '\0' || (p = strchr(colors, s[0])) == NULL) {
        return 0;
    }
    color = (int)(p - colors);
    if (s[1] >= '1' && s[1] <= '7' && s[2] == '\0') {
        *loc = 7 * color + (s[1] - '1');
        return 1;
    }
    if (s[1] == 'F' && s[2] >= '1' && s[2] <= '4' && s[3] == '\0') {
        *loc = 100 + 10 * color + (s[2] - '1');
        return 1;
    }
    return 0;
}

/* Set the start-of-game state without calling the student's code. */
static void drv_clear(void) {
    int i, k;
    for (i = 0; i < 16; i++) {
        gPieces[i] = -1;
    }
    for (i = 0; i < 28; i++) {
        gRing[i] = -1;
    }
    for (i = 0; i < 4; i++) {
        gHome[i] = 4;
        for (k = 0; k < 4; k++) {
            gFinish[i][k] = -1;
        }
    }
}

/* Fill every global with junk. */
static void drv_scramble(void) {
    int i, k;
    for (i = 0; i < 16; i++) {
        gPieces[i] = 90 + i;
    }
    for (i = 0; i < 28; i++) {
        gRing[i] = 50 + i;
    }
    for (i = 0; i < 4; i++) {
        gHome[i] = 7;
        for (k = 0; k < 4; k++) {
            gFinish[i][k] = 60 + 4 * i + k;
        }
    }
}

/* Move piece p to loc, keeping all four arrays consistent. */
static void drv_place(int p, int loc) {
    int old = gPieces[p];

    if (old == -1) {
        gHome[p / 4]--;
    } else if (old >= 0 && old < 28) {
        if (gRing[old] == p) {
            gRing[old] = -1;
        }
    } else if (old >= 100 && old < 140 && (old - 100) % 10 < 4) {
        if (gFinish[(old - 100) / 10][(old - 100) % 10] == p) {
            gFinish[(old - 100) / 10][(old - 100) % 10] = -1;
        }
    }

    if (loc == -1) {
        gHome[p / 4]++;
    } else if (loc < 28) {
        gRing[loc] = p;
    } else {
        gFinish[(loc - 100) / 10][(loc - 100) % 10] = p;
    }
    gPieces[p] = loc;
}

static void drv_print_values(const char *label, const int *values, int n) {
    int i;
    printf("%s", label);
    for (i = 0; i < n; i++) {
        printf(" %d", values[i]);
    }
    printf("\n");
}

static void drv_dump(void) {
    char label[16];
    int c;
    drv_print_values("gPieces:", gPieces, 16);
    drv_print_values("gHome:", gHome, 4);
    drv_print_values("gRing:", gRing, 28);
    for (c = 0; c < 4; c++) {
        snprintf(label, sizeof label, "gFinish[%d]:", c);
        drv_print_values(label, gFinish[c], 4);
    }
}

static void drv_bad_arguments(void) {
    printf("bad arguments\n");
}

/* Standard output saved while a function runs silenced, or -1. */
static int drv_saved_stdout = -1;

/*
 * movePiece and checkWin must print nothing: `move` and `win` send what they
 * print to /dev/null, so that a stray print costs only the `show` cases.
 */
static void drv_silence(int silence) {
    int null_fd;

    if (!silence) {
        return;
    }
    fflush(stdout);
    drv_saved_stdout = dup(1);
    null_fd = open("/dev/null", O_WRONLY);
    if (null_fd >= 0) {
        dup2(null_fd, 1);
        close(null_fd);
    }
}

static void drv_unsilence(void) {
    if (drv_saved_stdout < 0) {
        return;
    }
    fflush(stdout);
    dup2(drv_saved_stdout, 1);
    close(drv_saved_stdout);
    drv_saved_stdout = -1;
}

/* Execute one already echoed command; `show` shows what movePiece or checkWin print. */
void drv_command(char **tok, int ntok) {
    const char *cmd = tok[0];
    int a, b, c;
    int silence = 1;

    if (strcmp(cmd, "show") == 0 && ntok >= 2 && (strcmp(tok[1], "move") == 0 || strcmp(tok[1], "win") == 0)) {
        tok++;
        ntok--;
        cmd = tok[0];
        silence = 0;
    }

    if (strcmp(cmd, "clear") == 0 && ntok == 1) {
        drv_clear();
    } else if (strcmp(cmd, "scramble") == 0 && ntok == 1) {
        drv_scramble();
    } else if (strcmp(cmd, "init") == 0 && ntok == 1) {
        initializeBoard();
    } else if (strcmp(cmd, "status") == 0 && ntok == 1) {
        printStatus();
    } else if (strcmp(cmd, "dump") == 0 && ntok == 1) {
        drv_dump();
    } else if (strcmp(cmd, "place") == 0 && ntok == 3) {
        if (!drv_parse_int(tok[1], &a) || a < 0 || a > 15 || !drv_parse_location(tok[2], &b)) {
            drv_bad_arguments();
            return;
        }
        drv_place(a, b);
    } else if (strcmp(cmd, "moves") == 0 && ntok == 3) {
        if (!drv_parse_int(tok[1], &a) || a < 0 || a > 3 || !drv_parse_int(tok[2], &b)) {
            drv_bad_arguments();
            return;
        }
        c = printMoves(a, b);
        printf("printMoves returned %d\n", c);
    } else if (strcmp(cmd, "move") == 0 && ntok == 4) {
        if (!drv_parse_int(tok[1], &a) || a < 0 || a > 3 || !drv_parse_location(tok[2], &b)
            || !drv_parse_int(tok[3], &c)) {
            drv_bad_arguments();
            return;
        }
        drv_silence(silence);
        c = movePiece(a, b, c);
        drv_unsilence();
        printf("movePiece returned %d\n", c);
    } else if (strcmp(cmd, "win") == 0 && ntok == 2) {
        if (!drv_parse_int(tok[1], &a) || a < 0 || a > 3) {
            drv_bad_arguments();
            return;
        }
        drv_silence(silence);
        c = checkWin(a);
        drv_unsilence();
        printf("checkWin returned %d\n", c);
    } else if (strcmp(cmd, "clear") == 0 || strcmp(cmd, "scramble") == 0
               || strcmp(cmd, "init") == 0 || strcmp(cmd, "status") == 0
               || strcmp(cmd, "dump") == 0 || strcmp(cmd, "place") == 0
               || strcmp(cmd, "moves") == 0 || strcmp(cmd, "move") == 0
               || strcmp(cmd, "win") == 0 || strcmp(cmd, "show") == 0) {
        drv_bad_arguments();
    } else {
        printf("unknown command\n");
    }
}
