/*
 * Stand-ins for the functions a Turkish draughts submission may lack, linked
 * beside the driver as weak symbols: the student's own definitions win. So a
 * file without display_board still has its other three functions graded, and
 * a main calling a sample_game_2 that was never written still links (the
 * driver never calls the sample games). A stand-in does nothing: init_board
 * leaves the board as it is, move and check_end_of_game return -3, which no
 * correct function returns.
 *
 * The stand-ins take the board as void *: the linker matches names only, and
 * this file never sees the student's types.
 */

#include <stdio.h>
#include <string.h>

static void drv_fallback_init_board(void *board) {
    (void)board;
}

static int drv_fallback_move(void *board, int from_x, int from_y, int to_x, int to_y, int p) {
    (void)board, (void)from_x, (void)from_y, (void)to_x, (void)to_y, (void)p;
    return -3;
}

static int drv_fallback_check_end_of_game(void *board) {
    (void)board;
    return -3;
}

static void drv_fallback_display_board(void *board) {
    (void)board;
}

static void drv_fallback_sample_game(void) {
}

void init_board(void *board) __attribute__((weak, alias("drv_fallback_init_board")));
int move(void *board, int from_x, int from_y, int to_x, int to_y, int p)
    __attribute__((weak, alias("drv_fallback_move")));
int check_end_of_game(void *board) __attribute__((weak, alias("drv_fallback_check_end_of_game")));
void display_board(void *board) __attribute__((weak, alias("drv_fallback_display_board")));
void sample_game_1(void) __attribute__((weak, alias("drv_fallback_sample_game")));
void sample_game_2(void) __attribute__((weak, alias("drv_fallback_sample_game")));

/* Writes the names of the four required functions the submission lacks, comma-separated, into
 * `names` (empty when it has them all). */
void drv_missing_functions(char *names, size_t size) {
    /* volatile: a weak symbol may be replaced at link time, so the comparisons must not be folded. */
    void *volatile found[4] = {(void *)init_board, (void *)move, (void *)check_end_of_game,
                               (void *)display_board};
    void *stand_ins[4] = {(void *)drv_fallback_init_board, (void *)drv_fallback_move,
                          (void *)drv_fallback_check_end_of_game, (void *)drv_fallback_display_board};
    static const char *required[4] = {"init_board", "move", "check_end_of_game", "display_board"};
    names[0] = '\0';
    for (int i = 0; i < 4; i++) {
        if (found[i] == stand_ins[i]) {
            if (names[0] != '\0') {
                strncat(names, ", ", size - strlen(names) - 1);
            }
            strncat(names, required[i], size - strlen(names) - 1);
        }
    }
}
