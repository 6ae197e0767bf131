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

/* Alice: a move is valid when it goes from one of the player's pieces to an empty square, one step
   diagonally forward, or two steps over an opponent's piece. Kings go both ways. */
static int inside(int v)
{
    return v >= 0 && v < SIZE;
}

static int mine(char piece, char player)
{
    return piece == player || piece == player - 32;
}

int is_valid(int fx, int fy, int tx, int ty, char player)
{
    if (!inside(fx) || !inside(fy) || !inside(tx) || !inside(ty))
        return 0;
    char piece = board[fy][fx];
    if (!mine(piece, player) || board[ty][tx] != ' ')
        return 0;
    int dx = tx - fx, dy = ty - fy;
    int forward = player == 'r' ? 1 : -1;
    int king = piece == 'R' || piece == 'W';
    if (dx != dy && dx != -dy)
        return 0;
    if (!king && dy * forward < 0)
        return 0;
    if (dx == 1 || dx == -1)
        return 1;
    if (dx == 2 || dx == -2) {
        char over = board[fy + dy / 2][fx + dx / 2];
        return over != ' ' && !mine(over, player);
    }
    return 0;
}

void apply(int fx, int fy, int tx, int ty)
{
    char piece = board[fy][fx];
    board[fy][fx] = ' ';
    if (tx - fx == 2 || fx - tx == 2)
        board[(fy + ty) / 2][(fx + tx) / 2] = ' ';
    if (piece == 'r' && ty == SIZE - 1)
        piece = 'R';
    if (piece == 'w' && ty == 0)
        piece = 'W';
    board[ty][tx] = piece;
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
