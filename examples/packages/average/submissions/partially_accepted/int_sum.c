/* Sums in an int: right while the sum fits, which the small group's numbers always do. */
#include <stdio.h>

int main(void) {
    int n, sum = 0;
    if (scanf("%d", &n) != 1) return 1;
    for (int i = 0; i < n; i++) {
        int x;
        if (scanf("%d", &x) != 1) return 1;
        sum += x;
    }
    printf("%.9f\n", (double)sum / n);
    return 0;
}
