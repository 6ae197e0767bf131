/* checkers.c: the course's template. Write is_valid and apply; leave the rest as it is. */
#include <stdio.h>

#define SIZE 8

char board[SIZE][SIZE];

int is_valid(int fx, int fy, int tx, int ty, char player);
void apply(int fx, int fy, int tx, int ty);

/* Men on the dark squares of the three rows at each end. */
void setup(void)
{
    for (int y = 0; y < SIZE; y++) {
        for (int x = 0; x < SIZE; x++) {
            if ((x + y) % 2 == 1 && y < 3)
                board[y][x] = 'r';
            else if ((x + y) % 2 == 1 && y > 4)
                board[y][x] = 'w';
            else
                board[y][x] = ' ';
        }
    }
}

/* The board with its column numbers on top and its row numbers on the left. */
void show(void)
{
    printf("   0   1   2   3   4   5   6   7\n");
    for (int y = 0; y < SIZE; y++) {
        printf(" |---|---|---|---|---|---|---|---|\n");
        printf("%d|", y);
        for (int x = 0; x < SIZE; x++)
            printf(" %c |", board[y][x]);
        printf("\n");
    }
    printf(" |---|---|---|---|---|---|---|---|\n");
}

// Bob's rules, one check after the other, each with its reason.
int is_valid(int fx, int fy, int tx, int ty, char player)
{
    int coords[4] = {fx, fy, tx, ty};
    for (int i = 0; i < 4; i++) {
        if (coords[i] < 0 || coords[i] > 7) {
            return 0; // off the board
        }
    }
    char from = board[fy][fx];
    char king = player == 'r' ? 'R' : 'W';
    if (from != player && from != king) {
        return 0; // not the player's piece
    }
    if (board[ty][tx] != ' ') {
        return 0; // the square is taken
    }
    int steps = tx > fx ? tx - fx : fx - tx;
    int rise = ty - fy;
    if (rise != steps && rise != -steps) {
        return 0; // not diagonal
    }
    if (from == player) {
        if ((player == 'r' && rise < 0) || (player == 'w' && rise > 0)) {
            return 0; // backwards
        }
    }
    switch (steps) {
    case 1:
        return 1;
    case 2: {
        char middle = board[(fy + ty) / 2][(fx + tx) / 2];
        char enemy = player == 'r' ? 'w' : 'r';
        return middle == enemy || middle == enemy - 32;
    }
    default:
        return 0;
    }
}

void apply(int fx, int fy, int tx, int ty)
{
    int jumped = (tx - fx) * (tx - fx) == 4;
    board[ty][tx] = board[fy][fx];
    board[fy][fx] = ' ';
    if (jumped) {
        board[fy + (ty - fy) / 2][fx + (tx - fx) / 2] = ' ';
    }
    if (ty == 7 && board[ty][tx] == 'r') {
        board[ty][tx] = 'R';
    } else if (ty == 0 && board[ty][tx] == 'w') {
        board[ty][tx] = 'W';
    }
}

int main(void)
{
    char player = 'r';
    int fx, fy, tx, ty;
    setup();
    while (1) {
        show();
        printf("%s's move: ", player == 'r' ? "Red" : "White");
        if (scanf("%d %d %d %d", &fx, &fy, &tx, &ty) != 4)
            return 0;
        if (!is_valid(fx, fy, tx, ty, player)) {
            printf("INVALID MOVE. TRY AGAIN!!\n");
            continue;
        }
        apply(fx, fy, tx, ty);
        player = player == 'r' ? 'w' : 'r';
    }
}
