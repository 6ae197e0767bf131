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
