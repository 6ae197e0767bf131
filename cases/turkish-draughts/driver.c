/*
 * Function-level grading driver for the Turkish draughts assignment.
 *
 * Includes the student's file (gathered into student-source.c in the build
 * folder, its main renamed), so that the student's own piece and player types
 * and prototypes are the ones used, and answers one command per line on
 * standard input (see reference/src/turkish_draughts/driver.rs for the
 * language). Never calls sample_game_1 or sample_game_2. What the student's
 * functions print goes to /dev/null except under `display`.
 *
 * Commands speak the handout's conventions. Before the first command the
 * driver detects the student's own (where init_board puts white, whether
 * move() counts from 0 or 1, and how it takes a capture sequence: its final
 * square, its first landing, or one jump per call) and translates every
 * square, so that the rules are graded under them; `conventions` prints what
 * it found of the first two, which the handout's figure settles, and
 * `capture-convention` the third (all three ways of taking a sequence are
 * correct).
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

/* The student's conventions, detected once before the first command. */
static int drv_detected = 0;
static int drv_flip = 0;      /* white starts on rows 1-2: rows are mirrored */
static int drv_transpose = 0; /* the first index is the column */
static int drv_base = 0;      /* move() takes coordinates from 1 */
static const char *drv_orientation = "white starts on rows 5-6";
static const char *drv_counting = "0-based coordinates";
/* How move() takes a capture sequence. */
static enum { DRV_FINAL_SQUARE, DRV_FIRST_LANDING, DRV_ONE_JUMP } drv_captures = DRV_FINAL_SQUARE;
static const char *drv_capture_convention = "the final square";

/* The student's array indices of the handout's square (x, y). */
static piece *drv_cell(piece board[][8], int x, int y) {
    if (drv_flip) {
        x = 7 - x;
    }
    return drv_transpose ? &board[y][x] : &board[x][y];
}

/* The two coordinates the student's move() gets for the handout's square (x, y). */
static void drv_args(int x, int y, int *a, int *b) {
    if (drv_flip) {
        x = 7 - x;
    }
    *a = (drv_transpose ? y : x) + drv_base;
    *b = (drv_transpose ? x : y) + drv_base;
}

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
            putchar(drv_symbol(*drv_cell(drv_board, x, y)));
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
                drv_piece(rows[i], drv_cell(drv_board, x, y));
            }
        }
    }
}

static const char *drv_start_rows =
    "--------/bbbbbbbb/bbbbbbbb/--------/--------/wwwwwwww/wwwwwwww/--------";

/* The rows (or columns) where init_board put white men; -1 when it is none of them. */
static int drv_white_line(piece board[][8], int transposed) {
    for (int line = 1; line <= 5; line += 4) {
        int all = 1;
        for (int k = 0; k < 8 && all; k++) {
            piece a = transposed ? board[k][line] : board[line][k];
            piece b = transposed ? board[k][line + 1] : board[line + 1][k];
            all = a == white_man && b == white_man;
        }
        if (all) {
            return line;
        }
    }
    return -1;
}

/* White's man on (5, 3) can take (4, 3) and then (2, 3): one sequence, final square (1, 3). */
static const char *drv_two_captures =
    "--------/--------/---b----/--------/---b----/---w----/--------/--------";

/* Calls the student's move() for white on the handout's squares. */
static int drv_white_move(int fx, int fy, int tx, int ty) {
    int a, b, c, d, r;
    drv_args(fx, fy, &a, &b);
    drv_args(tx, ty, &c, &d);
    drv_quiet();
    r = move(drv_board, a, b, c, d, white);
    drv_loud();
    return r;
}

/* How move() takes a capture sequence: the final square, the first landing, or one jump per call.
 * A program that plays one jump per call is left in the middle of its sequence by the second try,
 * so the third finishes that same sequence. */
static void drv_detect_captures(void) {
    const char *found = "not detected (taken as the final square)";
    int r;

    drv_fill(drv_two_captures);
    if (drv_white_move(5, 3, 1, 3) == 2 && *drv_cell(drv_board, 1, 3) == white_man) {
        found = "the final square";
    } else {
        drv_fill(drv_two_captures);
        r = drv_white_move(5, 3, 3, 3);
        if (r == 2 && *drv_cell(drv_board, 1, 3) == white_man) {
            drv_captures = DRV_FIRST_LANDING;
            found = "the first landing, move() finishing the sequence";
        } else if (r == 1 && *drv_cell(drv_board, 3, 3) == white_man
                   && drv_white_move(3, 3, 1, 3) == 1 && *drv_cell(drv_board, 1, 3) == white_man) {
            drv_captures = DRV_ONE_JUMP;
            found = "one jump per call";
        }
    }
    drv_capture_convention = found;
}

