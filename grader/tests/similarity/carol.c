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

void apply(int a, int b, int c, int d) {
  char who = board[b][a];
  board[b][a] = ' ';
  if (c - a == 2 || a - c == 2) board[(b + d) / 2][(a + c) / 2] = ' ';
  if (who == 'r' && d == SIZE - 1) who = 'R';
  if (who == 'w' && d == 0) who = 'W';
  board[d][c] = who;
}

static int on_board(int n);
static int owns(char p, char side);

// checks the move
int is_valid(int a, int b, int c, int d, char side) {
  if (!on_board(a) || !on_board(b) || !on_board(c) || !on_board(d)) return 0;
  char p = board[b][a];
  if (!owns(p, side) || board[d][c] != ' ') return 0;
  int dist_x = c - a, dist_y = d - b;
  int ahead = side == 'r' ? 1 : -1;
  int crowned = p == 'R' || p == 'W';
  if (dist_x != dist_y && dist_x != -dist_y) return 0;
  if (!crowned && dist_y * ahead < 0) return 0;
  if (dist_x == 1 || dist_x == -1) return 1;
  if (dist_x == 2 || dist_x == -2) {
    char between = board[b + dist_y / 2][a + dist_x / 2];
    return between != ' ' && !owns(between, side);
  }
  return 0;
}

// helpers
static int on_board(int n) { return n >= 0 && n < SIZE; }

static int owns(char p, char side) { return p == side || p == side - 32; }

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
