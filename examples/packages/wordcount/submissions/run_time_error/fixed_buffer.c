/* Keeps at most 100 words, and aborts on a longer text. */
#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    static char words[100][64];
    int count = 0, distinct = 0, length = 0, c;
    char word[64];
    do {
        c = getchar();
        if (c != EOF && isalpha(c) && c < 128) {
            if (length < 63) word[length++] = (char)c;
        } else if (length > 0) {
            word[length] = '\0';
            int seen = 0;
            for (int i = 0; i < distinct; i++) seen |= strcmp(words[i], word) == 0;
            if (!seen) {
                assert(distinct < 100);
                strcpy(words[distinct++], word);
            }
            count++;
            length = 0;
        }
    } while (c != EOF);
    printf("%d %d\n", count, distinct);
    return 0;
}
