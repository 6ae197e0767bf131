/*
 * Function-level grading driver for the Turkish draughts assignment.
 *
 * Includes the student's file (configure.sh joins it into student-source.c in
 * the build folder and writes drv-config.h: the board's element type, the
 * player type, whether the handout's enum constants exist), with its main
 * renamed, so that the student's own types and prototypes are the ones used.
 * Answers one command per line on standard input (see
 * reference/src/turkish_draughts/driver.rs for the language). Never calls
 * sample_game_1 or sample_game_2. What the student's functions print goes to
 * /dev/null, except display_board's, which `display` and `display-content`
 * capture.
 *
 * Commands speak the handout's conventions. Before the first command the
 * driver detects the student's own and translates every square and value, so
 * that the rules are graded under them: the piece values (the handout's enum
 * or characters), where init_board puts white (also a transposed board),
 * whether move() counts from 0 or 1, the player values move() takes, and how
 * it takes a capture sequence (its final square, its first landing, one jump
 * per call, or the square of the piece it takes; for men and for kings apart,
 * since a program may treat them differently), and where a king lands after a capture (anywhere
 * beyond, or right behind the piece taken). `convention NAME` prints what it found, and
 * `convention functions` which required functions fallbacks.c stands in for. Every detection is
 * judged by the board move() leaves, never by its return value, so that a
 * program with junk return values is graded under its conventions too; and
 * only on positive evidence: a function that does nothing is never read as
 * following the handout.
 */

#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "drv-config.h"

#define main student_main
#include "student-source.c"
#undef main

#include "../common/driver-main.h"

/* fallbacks.c: the names of the required functions the submission lacks. */
void drv_missing_functions(char *names, size_t size);

typedef DRV_CELL drv_cell_t;
typedef DRV_PLAYER drv_player_t;

static drv_cell_t drv_board[8][8];

/* The student's values of the five pieces and of the two players. */
static drv_cell_t drv_white_man, drv_black_man, drv_white_king, drv_black_king, drv_empty;
static drv_player_t drv_white, drv_black;
static char drv_pieces[96] = "the handout's enum";
static char drv_players[96] = "";

/* The student's conventions, detected once before the first command. */
static int drv_detected = 0;
static int drv_flip = 0;      /* white starts on rows 1-2: rows are mirrored */
static int drv_transpose = 0; /* the first index is the column */
static int drv_swap = 0;      /* move() takes the column first */
static int drv_base = 0;      /* move() takes coordinates from 1 */
static const char *drv_orientation = "white starts on rows 5-6";
static const char *drv_counting = "0-based";
/* How move() takes a capture sequence. */
typedef enum {
    DRV_FINAL_SQUARE,
    DRV_ANY_LANDING,           /* to: the final square or the first landing, move() finishing */
    DRV_FIRST_LANDING,
    DRV_ONE_JUMP,
    DRV_CAPTURED_SQUARE,       /* to: the square of the piece taken, one jump per call */
    DRV_CAPTURED_SQUARE_WHOLE, /* to: the square of the first piece taken, move() finishing */
} drv_capture_t;
/* Indices of the two kinds of piece, whose sequences a program may take in different ways (men
 * finishing theirs, kings one jump per call). */
enum { DRV_MAN = 0, DRV_KING = 1 };
static drv_capture_t drv_captures[2] = {DRV_FINAL_SQUARE, DRV_FINAL_SQUARE};
static const char *drv_capture_names[2] = {"not detected (taken as the final square)",
                                           "not detected (taken as the final square)"};
/* Where move() finishes a sequence itself: a call that ends where the sequence turns, the next
 * call going on from there (a piece that goes on only in a straight line). */
static int drv_turn_ends[2] = {0, 0};
/* A first-landing program whose king, landing beyond the square right behind the piece it took,
 * ends the call there: the sequence goes on with the next call. */
static int drv_long_landing_ends = 0;
/* The `capture sequences` line, written once the conventions are found. */
static char drv_capture_convention[448] = "not detected (taken as the final square)";
/* Where a king lands after a capture (rule 6): any vacant square beyond, or right behind. */
static const char *drv_king_landing = "not detected";

/* The student's array indices of the handout's square (x, y). */
static drv_cell_t *drv_cell(drv_cell_t board[][8], int x, int y) {
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
    *a = (drv_swap ? y : x) + drv_base;
    *b = (drv_swap ? x : y) + drv_base;
}

