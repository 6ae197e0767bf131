#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void) {
    size_t count = 0, capacity = 16, length = 0;
    char **words = malloc(capacity * sizeof *words);
    char word[4096];
    int c;
    do {
        c = getchar();
        if (c != EOF && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
            if (length + 1 < sizeof word) word[length++] = (char)c;
        } else if (length > 0) {
            word[length] = '\0';
            if (count == capacity) words = realloc(words, (capacity *= 2) * sizeof *words);
            words[count++] = strdup(word);
            length = 0;
        }
    } while (c != EOF);
    qsort(words, count, sizeof *words, compare);
    size_t distinct = 0;
    for (size_t i = 0; i < count; i++)
        if (i == 0 || strcmp(words[i], words[i - 1]) != 0) distinct++;
    printf("%zu %zu\n", count, distinct);
    return 0;
}
