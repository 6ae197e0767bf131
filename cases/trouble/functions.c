/*
 * Our definitions of five of the six required Trouble functions: initializeBoard, printStatus,
 * printMoves, movePiece and checkWin, behaving exactly as fixtures/trouble/correct/main.c (same
 * output, same order of the move list).
 *
 * Whole-game cases that test playerTurn and the template's main on their own link this file BEFORE
 * the student's main.c, with the linker told to accept duplicate definitions and keep the first:
 *
 *   gcc -O0 -Wl,-z,muldefs -o prog cases/trouble/functions.c main.c
 *
 * so the student's own versions of these five functions (graded on their own by the function-level
 * cases) are overridden, and a defect in one of them is not charged again in every whole game.
 * -O0 keeps the student's calls to these functions real calls that the linker can redirect (an
 * optimising build could inline the student's versions into playerTurn).
 *
 * The board is the template's globals, defined in the student's main.c; this file only declares
 * them. The colour constants (Red = 0 ... Blue = 3) are not used: colours are plain numbers here.
 * Every helper is static and prefixed ref_, so nothing clashes with the student's names.
 */

#include <stdio.h>
#include <string.h>

extern int gPieces[16];
extern int gHome[4];
extern int gRing[28];
extern int gFinish[4][4];
extern const char * const gPlayerNames[];

void initializeBoard();
void printStatus();
int printMoves(int player, int roll);
int movePiece(int player, int from, int roll);
int checkWin(int player);

/* Ring index of the Start square of a color: position 5 of its region. */
static int ref_startSquare(int color) {
    return 7 * color + 4;
}

/* Write the string form of a location into buf (at least 4 chars). */
static void ref_locationToString(int loc, char *buf) {
    const char letters[] = "RGYB";
    if (loc == -1) {
        strcpy(buf, "H");
    } else if (loc >= 0 && loc < 28) {
        buf[0] = letters[loc / 7];
        buf[1] = (char)('1' + loc % 7);
        buf[2] = '\0';
    } else if (loc >= 100 && loc < 140 && (loc - 100) % 10 < 4) {
        buf[0] = letters[(loc - 100) / 10];
        buf[1] = 'F';
        buf[2] = (char)('1' + (loc - 100) % 10);
        buf[3] = '\0';
    } else {
        strcpy(buf, "?");
    }
}

/*
 * Where the player's piece at location from ends up after moving roll
 * squares, or -2 if that move is not legal (no such piece, landing on an
 * own piece, overshooting the Finish Line, leaving Home without a 6).
 */
static int ref_targetLocation(int player, int from, int roll) {
    int start = ref_startSquare(player);
    int piece, dist, target, k;

    if (roll < 1 || roll > 6) {
        return -2;
    }
    if (from == -1) {
        if (roll != 6 || gHome[player] == 0) {
            return -2;
        }
        piece = gRing[start];
        if (piece != -1 && piece / 4 == player) {
            return -2;
        }
        return start;
    }
    if (from >= 0 && from < 28) {
        piece = gRing[from];
        if (piece == -1 || piece / 4 != player) {
            return -2;
        }
        dist = (from - start + 28) % 28;
        if (dist + roll <= 27) {
            target = (from + roll) % 28;
            piece = gRing[target];
            if (piece != -1 && piece / 4 == player) {
                return -2;
            }
            return target;
        }
        k = dist + roll - 28;
        if (k > 3 || gFinish[player][k] != -1) {
            return -2;
        }
        return 100 + 10 * player + k;
    }
    if (from >= 100 + 10 * player && from < 104 + 10 * player) {
        k = from - 100 - 10 * player;
        if (gFinish[player][k] == -1) {
            return -2;
        }
        k += roll;
        if (k > 3 || gFinish[player][k] != -1) {
            return -2;
        }
        return 100 + 10 * player + k;
    }
    return -2;
}

/* Remove a captured piece from the Ring and put it back at Home. */
static void ref_sendHome(int piece) {
    gPieces[piece] = -1;
    gHome[piece / 4]++;
}

/* Set up the board: all pieces at Home, Ring and Finish Lines empty. */
void initializeBoard() {
    int i, j;
    for (i = 0; i < 16; i++) {
        gPieces[i] = -1;
    }
    for (i = 0; i < 4; i++) {
        gHome[i] = 4;
        for (j = 0; j < 4; j++) {
            gFinish[i][j] = -1;
        }
    }
    for (i = 0; i < 28; i++) {
        gRing[i] = -1;
    }
}

/* Print the location of every piece, one color per line. */
void printStatus() {
    char buf[8];
    int color, i;
    for (color = 0; color < 4; color++) {
        printf("%6s: ", gPlayerNames[color]);
        for (i = 0; i < 4; i++) {
            ref_locationToString(gPieces[4 * color + i], buf);
            printf("%s%s", i > 0 ? "," : "", buf);
        }
        printf("\n");
    }
}

/* Print every legal move for the roll (Home first, then by piece id); return how many there are. */
int printMoves(int player, int roll) {
    char fromBuf[8], toBuf[8];
    int count = 0;
    int i, from, target;

    target = ref_targetLocation(player, -1, roll);
    if (target != -2) {
        ref_locationToString(target, toBuf);
        printf("H to %s\n", toBuf);
        count++;
    }
    for (i = 4 * player; i < 4 * player + 4; i++) {
        from = gPieces[i];
        if (from == -1) {
            continue;
        }
        target = ref_targetLocation(player, from, roll);
        if (target != -2) {
            ref_locationToString(from, fromBuf);
            ref_locationToString(target, toBuf);
            printf("%s to %s\n", fromBuf, toBuf);
            count++;
        }
    }
    return count;
}

/* Move the player's piece at from by roll squares; 1 if done, 0 if illegal. */
int movePiece(int player, int from, int roll) {
    int target = ref_targetLocation(player, from, roll);
    int piece, other, i;

    if (target == -2) {
        return 0;
    }

    if (from == -1) {
        piece = -1;
        for (i = 4 * player; i < 4 * player + 4; i++) {
            if (gPieces[i] == -1) {
                piece = i;
                break;
            }
        }
        if (piece == -1) {
            return 0;
        }
        gHome[player]--;
    } else if (from < 28) {
        piece = gRing[from];
        gRing[from] = -1;
    } else {
        piece = gFinish[player][from - 100 - 10 * player];
        gFinish[player][from - 100 - 10 * player] = -1;
    }

    if (target < 28) {
        other = gRing[target];
        if (other != -1) {
            ref_sendHome(other);
        }
        gRing[target] = piece;
    } else {
        gFinish[player][target - 100 - 10 * player] = piece;
    }
    gPieces[piece] = target;
    return 1;
}

/* 1 if all four of the player's pieces are in its Finish Line. */
int checkWin(int player) {
    int k;
    for (k = 0; k < 4; k++) {
        if (gFinish[player][k] == -1) {
            return 0;
        }
    }
    return 1;
}
