/*
 * Function-level grading driver for the backgammon assignment.
 *
 * Compiled in one gcc command with every .c file of the student's, which are
 * built with -Dmain=student_main (this file undoes that for its own main).
 * Reads one command per line from standard input and calls the student's
 * required functions; see cases/backgammon/README.md for the command
 * language. It includes nothing of the student's: the globals and the seven
 * required functions of handout section 8.1 are declared here.
 */

#undef main

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/driver-main.h"

/* The course's constants (backgammon.h). */
#define DRV_WHITE 1
#define DRV_RED 2
#define DRV_BOARD_SIZE 24
#define DRV_VALID_MOVE 1
#define DRV_INVALID_MOVE 2

/* The course's globals (board.c), indexed by point 1..24. */
extern int the_board_white[25];
extern int the_board_red[25];
extern int the_bar_white;
extern int the_bar_red;
extern int num_white;
extern int num_red;

/* The required functions (handout section 8.1). */
void print_board();
int check_move(int mover, int from, int to, int die);
int check_basic_move(int mover, int from, int to, int die);
int check_entry_move(int mover, int from, int to, int die);
int check_bear_off_move(int mover, int from, int to, int die);
int check_die(int mover, int from, int to, int die);
int check_board_bounds(int index);

/* A copy of every global. */
struct drv_state {
    int board_white[25];
    int board_red[25];
    int bar_white;
    int bar_red;
    int num_white;
    int num_red;
};

static void drv_save(struct drv_state *s) {
    memcpy(s->board_white, the_board_white, sizeof s->board_white);
    memcpy(s->board_red, the_board_red, sizeof s->board_red);
    s->bar_white = the_bar_white;
    s->bar_red = the_bar_red;
    s->num_white = num_white;
    s->num_red = num_red;
}

static void drv_restore(const struct drv_state *s) {
    memcpy(the_board_white, s->board_white, sizeof s->board_white);
    memcpy(the_board_red, s->board_red, sizeof s->board_red);
    the_bar_white = s->bar_white;
    the_bar_red = s->bar_red;
    num_white = s->num_white;
    num_red = s->num_red;
}

/* One "FUNCTION changed NAME from A to B" line if a value differs. */
static void drv_report(const char *function, const char *name, int before, int after) {
    if (before != after) {
        printf("%s changed %s from %d to %d\n", function, name, before, after);
    }
}

/* Reports every global that differs from s, in the order of dump (points 1..24). */
static void drv_report_changes(const char *function, const struct drv_state *s) {
    char name[32];
    int p;

    for (p = 1; p <= DRV_BOARD_SIZE; p++) {
        snprintf(name, sizeof name, "the_board_white[%d]", p);
        drv_report(function, name, s->board_white[p], the_board_white[p]);
    }
    for (p = 1; p <= DRV_BOARD_SIZE; p++) {
        snprintf(name, sizeof name, "the_board_red[%d]", p);
        drv_report(function, name, s->board_red[p], the_board_red[p]);
    }
    drv_report(function, "the_bar_white", s->bar_white, the_bar_white);
    drv_report(function, "the_bar_red", s->bar_red, the_bar_red);
    drv_report(function, "num_white", s->num_white, num_white);
    drv_report(function, "num_red", s->num_red, num_red);
}

/* Parse "white" or "red" to WHITE or RED; 1 on success. */
static int drv_parse_colour(const char *s, int *colour) {
    if (strcmp(s, "white") == 0) {
        *colour = DRV_WHITE;
        return 1;
    }
    if (strcmp(s, "red") == 0) {
        *colour = DRV_RED;
        return 1;
    }
    return 0;
}

/* Empty board: every point 0, both bars 0, no checkers in the game. */
static void drv_clear(void) {
    int p;

    for (p = 0; p <= DRV_BOARD_SIZE; p++) {
        the_board_white[p] = 0;
        the_board_red[p] = 0;
    }
    the_bar_white = 0;
    the_bar_red = 0;
    num_white = 0;
    num_red = 0;
}

/* The start position, set without calling the student's code. */
static void drv_start(void) {
    drv_clear();
    the_board_white[24] = 2;
    the_board_white[13] = 5;
    the_board_white[8] = 3;
    the_board_white[6] = 5;
    the_board_red[1] = 2;
    the_board_red[12] = 5;
    the_board_red[17] = 3;
    the_board_red[19] = 5;
    num_white = 15;
    num_red = 15;
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
    drv_print_values("the_board_white:", the_board_white + 1, DRV_BOARD_SIZE);
    drv_print_values("the_board_red:", the_board_red + 1, DRV_BOARD_SIZE);
    printf("the_bar_white: %d\n", the_bar_white);
    printf("the_bar_red: %d\n", the_bar_red);
    printf("num_white: %d\n", num_white);
    printf("num_red: %d\n", num_red);
}

