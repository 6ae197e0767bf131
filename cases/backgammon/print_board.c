/*
 * Our definition of the required function print_board(), drawing the board exactly as
 * fixtures/backgammon/correct prints it (the layout of the course's spec: labels, at most five
 * checkers drawn per point, the bar line).
 *
 * Game cases that test the moves and the game loop on their own link this file BEFORE the student's
 * files, with the linker told to accept duplicate definitions and keep the first:
 *
 *   gcc -O0 -Wl,-z,muldefs -o prog cases/backgammon/print_board.c *.c
 *
 * so the student's own print_board (graded on its own by the board cases) is overridden, and a
 * drawing defect is not charged again in every game transcript. -O0 keeps the student's calls to
 * print_board real calls that the linker can redirect (an optimising build could inline the
 * student's version where it is defined in the same file as the game loop).
 *
 * The board is the course's globals, defined in the student's files; this file only declares them.
 * Every helper is static and prefixed ref_, so nothing clashes with the student's names.
 */

#include <stdio.h>

extern int the_board_white[25];
extern int the_board_red[25];
extern int the_bar_white;
extern int the_bar_red;

void print_board();

/* The most checkers drawn on one point. */
#define REF_MAX_DRAWN 5

/*
 * Prints the cell of one point in one row: 'W', 'R' or '|' followed by two
 * spaces. Row 0 is the row next to the edge of the board.
 */
static void ref_print_cell(int point, int row)
{
    char c = '|';

    if (the_board_white[point] > row) {
        c = 'W';
    } else if (the_board_red[point] > row) {
        c = 'R';
    }
    printf("%c  ", c);
}

/* Prints one row of the top half (points 13..24, left to right). */
static void ref_print_top_row(int row)
{
    int point;

    for (point = 13; point <= 24; point++) {
        ref_print_cell(point, row);
        if (point == 18) {
            printf("   ");
        }
    }
    printf("\n");
}

/* Prints one row of the bottom half (points 12..1, left to right). */
static void ref_print_bottom_row(int row)
{
    int point;

    for (point = 12; point >= 1; point--) {
        ref_print_cell(point, row);
        if (point == 7) {
            printf("   ");
        }
    }
    printf("\n");
}

void print_board()
{
    int point, row;

    /* top labels: 13 .. 24 */
    for (point = 13; point <= 24; point++) {
        printf("%d ", point);
        if (point == 18) {
            printf("   ");
        }
    }
    printf("\n");

    /* top half: stacked downwards from the labels */
    for (row = 0; row < REF_MAX_DRAWN; row++) {
        ref_print_top_row(row);
    }
    printf("\n");

    /* bottom half: stacked upwards towards the labels */
    for (row = REF_MAX_DRAWN - 1; row >= 0; row--) {
        ref_print_bottom_row(row);
    }

    /* bottom labels: 12 .. 1 */
    for (point = 12; point >= 1; point--) {
        printf("%-2d ", point);
        if (point == 7) {
            printf("   ");
        }
    }
    printf("\n");

    printf("  Bar:  White-%d  Red-%d\n", the_bar_white, the_bar_red);
}
