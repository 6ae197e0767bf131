# The sorted letters: the word itself when it is already sorted.
word = input().strip()
ascending = "".join(sorted(word))
print("IMPOSSIBLE" if len(set(word)) == 1 else ascending)
