import re
import sys

words = re.findall(r"[A-Za-z]+", sys.stdin.read())
print(len(words), len(set(words)))
