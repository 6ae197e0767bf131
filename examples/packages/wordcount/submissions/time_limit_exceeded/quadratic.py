# Looks every word up in a list: fine for a paragraph, far too slow for a book.
import re
import sys

words = re.findall(r"[A-Za-z]+", sys.stdin.read())
seen = []
for word in words:
    if word not in seen:
        seen.append(word)
print(len(words), len(seen))