/* The check functions the check and effects commands may call. */
struct drv_check {
    const char *name;
    int (*function)(int mover, int from, int to, int die);
};

static const struct drv_check drv_checks[] = {
    {"check_move", check_move},
    {"check_basic_move", check_basic_move},
    {"check_entry_move", check_entry_move},
    {"check_bear_off_move", check_bear_off_move},
    {"check_die", check_die},
};

/*
 * check FUNCTION COLOUR FROM TO DIE: the return value; the globals are then restored silently.
 * effects FUNCTION COLOUR FROM TO DIE: the globals the call changed, and the return value only when
 * it is neither VALID_MOVE nor INVALID_MOVE; the globals are then restored.
 */
static int drv_check(char **tok, int effects) {
    const struct drv_check *check = NULL;
    struct drv_state before;
    size_t i;
    int colour, from, to, die, r;

    for (i = 0; i < sizeof drv_checks / sizeof drv_checks[0]; i++) {
        if (strcmp(tok[1], drv_checks[i].name) == 0) {
            check = &drv_checks[i];
        }
    }
    if (check == NULL || !drv_parse_colour(tok[2], &colour) || !drv_parse_int(tok[3], &from)
        || !drv_parse_int(tok[4], &to) || !drv_parse_int(tok[5], &die)) {
        return 0;
    }
    drv_save(&before);
    r = check->function(colour, from, to, die);
    if (effects) {
        drv_report_changes(check->name, &before);
        if (r != DRV_VALID_MOVE && r != DRV_INVALID_MOVE) {
            printf("%s returned %d, neither VALID_MOVE nor INVALID_MOVE\n", check->name, r);
        }
    } else {
        printf("%s returned %d\n", check->name, r);
    }
    drv_restore(&before);
    return 1;
}

/* set COLOUR POINT N and bar COLOUR N keep num_<colour> in step. */
static int drv_set(char **tok) {
    int colour, point, n;
    int *board;

    if (!drv_parse_colour(tok[1], &colour) || !drv_parse_int(tok[2], &point)
        || point < 1 || point > DRV_BOARD_SIZE || !drv_parse_int(tok[3], &n) || n < 0) {
        return 0;
    }
    board = colour == DRV_WHITE ? the_board_white : the_board_red;
    if (colour == DRV_WHITE) {
        num_white += n - board[point];
    } else {
        num_red += n - board[point];
    }
    board[point] = n;
    return 1;
}

static int drv_bar(char **tok) {
    int colour, n;

    if (!drv_parse_colour(tok[1], &colour) || !drv_parse_int(tok[2], &n) || n < 0) {
        return 0;
    }
    if (colour == DRV_WHITE) {
        num_white += n - the_bar_white;
        the_bar_white = n;
    } else {
        num_red += n - the_bar_red;
        the_bar_red = n;
    }
    return 1;
}

/* Execute one already echoed command. */
void drv_command(char **tok, int ntok) {
    static const struct {
        const char *name;
        int ntok;
    } commands[] = {
        {"start", 1}, {"clear", 1}, {"set", 4}, {"bar", 3},
        {"print", 1}, {"check", 6}, {"effects", 6}, {"bounds", 2}, {"dump", 1},
    };
    const char *cmd = tok[0];
    size_t i;
    int known = 0, ok = 1, n;

    for (i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(cmd, commands[i].name) == 0) {
            known = 1;
            if (ntok != commands[i].ntok) {
                ok = 0;
            }
        }
    }
    if (!known) {
        printf("unknown command\n");
        return;
    }
    if (ok) {
        if (strcmp(cmd, "start") == 0) {
            drv_start();
        } else if (strcmp(cmd, "clear") == 0) {
            drv_clear();
        } else if (strcmp(cmd, "set") == 0) {
            ok = drv_set(tok);
        } else if (strcmp(cmd, "bar") == 0) {
            ok = drv_bar(tok);
        } else if (strcmp(cmd, "print") == 0) {
            print_board();
        } else if (strcmp(cmd, "check") == 0) {
            ok = drv_check(tok, 0);
        } else if (strcmp(cmd, "effects") == 0) {
            ok = drv_check(tok, 1);
        } else if (strcmp(cmd, "bounds") == 0) {
            ok = drv_parse_int(tok[1], &n);
            if (ok) {
                printf("check_board_bounds returned %d\n", check_board_bounds(n));
            }
        } else {
            drv_dump();
        }
    }
    if (!ok) {
        printf("bad arguments\n");
    }
}