/* The handout's symbol of a piece; '?' for a value that is no piece. */
static char drv_symbol(drv_cell_t p) {
    if (p == drv_white_man) return 'w';
    if (p == drv_black_man) return 'b';
    if (p == drv_white_king) return 'W';
    if (p == drv_black_king) return 'B';
    if (p == drv_empty) return '-';
    return '?';
}

/* The piece of a symbol; 1 on success. */
static int drv_piece(char c, drv_cell_t *p) {
    switch (c) {
    case 'w': *p = drv_white_man; return 1;
    case 'b': *p = drv_black_man; return 1;
    case 'W': *p = drv_white_king; return 1;
    case 'B': *p = drv_black_king; return 1;
    case '-': *p = drv_empty; return 1;
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
            drv_board[x][y] = drv_empty;
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
static int drv_white_line(drv_cell_t board[][8], int transposed) {
    for (int line = 1; line <= 5; line += 4) {
        int all = 1;
        for (int k = 0; k < 8 && all; k++) {
            drv_cell_t a = transposed ? board[k][line] : board[line][k];
            drv_cell_t b = transposed ? board[k][line + 1] : board[line + 1][k];
            all = a == drv_white_man && b == drv_white_man;
        }
        if (all) {
            return line;
        }
    }
    return -1;
}

/* Calls the student's move() on the handout's squares, quietly. */
static int drv_move(int fx, int fy, int tx, int ty, drv_player_t who) {
    int a, b, c, d, r;
    drv_args(fx, fy, &a, &b);
    drv_args(tx, ty, &c, &d);
    drv_quiet();
    r = move(drv_board, a, b, c, d, who);
    drv_loud();
    return r;
}

/* Whether the handout's square (x, y) holds the piece pc, and the other two are empty. */
static int drv_stands(drv_cell_t pc, int x, int y, int ex, int ey, int fx, int fy) {
    return *drv_cell(drv_board, x, y) == pc && *drv_cell(drv_board, ex, ey) == drv_empty
           && *drv_cell(drv_board, fx, fy) == drv_empty;
}

/* Whether the handout's square holds a white man, and the other two are empty. */
static int drv_white_at(int x, int y, int ex, int ey, int fx, int fy) {
    return drv_stands(drv_white_man, x, y, ex, ey, fx, fy);
}

/* The player a square's piece belongs to, in the student's values; -1 for an empty square (or
 * a value that is no piece). */
static long drv_owner(drv_cell_t p) {
    if (p == drv_white_man || p == drv_white_king) return (long)drv_white;
    if (p == drv_black_man || p == drv_black_king) return (long)drv_black;
    return -1;
}

static long drv_opponent(drv_player_t who) {
    return who == drv_white ? (long)drv_black : (long)drv_white;
}

static int drv_is_king(drv_cell_t p) {
    return p == drv_white_king || p == drv_black_king;
}

/* In the handout's coordinates: the one piece on the line from (x, y) to the landing (lx, ly),
 * both excluded, in (cx, cy), when it is an opponent's of `who`; 0, (cx, cy) untouched, when there
 * is none, more than one, or only a piece of `who`'s own, or the line is no row or column: then the
 * request takes no single piece (a plain move, or a king's move over its own man, which the rules
 * refuse and the program must see as asked). */
static int drv_taken_between(int x, int y, int lx, int ly, drv_player_t who, int *cx, int *cy) {
    int dx = (lx > x) - (lx < x), dy = (ly > y) - (ly < y), found = 0, px = 0, py = 0;
    if ((dx != 0) == (dy != 0)) {
        return 0;
    }
    for (int i = x + dx, j = y + dy; i != lx || j != ly; i += dx, j += dy) {
        if (*drv_cell(drv_board, i, j) != drv_empty) {
            found++;
            px = i;
            py = j;
        }
    }
    if (found != 1 || drv_owner(*drv_cell(drv_board, px, py)) != drv_opponent(who)) {
        return 0;
    }
    *cx = px;
    *cy = py;
    return 1;
}

/* Whether move(), for a piece of this kind, takes the square of the piece taken. */
static int drv_by_taken(int kind) {
    return drv_captures[kind] == DRV_CAPTURED_SQUARE || drv_captures[kind] == DRV_CAPTURED_SQUARE_WHOLE;
}

/* Whether move(), for a piece of this kind, is given the sequence's first step and finishes it. */
static int drv_finishes(int kind) {
    return drv_captures[kind] == DRV_FIRST_LANDING || drv_captures[kind] == DRV_CAPTURED_SQUARE_WHOLE;
}

/* The target move() gets for a jump from (x, y) to the landing (lx, ly): the landing, or where
 * move() wants the piece taken, the piece (on the board as the jumps before left it); a request
 * that takes no single piece, a plain move, keeps its square. */
static void drv_target(int kind, int x, int y, int lx, int ly, drv_player_t who, int *tx, int *ty) {
    *tx = lx;
    *ty = ly;
    if (drv_by_taken(kind)) {
        drv_taken_between(x, y, lx, ly, who, tx, ty);
    }
}

/* Plays the move from (fx, fy) through the n landing squares (lx, ly) (the last is its final
 * square; one for a plain move) in the student's capture convention for the moving piece's kind:
 * one call, or one per jump, the captures adding up. A call that leaves the board as it was refused
 * the rest; its value is the answer. Where a call of a program finishing sequences itself may end
 * early (at a turn, or on a king's long landing), as the probe found, the next call goes on from the
 * landing where the piece stopped. */
static int drv_play(int fx, int fy, const int lx[], const int ly[], int n, drv_player_t who) {
    static drv_cell_t before[8][8];
    /* A man stays a man until its move is over: the kind on the start square decides. */
    int kind = drv_is_king(*drv_cell(drv_board, fx, fy)) ? DRV_KING : DRV_MAN;
    int whole = drv_captures[kind] == DRV_FINAL_SQUARE || drv_captures[kind] == DRV_ANY_LANDING;
    int goes_on = drv_turn_ends[kind] || (kind == DRV_KING && drv_long_landing_ends);
    int r = 0, calls = 0;
    /* A program whose `to` names the piece it takes cannot be asked to move onto an enemy piece: it
     * would read the request as taking it. Every reading of the rules refuses that move (no piece
     * lands on an occupied square), so it is answered as they answer it, and never sent. */
    if (drv_by_taken(kind) && n == 1 && drv_owner(*drv_cell(drv_board, lx[0], ly[0])) == drv_opponent(who)) {
        return drv_owner(*drv_cell(drv_board, fx, fy)) == (long)who ? -2 : -1;
    }
    for (int k = whole ? n - 1 : 0, x = fx, y = fy; k < n; calls++) {
        int rk, next = k + 1, to_x, to_y;
        memcpy(before, drv_board, sizeof before);
        drv_target(kind, x, y, lx[k], ly[k], who, &to_x, &to_y);
        rk = drv_move(x, y, to_x, to_y, who);
        if (memcmp(before, drv_board, sizeof before) == 0) {
            r = rk;
            break;
        }
        r = calls == 0 ? rk : r + rk;
        if (drv_finishes(kind)) {
            /* move() finishes the sequence itself; a piece whose call ended early stands on a
             * landing before the last, where the next call starts. */
            drv_cell_t mover = *drv_cell(before, x, y);
            next = n;
            for (int j = n - 2; j >= k && goes_on; j--) {
                if (*drv_cell(drv_board, lx[j], ly[j]) == mover && *drv_cell(before, lx[j], ly[j]) != mover) {
                    next = j + 1;
                    break;
                }
            }
        }
        x = lx[next - 1];
        y = ly[next - 1];
        k = next;
    }
    return r;
}

/* A sequence of two captures by a white piece for the probes: the board, the piece's square, the
 * two pieces it takes and its two landings, each right behind its piece (so that either reading
 * of rule 6 plays it alike), with nothing else to take on the way. */
struct drv_sequence {
    const char *rows;
    int x, y, vx[2], vy[2], lx[2], ly[2];
};

/* White's man on (5, 3) takes (4, 3) and then (2, 3): final square (1, 3). */
static const struct drv_sequence drv_man_line = {
    "--------/--------/---b----/--------/---b----/---w----/--------/--------", 5, 3, {4, 2}, {3, 3}, {3, 1}, {3, 3}};
/* White's man on (5, 3) takes (4, 3), turns and takes (3, 4): final square (3, 5). */
static const struct drv_sequence drv_man_turn = {
    "--------/--------/--------/----b---/---b----/---w----/--------/--------", 5, 3, {4, 3}, {3, 4}, {3, 3}, {3, 5}};
/* White's king on (6, 3) takes (5, 3) and then (3, 3), its own man on (1, 3) ending it on (2, 3). */
static const struct drv_sequence drv_king_line = {
    "--------/---w----/--------/---b----/--------/---b----/---W----/--------", 6, 3, {5, 3}, {3, 3}, {4, 2}, {3, 3}};
/* White's king on (6, 3) takes (5, 3), turns on (4, 3) and takes (4, 5), its own man on (4, 7)
 * ending it on (4, 6); of its landings after the first capture, only (4, 3) goes on. */
static const struct drv_sequence drv_king_turn = {
    "--------/--------/--------/--------/-----b-w/---b----/---W----/--------", 6, 3, {5, 4}, {3, 5}, {4, 4}, {3, 6}};

/* Whether the piece pc stands on the sequence's landing i (0 the first, 1 the final), with its
 * start square and the other landing empty. */
static int drv_on_landing(drv_cell_t pc, const struct drv_sequence *s, int i) {
    return drv_stands(pc, s->lx[i], s->ly[i], s->x, s->y, s->lx[1 - i], s->ly[1 - i]);
}

static int drv_taken(const struct drv_sequence *s, int i) {
    return *drv_cell(drv_board, s->vx[i], s->vy[i]) == drv_empty;
}

/* How move() takes the sequence s of a piece of this kind: the final square (or, as well, the
 * first landing), the first landing, one jump per call, or the square of the piece it takes (one
 * jump per call, or move() finishing the sequence), told by where the piece ends up. A program that
 * plays one jump per call is left in the middle of its sequence by a try, so the next one finishes
 * that same sequence. 1 when one is found. */
static int drv_detect_captures(int kind, const struct drv_sequence *s) {
    drv_cell_t pc = kind == DRV_KING ? drv_white_king : drv_white_man;
    drv_fill(s->rows);
    drv_move(s->x, s->y, s->lx[1], s->ly[1], drv_white);
    if (drv_on_landing(pc, s, 1)) {
        /* A move() that plays the piece's whole sequence whatever landing of it it is given. */
        drv_fill(s->rows);
        drv_move(s->x, s->y, s->lx[0], s->ly[0], drv_white);
        if (drv_on_landing(pc, s, 1)) {
            drv_captures[kind] = DRV_ANY_LANDING;
            drv_capture_names[kind] = "the final square or the first landing, move() finishing the sequence";
        } else {
            drv_captures[kind] = DRV_FINAL_SQUARE;
            drv_capture_names[kind] = "the final square";
        }
        return 1;
    }
    drv_fill(s->rows);
    drv_move(s->x, s->y, s->lx[0], s->ly[0], drv_white);
    if (drv_on_landing(pc, s, 1)) {
        drv_captures[kind] = DRV_FIRST_LANDING;
        drv_capture_names[kind] = "the first landing, move() finishing the sequence";
        return 1;
    }
    if (drv_on_landing(pc, s, 0)) {
        drv_move(s->lx[0], s->ly[0], s->lx[1], s->ly[1], drv_white);
        if (drv_on_landing(pc, s, 1)) {
            drv_captures[kind] = DRV_ONE_JUMP;
            drv_capture_names[kind] = "one jump per call";
            return 1;
        }
        return 0;
    }
    drv_fill(s->rows);
    drv_move(s->x, s->y, s->vx[0], s->vy[0], drv_white);
    if (drv_on_landing(pc, s, 1) && drv_taken(s, 0) && drv_taken(s, 1)) {
        drv_captures[kind] = DRV_CAPTURED_SQUARE_WHOLE;
        drv_capture_names[kind] = "the square of the piece taken, move() finishing the sequence";
        return 1;
    }
    if (drv_on_landing(pc, s, 0) && drv_taken(s, 0)) {
        drv_move(s->lx[0], s->ly[0], s->vx[1], s->vy[1], drv_white);
        if (drv_on_landing(pc, s, 1) && drv_taken(s, 1)) {
            drv_captures[kind] = DRV_CAPTURED_SQUARE;
            drv_capture_names[kind] = "the square of the piece taken, one jump per call";
            return 1;
        }
    }
    return 0;
}

/* For a kind whose sequences move() finishes itself: whether a call ends where the sequence s
 * turns, and the next call, from there, takes the rest (a piece that goes on only in a straight
 * line). Then the driver goes on from where such a call left the piece. */
static void drv_detect_turns(int kind, const struct drv_sequence *s) {
    drv_cell_t pc = kind == DRV_KING ? drv_white_king : drv_white_man;
    int tx, ty;
    if (!drv_finishes(kind)) {
        return;
    }
    drv_fill(s->rows);
    drv_play(s->x, s->y, s->lx, s->ly, 2, drv_white);
    if (drv_on_landing(pc, s, 0) && drv_taken(s, 0) && !drv_taken(s, 1)) {
        drv_target(kind, s->lx[0], s->ly[0], s->lx[1], s->ly[1], drv_white, &tx, &ty);
        drv_move(s->lx[0], s->ly[0], tx, ty, drv_white);
        drv_turn_ends[kind] = drv_on_landing(pc, s, 1) && drv_taken(s, 1);
    }
}

/* The capture conventions of men, then of kings: kings that take no sequence of two in the probe
 * are graded as the men are. */
static void drv_detect_sequences(void) {
    if (drv_detect_captures(DRV_MAN, &drv_man_line)) {
        drv_detect_turns(DRV_MAN, &drv_man_turn);
    }
    if (drv_detect_captures(DRV_KING, &drv_king_line)) {
        drv_detect_turns(DRV_KING, &drv_king_turn);
    } else {
        drv_captures[DRV_KING] = drv_captures[DRV_MAN];
        drv_capture_names[DRV_KING] = drv_capture_names[DRV_MAN];
        drv_turn_ends[DRV_KING] = drv_turn_ends[DRV_MAN];
    }
}

/* The `capture sequences` line: one convention, or the men's and the kings' when they differ. */
static void drv_describe_captures(void) {
    static const char turn[] = " as far as it goes straight (a turn ends the call)";
    char kinds[2][160];
    size_t used;
    for (int kind = 0; kind < 2; kind++) {
        snprintf(kinds[kind], sizeof kinds[kind], "%s%s", drv_capture_names[kind], drv_turn_ends[kind] ? turn : "");
    }
    if (strcmp(kinds[DRV_MAN], kinds[DRV_KING]) == 0) {
        snprintf(drv_capture_convention, sizeof drv_capture_convention, "%s", kinds[DRV_MAN]);
    } else {
        snprintf(drv_capture_convention, sizeof drv_capture_convention, "men: %s; kings: %s", kinds[DRV_MAN],
                 kinds[DRV_KING]);
    }
    used = strlen(drv_capture_convention);
    if (drv_long_landing_ends) {
        snprintf(drv_capture_convention + used, sizeof drv_capture_convention - used,
                 "; a king's long landing ends the call");
    }
}

/* White's king on (6, 3) takes (5, 3) and may land anywhere up to (0, 3); landing on (2, 3), it
 * can take (2, 5) next, landing on (2, 6) before its own man: the one sequence of two. */
static const char *drv_king_capture =
    "--------/--------/--------/--------/--------/---b----/---W----/--------";
static const char *drv_king_two_captures =
    "--------/--------/-----b-w/--------/--------/---b----/---W----/--------";

/* Whether the handout's square holds a white king, and the king's start square is empty. */
static int drv_white_king_at(int x, int y) {
    return *drv_cell(drv_board, x, y) == drv_white_king && *drv_cell(drv_board, 6, 3) == drv_empty;
}

/* Where a king lands after a capture (rule 6 reads either way): a far landing is tried, then the
 * square right behind the piece taken. Judged by where the king stands, so that a program that
 * leaves the piece taken on the board (a defect `captures` grades) is read right. For a program
 * whose kings take the first landing and finish the sequence themselves (going on at turns):
 * whether a king's long landing ends the call, the next call going on with the sequence. */
static void drv_detect_king_landing(void) {
    static const int far_x[] = {2, 2}, far_y[] = {3, 6}, near_x[] = {4}, near_y[] = {3};
    drv_fill(drv_king_capture);
    drv_play(6, 3, far_x, far_y, 1, drv_white);
    if (drv_white_king_at(2, 3)) {
        drv_king_landing = "land on any vacant square beyond the piece taken";
    } else {
        /* A program that names the piece it takes was asked for it, and lands where it lands. */
        if (!drv_white_king_at(4, 3)) {
            drv_fill(drv_king_capture);
            drv_play(6, 3, near_x, near_y, 1, drv_white);
        }
        if (drv_white_king_at(4, 3)) {
            drv_king_landing = "land right behind the piece taken";
        }
        return;
    }
    if (drv_captures[DRV_KING] != DRV_FIRST_LANDING || drv_turn_ends[DRV_KING]) {
        return;
    }
    drv_fill(drv_king_two_captures);
    drv_play(6, 3, far_x, far_y, 2, drv_white);
    if (drv_white_king_at(2, 3) && *drv_cell(drv_board, 2, 5) == drv_black_man) {
        drv_move(2, 3, 2, 6, drv_white);
        if (drv_white_king_at(2, 6) && *drv_cell(drv_board, 2, 5) == drv_empty) {
            drv_long_landing_ends = 1;
        }
    }
}

/* The piece values: the handout's enum constants when the file has them, else characters, with the
 * empty square's as init_board leaves row 0. */
static void drv_detect_pieces(drv_cell_t scratch[][8]) {
#if DRV_PIECE_ENUM
    drv_white_man = white_man;
    drv_black_man = black_man;
    drv_white_king = white_king;
    drv_black_king = black_king;
    drv_empty = empty;
    if (!(white_man == 0 && black_man == 1 && white_king == 2 && black_king == 3 && empty == 4)) {
        snprintf(drv_pieces, sizeof drv_pieces, "the handout's enum names with other values");
    }
#else
    drv_white_man = 'w';
    drv_black_man = 'b';
    drv_white_king = 'W';
    drv_black_king = 'B';
    drv_empty = scratch[0][0];
    if (drv_empty >= 32 && drv_empty < 127) {
        snprintf(drv_pieces, sizeof drv_pieces, "the characters w b W B and '%c' for empty", (char)drv_empty);
    } else {
        snprintf(drv_pieces, sizeof drv_pieces, "the characters w b W B and %d for empty", (int)drv_empty);
    }
#endif
    (void)scratch;
}

/* Detects the piece values and the orientation from init_board, then the coordinate base (and,
 * without the handout's player enum, the player values) from one opening move. */
static void drv_detect(void) {
    static drv_cell_t scratch[8][8], marked[8][8];
    int line, found = 1;

    drv_detected = 1;
    /* init_board over a zeroed board (the empty square of a program that leaves it as a global's
     * zero), and over one whose bytes are no piece: white men are read only where init_board put
     * them (a zero is the enum's white_man, so a board init_board never touched would read as
     * white everywhere). */
    memset(scratch, 0, sizeof scratch);
    memset(marked, 0x5a, sizeof marked);
    drv_quiet();
    init_board(scratch);
    init_board(marked);
    drv_loud();
    drv_detect_pieces(scratch);
    if ((line = drv_white_line(scratch, 0)) >= 0 && drv_white_line(marked, 0) == line) {
        drv_flip = line == 1;
    } else if ((line = drv_white_line(scratch, 1)) >= 0 && drv_white_line(marked, 1) == line) {
        drv_transpose = 1;
        drv_flip = line == 1;
    } else {
        drv_orientation = "white men not found on two full rows after init_board";
        found = 0;
    }
    if (drv_transpose) {
        drv_orientation = drv_flip ? "the board transposed, white on columns 1-2"
                                   : "the board transposed, white on columns 5-6";
    } else if (drv_flip) {
        drv_orientation = "white starts on rows 1-2";
    }
#if DRV_PLAYER_ENUM
    static const long players[][2] = {{white, black}};
#else
    static const long players[][2] = {{10, 20}, {'w', 'b'}, {'W', 'B'}, {0, 1}, {1, 2}, {1, 0}};
#endif
    /* White's man on (5, 3) steps to (4, 3): with the squares in the order the board stores them
     * first, then in the other (a transposed board whose move() still takes the row first). */
    for (size_t k = 0; k < sizeof players / sizeof players[0] * 4; k++) {
        drv_white = (drv_player_t)players[k / 4][0];
        drv_black = (drv_player_t)players[k / 4][1];
        drv_swap = k % 4 < 2 ? drv_transpose : !drv_transpose;
        drv_base = k % 2;
        drv_fill(drv_start_rows);
        drv_move(5, 3, 4, 3, drv_white);
        if (drv_white_at(4, 3, 5, 3, 3, 3)) {
            drv_counting = drv_swap ? (drv_base ? "1-based, the column first" : "0-based, the column first")
                                    : (drv_base ? "1-based" : "0-based");
            long w = players[k / 4][0], b = players[k / 4][1];
            if (!DRV_PLAYER_ENUM && !(w == 10 && b == 20)) {
                if (w >= 'A' && b >= 'A') {
                    snprintf(drv_players, sizeof drv_players, "white as '%c', black as '%c'", (char)w, (char)b);
                } else {
                    snprintf(drv_players, sizeof drv_players, "white as %ld, black as %ld", w, b);
                }
            }
            drv_detect_sequences();
            drv_detect_king_landing();
            drv_describe_captures();
            drv_fill(NULL);
            return;
        }
    }
    drv_white = (drv_player_t)players[0][0];
    drv_black = (drv_player_t)players[0][1];
    drv_base = 0;
    drv_swap = drv_transpose;
    drv_counting = "not detected (the opening move 5 3 4 3 was refused)";
    /* The names of the handout's enum are no evidence that a program uses them for its pieces. */
    if (!found) {
        snprintf(drv_pieces, sizeof drv_pieces, "not seen (neither init_board nor move() set a piece)");
    }
    drv_fill(NULL);
}

static int drv_coordinate(const char *s, int *value) {
    return drv_parse_int(s, value) && *value >= 0 && *value < 8;
}

/* 1 when `c` is one of the five symbols of a square. */
static int drv_is_symbol(char c) {
    return c != '\0' && strchr("-wbWB", c) != NULL;
}

/* The row of symbols a line of display_board shows, in `row` (8 characters): the line without
 * spaces, tabs, '|', '+' and box-drawing characters (cell borders), and without its labels; a line
 * of '+' and '-' alone is a border. A label
 * is digits at either end, or one character before or on both sides of the eight symbols; else
 * any text around the symbols that holds no run of them as long (a row number in words, "0.satır").
 * 1 when it is such a row. */
static int drv_display_row(const char *line, size_t len, char row[8]) {
    char kept[256];
    size_t n = 0, start = 0, end;
    /* A border drawn with '+' and '-' ("+-+-+-+-+-+-+-+-+") is no row of empty squares. */
    if (memchr(line, '+', len) != NULL) {
        size_t i = 0;
        while (i < len && strchr("+- \t\r", line[i]) != NULL && line[i] != '\0') i++;
        if (i == len) {
            return 0;
        }
    }
    for (size_t i = 0; i < len && n < sizeof kept; i++) {
        unsigned char c = (unsigned char)line[i];
        if (c == ' ' || c == '\t' || c == '|' || c == '+' || c == '\r') {
            continue;
        }
        /* U+2500-U+257F, the box-drawing block: E2 94 xx and E2 95 xx in UTF-8. */
        if (c == 0xE2 && i + 2 < len && ((unsigned char)line[i + 1] == 0x94 || (unsigned char)line[i + 1] == 0x95)) {
            i += 2;
            continue;
        }
        kept[n++] = (char)c;
    }
    end = n;
    while (start < end && kept[start] >= '0' && kept[start] <= '9') start++;
    if (start < end && start > 0 && strchr(":.)", kept[start])) start++;
    while (end > start && kept[end - 1] >= '0' && kept[end - 1] <= '9') end--;
    if (end - start == 9) start++;
    if (end - start == 10) { start++; end--; }
    if (end - start != 8) {
        /* Labels in words: the line's one run of exactly eight symbols, no longer run beside it. */
        size_t runs = 0;
        for (size_t i = 0; i < n;) {
            size_t j = i;
            while (j < n && drv_is_symbol(kept[j])) j++;
            if (j - i > 8) {
                return 0;
            }
            if (j - i == 8) {
                runs++;
                start = i;
            }
            i = j > i ? j : i + 1;
        }
        if (runs != 1) {
            return 0;
        }
        end = start + 8;
    }
    for (size_t i = 0; i < 8; i++) {
        if (!drv_is_symbol(kept[start + i])) {
            return 0;
        }
        row[i] = kept[start + i];
    }
    return 1;
}

/* Bytes of display_board's output kept. */
#define DRV_DISPLAY_MAX 65536

/* Runs display_board and prints what it printed (`content` 0), or only its eight rows of symbols
 * (`content` 1). For a program whose white starts on rows 1-2 the rows come in the handout's order
 * (their own lines, labels and all, swapped), so that its display is judged by what it shows. */
static void drv_display(int content) {
    static char text[DRV_DISPLAY_MAX];
    const char *lines[DRV_DISPLAY_MAX / 2];
    size_t lengths[DRV_DISPLAY_MAX / 2];
    int rows[8], nlines = 0, nrows = 0;
    char symbols[8][8];
    ssize_t size = 0, got;
    int fd, saved;

    fflush(stdout);
    fd = memfd_create("display_board", 0);
    saved = dup(1);
    if (fd < 0 || saved < 0) {
        printf("the driver could not capture display_board\n");
        return;
    }
    dup2(fd, 1);
    display_board(drv_board);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    lseek(fd, 0, SEEK_SET);
    while (size < DRV_DISPLAY_MAX && (got = read(fd, text + size, DRV_DISPLAY_MAX - size)) > 0) {
        size += got;
    }
    close(fd);
    for (ssize_t i = 0; i < size;) {
        ssize_t j = i;
        while (j < size && text[j] != '\n') j++;
        lines[nlines] = text + i;
        lengths[nlines] = (size_t)(j - i);
        if (nrows < 8 && drv_display_row(lines[nlines], lengths[nlines], symbols[nrows])) {
            rows[nrows++] = nlines;
        }
        nlines++;
        i = j + 1;
    }
    if (content) {
        if (nrows != 8) {
            printf("display_board showed %d rows of eight symbols\n", nrows);
        }
        for (int k = 0; k < nrows; k++) {
            printf("%.8s\n", symbols[drv_flip && nrows == 8 ? 7 - k : k]);
        }
        return;
    }
    for (int i = 0; i < nlines; i++) {
        int shown = i;
        for (int k = 0; k < 8 && drv_flip && nrows == 8; k++) {
            if (rows[k] == i) shown = rows[7 - k];
        }
        fwrite(lines[shown], 1, lengths[shown], stdout);
        if (i + 1 < nlines || (size > 0 && text[size - 1] == '\n')) {
            putchar('\n');
        }
    }
}

void drv_command(char **tok, int ntok) {
    const char *cmd = tok[0];
    int fx, fy, tx, ty, r;
    drv_cell_t p;

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
        int was_empty = *drv_cell(drv_board, fx, fy) == drv_empty;
        drv_player_t who = strcmp(tok[5], "white") == 0 ? drv_white : drv_black;
        if (n == 0) {
            lx[0] = tx;
            ly[0] = ty;
            n = 1;
        }
        r = drv_play(fx, fy, lx, ly, n, who);
        if (was_empty && (r == -1 || r == -2)) {
            printf("move from an empty square returned -1 or -2\n");
        } else {
            printf("move returned %d\n", r);
        }
    } else if (strcmp(cmd, "end") == 0 && ntok == 1) {
        drv_quiet();
        r = check_end_of_game(drv_board);
        drv_loud();
        /* The student's player values, in the handout's. */
        if (r == (int)drv_white && r != -1) {
            r = 10;
        } else if (r == (int)drv_black && r != -1) {
            r = 20;
        }
        printf("check_end_of_game returned %d\n", r);
    } else if (strcmp(cmd, "convention") == 0 && ntok == 2 && strcmp(tok[1], "functions") == 0) {
        char missing[128];
        drv_missing_functions(missing, sizeof missing);
        if (missing[0] == '\0') {
            printf("functions: the four defined\n");
        } else {
            printf("functions: missing %s\n", missing);
        }
    } else if (strcmp(cmd, "convention") == 0 && ntok == 2 && strcmp(tok[1], "pieces") == 0) {
        printf("pieces: %s%s%s\n", drv_pieces, drv_players[0] ? ", players " : "", drv_players);
    } else if (strcmp(cmd, "convention") == 0 && ntok == 2 && strcmp(tok[1], "orientation") == 0) {
        printf("orientation: %s\n", drv_orientation);
    } else if (strcmp(cmd, "convention") == 0 && ntok == 2 && strcmp(tok[1], "coordinates") == 0) {
        printf("coordinates: %s\n", drv_counting);
    } else if (strcmp(cmd, "convention") == 0 && ntok == 2 && strcmp(tok[1], "captures") == 0) {
        printf("capture sequences: %s\n", drv_capture_convention);
    } else if (strcmp(cmd, "convention") == 0 && ntok == 2 && strcmp(tok[1], "king-landing") == 0) {
        printf("king captures: %s\n", drv_king_landing);
    } else if (strcmp(cmd, "at") == 0 && ntok == 3 && drv_coordinate(tok[1], &fx)
               && drv_coordinate(tok[2], &fy)) {
        printf("%d %d: %c\n", fx, fy, drv_symbol(*drv_cell(drv_board, fx, fy)));
    } else if (strcmp(cmd, "dump") == 0 && ntok == 1) {
        drv_dump();
    } else if (strcmp(cmd, "display") == 0 && ntok == 1) {
        drv_display(0);
    } else if (strcmp(cmd, "display-content") == 0 && ntok == 1) {
        drv_display(1);
    } else {
        printf("bad command\n");
    }
}
