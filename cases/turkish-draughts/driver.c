/*
 * Function-level grading driver for the Turkish draughts assignment.
 *
 * Includes the student's file (gathered into student-source.c in the build
 * folder, its main renamed), so that the student's own piece and player types
 * and prototypes are the ones used, and answers one command per line on
 * standard input (see reference/src/turkish_draughts/driver.rs for the
 * language). Never calls sample_game_1 or sample_game_2. What the student's
 * functions print goes to /dev/null except under `display`.
 */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define main student_main
#include "student-source.c"
#undef main

#include "../common/driver-main.h"

static piece drv_board[8][8];

/* The handout's symbol of a piece; '?' for a value that is no piece. */
static char drv_symbol(piece p) {
    switch (p) {
    case white_man: return 'w';
    case black_man: return 'b';
    case white_king: return 'W';
    case black_king: return 'B';
    case empty: return '-';
    default: return '?';
    }
}

/* The piece of a symbol; 1 on success. */
static int drv_piece(char c, piece *p) {
    switch (c) {
    case 'w': *p = white_man; return 1;
    case 'b': *p = black_man; return 1;
    case 'W': *p = white_king; return 1;
    case 'B': *p = black_king; return 1;
    case '-': *p = empty; return 1;
    default: return 0;
    }
}

static int drv_saved_stdout = -1;

/* Sends what the student's code prints to /dev/null until drv_loud. */
static void drv_quiet(void) {
    int null = open("/dev/null", O_WRONLY);
    fflush(stdout);
    drv_saved_stdout = dup(1);
    if (null >= 0) {
        dup2(null, 1);
        close(null);
    }
}

static void drv_loud(void) {
    fflush(stdout);
    if (drv_saved_stdout >= 0) {
        dup2(drv_saved_stdout, 1);
        close(drv_saved_stdout);
        drv_saved_stdout = -1;
    }
}

static void drv_dump(void) {
    for (int x = 0; x < 8; x++) {
        for (int y = 0; y < 8; y++) {
            putchar(drv_symbol(drv_board[x][y]));
        }
        putchar('\n');
    }
}

static void drv_fill(const char *rows) {
    for (int x = 0; x < 8; x++) {
        for (int y = 0; y < 8; y++) {
            drv_board[x][y] = empty;
        }
    }
    for (int x = 0, i = 0; x < 8; x++, i++) {
        for (int y = 0; y < 8; y++, i++) {
            if (rows != NULL) {
                drv_piece(rows[i], &drv_board[x][y]);
            }
        }
    }
}

static int drv_coordinate(const char *s, int *value) {
    return drv_parse_int(s, value) && *value >= 0 && *value < 8;
}

void drv_command(char **tok, int ntok) {
    const char *cmd = tok[0];
    int fx, fy, tx, ty, r;
    piece p;

    if (strcmp(cmd, "clear") == 0 && ntok == 1) {
        drv_fill(NULL);
    } else if (strcmp(cmd, "start") == 0 && ntok == 1) {
        drv_fill("--------/bbbbbbbb/bbbbbbbb/--------/--------/wwwwwwww/wwwwwwww/--------");
    } else if (strcmp(cmd, "init") == 0 && ntok == 1) {
        drv_quiet();
        init_board(drv_board);
        drv_loud();
    } else if (strcmp(cmd, "position") == 0 && ntok == 2 && strlen(tok[1]) == 71) {
        drv_fill(tok[1]);
    } else if (strcmp(cmd, "set") == 0 && ntok == 4 && drv_coordinate(tok[1], &fx)
               && drv_coordinate(tok[2], &fy) && drv_piece(tok[3][0], &p)) {
        drv_board[fx][fy] = p;
    } else if (strcmp(cmd, "move") == 0 && ntok == 6 && drv_coordinate(tok[1], &fx)
               && drv_coordinate(tok[2], &fy) && drv_coordinate(tok[3], &tx)
               && drv_coordinate(tok[4], &ty)
               && (strcmp(tok[5], "white") == 0 || strcmp(tok[5], "black") == 0)) {
        int was_empty = drv_board[fx][fy] == empty;
        player who = strcmp(tok[5], "white") == 0 ? white : black;
        drv_quiet();
        r = move(drv_board, fx, fy, tx, ty, who);
        drv_loud();
        if (was_empty && (r == -1 || r == -2)) {
            printf("move from an empty square returned -1 or -2\n");
        } else {
            printf("move returned %d\n", r);
        }
    } else if (strcmp(cmd, "end") == 0 && ntok == 1) {
        drv_quiet();
        r = check_end_of_game(drv_board);
        drv_loud();
        printf("check_end_of_game returned %d\n", r);
    } else if (strcmp(cmd, "dump") == 0 && ntok == 1) {
        drv_dump();
    } else if (strcmp(cmd, "display") == 0 && ntok == 1) {
        fflush(stdout);
        display_board(drv_board);
        fflush(stdout);
    } else {
        printf("bad command\n");
    }
}
