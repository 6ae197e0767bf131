/* The course's template main.c as handed out (fixtures/trouble/stub-functions without its first line):
   the base code of `grader similarity`, which takes none of it as evidence. */
/*
 * Program 1: Trouble
 *
 * A version of the board game Trouble for 2-4 players. Pieces leave Home on
 * a roll of 6, travel once around the Ring from their Start square, and enter
 * their Finish Line with an exact roll. The first player with all four pieces
 * in the Finish Line wins.
 *
 * Board representation (given by the assignment):
 *   -1                      a piece at Home ("H")
 *   0 .. 27                 Ring squares ("R1" .. "B7")
 *   100 + 10*color + k      Finish Line square k of a color ("RF1" .. "BF4")
 */

#include <assert.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------------- */
/* Global variables (from the template; do not add any others)            */
/* ---------------------------------------------------------------------- */

int gPieces[16];     /* location of each piece, by piece id */
int gHome[4];        /* number of pieces at Home, by color */
int gRing[28];       /* piece id on each Ring square, or -1 */
int gFinish[4][4];   /* piece id on each Finish Line square, or -1 */

const char * const gPlayerNames[] = {"Red", "Green", "Yellow", "Blue"};
const int Red = 0, Green = 1, Yellow = 2, Blue = 3;

/* state of the pseudorandom number generator */
int gRandomState = 0;

/* ---------------------------------------------------------------------- */
/* Function declarations                                                  */
/* ---------------------------------------------------------------------- */

/* random numbers (template code) */
void seedRandom(int seed);
int nextRandom(void);
int pop_o_matic(void);

/* required functions */
void initializeBoard();
void printStatus();
int printMoves(int player, int roll);
int movePiece(int player, int from, int roll);
int checkWin(int player);
int playerTurn(int player);

/* ---------------------------------------------------------------------- */
/* main (template)                                                        */
/* ---------------------------------------------------------------------- */

#ifndef TEST_MAIN
int main(void) {
    int seed;
    int numPlayers = 0;
    int player;
    int i, j;

    initializeBoard();
    for (i = 0; i < 4; i++) {
        assert(gHome[i] == 4);
        for (j = 0; j < 4; j++) {
            assert(gFinish[i][j] == -1);
        }
    }
    for (i = 0; i < 28; i++) {
        assert(gRing[i] == -1);
    }
    for (i = 0; i < 16; i++) {
        assert(gPieces[i] == -1);
    }

    printf("Enter a random seed: ");
    fflush(stdout);
    if (scanf("%d", &seed) != 1) {
        return 0;
    }
    if (seed == -1) {
        return 0;
    }
    seedRandom(seed);

    while (numPlayers < 2 || numPlayers > 4) {
        printf("Enter the number of players (2, 3, 4): ");
        fflush(stdout);
        if (scanf("%d", &numPlayers) != 1) {
            return 0;
        }
    }

    player = Red;
    while (playerTurn(player) == 0) {
        if (numPlayers == 2) {
            player = (player + 2) % 4;
        } else {
            player = (player + 1) % numPlayers;
        }
    }
    return 0;
}
#endif

/* ---------------------------------------------------------------------- */
/* Student functions                                                      */
/* ---------------------------------------------------------------------- */

/* Pseudorandom numbers (template code). */
void seedRandom(int seed) {
    if (seed != 0) {
        gRandomState = seed;
    }
}

int nextRandom(void) {
    gRandomState ^= gRandomState >> 7;
    gRandomState ^= (int)((unsigned int)gRandomState << 9);
    gRandomState ^= gRandomState >> 13;
    return gRandomState & INT_MAX;
}

int pop_o_matic(void) {
    return nextRandom() % 6 + 1;
}

void initializeBoard() {
}

void printStatus() {
}

int printMoves(int player, int roll) {
    return 0;
}

int movePiece(int player, int from, int roll) {
    return 0;
}

int checkWin(int player) {
    return 0;
}

int playerTurn(int player) {
    return 0;
}
