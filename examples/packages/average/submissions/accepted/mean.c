#include <stdio.h>

int main(void) {
    long n;
    if (scanf("%ld", &n) != 1) return 1;
    long long sum = 0;
    for (long i = 0; i < n; i++) {
        long long x;
        if (scanf("%lld", &x) != 1) return 1;
        sum += x;
    }
    printf("%.9f\n", (double)sum / (double)n);
    return 0;
}