/* Detects the orientation from init_board, then the coordinate base from one opening move. */
static void drv_detect(void) {
    static piece scratch[8][8];
    int line;

    drv_detected = 1;
    for (int x = 0; x < 8; x++) {
        for (int y = 0; y < 8; y++) {
            scratch[x][y] = empty;
        }
    }
    drv_quiet();
    init_board(scratch);
    drv_loud();
    if ((line = drv_white_line(scratch, 0)) >= 0) {
        drv_flip = line == 1;
    } else if ((line = drv_white_line(scratch, 1)) >= 0) {
        drv_transpose = 1;
        drv_flip = line == 1;
    } else {
        drv_orientation = "white men not found on two full rows after init_board";
        return;
    }
    if (drv_transpose) {
        drv_orientation = drv_flip ? "the board transposed, white on columns 1-2"
                                   : "the board transposed, white on columns 5-6";
    } else if (drv_flip) {
        drv_orientation = "white starts on rows 1-2";
    }
    /* White's man on (5, 3) steps to (4, 3): 0 from a move() that reads the squares as given. */
    for (drv_base = 0; drv_base <= 1; drv_base++) {
        drv_fill(drv_start_rows);
        if (drv_white_move(5, 3, 4, 3) == 0 && *drv_cell(drv_board, 4, 3) == white_man) {
            drv_counting = drv_base ? "1-based coordinates" : "0-based coordinates";
            drv_detect_captures();
            drv_fill(NULL);
            return;
        }
    }
    drv_base = 0;
    drv_counting = "coordinates not detected (the opening move 5 3 4 3 was refused)";
    drv_fill(NULL);
}

static int drv_coordinate(const char *s, int *value) {
    return drv_parse_int(s, value) && *value >= 0 && *value < 8;
}

void drv_command(char **tok, int ntok) {
    const char *cmd = tok[0];
    int fx, fy, tx, ty, a, b, c, d, r;
    piece p;

    if (!drv_detected) {
        drv_detect();
    }
    if (strcmp(cmd, "clear") == 0 && ntok == 1) {
        drv_fill(NULL);
    } else if (strcmp(cmd, "start") == 0 && ntok == 1) {
        drv_fill(drv_start_rows);
    } else if (strcmp(cmd, "init") == 0 && ntok == 1) {
        drv_quiet();
        init_board(drv_board);
        drv_loud();
    } else if (strcmp(cmd, "position") == 0 && ntok == 2 && strlen(tok[1]) == 71) {
        drv_fill(tok[1]);
    } else if (strcmp(cmd, "set") == 0 && ntok == 4 && drv_coordinate(tok[1], &fx)
               && drv_coordinate(tok[2], &fy) && drv_piece(tok[3][0], &p)) {
        *drv_cell(drv_board, fx, fy) = p;
    } else if (strcmp(cmd, "move") == 0 && ntok >= 6 && ntok % 2 == 0 && ntok <= 6 + 2 * 32
               && drv_coordinate(tok[1], &fx) && drv_coordinate(tok[2], &fy)
               && drv_coordinate(tok[3], &tx) && drv_coordinate(tok[4], &ty)
               && (strcmp(tok[5], "white") == 0 || strcmp(tok[5], "black") == 0)) {
        /* The landing squares of a capture sequence, the last being (tx, ty). */
        int lx[32], ly[32], n = (ntok - 6) / 2, ok = 1;
        for (int k = 0; k < n && ok; k++) {
            ok = drv_coordinate(tok[6 + 2 * k], &lx[k]) && drv_coordinate(tok[7 + 2 * k], &ly[k]);
        }
        if (!ok) {
            printf("bad command\n");
            return;
        }
        int was_empty = *drv_cell(drv_board, fx, fy) == empty;
        player who = strcmp(tok[5], "white") == 0 ? white : black;
        if (n == 0 || drv_captures == DRV_FINAL_SQUARE) {
            lx[0] = tx;
            ly[0] = ty;
            n = 1;
        } else if (drv_captures == DRV_FIRST_LANDING) {
            n = 1;
        }
        /* One call, or one per jump: the captures add up; the first refusal is the answer. */
        r = 0;
        for (int k = 0, x = fx, y = fy; k < n; x = lx[k], y = ly[k], k++) {
            int rk;
            drv_args(x, y, &a, &b);
            drv_args(lx[k], ly[k], &c, &d);
            drv_quiet();
            rk = move(drv_board, a, b, c, d, who);
            drv_loud();
            if (rk < 0) {
                r = rk;
                break;
            }
            r += rk;
        }
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
    } else if (strcmp(cmd, "conventions") == 0 && ntok == 1) {
        int handout = white_man == 0 && black_man == 1 && white_king == 2 && black_king == 3
                      && empty == 4;
        printf("conventions: %s, %s, %s\n",
               handout ? "pieces as the handout's enum" : "pieces with other values than the handout's enum",
               drv_orientation, drv_counting);
    } else if (strcmp(cmd, "capture-convention") == 0 && ntok == 1) {
        printf("capture sequences: %s\n", drv_capture_convention);
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
