/* Rotates the word by one letter, then by more, until it differs. */
#include <stdio.h>
#include <string.h>

int main(void) {
    char word[128], rotated[128];
    if (scanf("%127s", word) != 1) return 1;
    size_t n = strlen(word);
    for (size_t shift = 1; shift < n; shift++) {
        for (size_t i = 0; i < n; i++) rotated[i] = word[(i + shift) % n];
        rotated[n] = '\0';
        if (strcmp(rotated, word) != 0) {
            printf("%s\n", rotated);
            return 0;
        }
    }
    printf("IMPOSSIBLE\n");
    return 0;
}
