# Counts `The` and `the` as one word.
import re
import sys

words = re.findall(r"[A-Za-z]+", sys.stdin.read())
print(len(words), len({w.lower() for w in words}))
