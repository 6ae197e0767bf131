#include <stdio.h>
#include <string.h>

int main(void) {
    long low = 1, high;
    char answer[16];
    if (scanf("%ld", &high) != 1) return 1;
    for (;;) {
        long middle = (low + high) / 2;
        printf("%ld\n", middle);
        fflush(stdout);
        if (scanf("%15s", answer) != 1 || strcmp(answer, "correct") == 0) return 0;
        if (strcmp(answer, "higher") == 0) low = middle + 1;
        else high = middle - 1;
    }
}
