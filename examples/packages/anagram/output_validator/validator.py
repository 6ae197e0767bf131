"""Accepts any anagram of the input word that differs from it, or IMPOSSIBLE exactly when the
judge's answer says so; says why it rejects an output in judgemessage.txt."""
import sys

input_file, answer_file, feedback = sys.argv[1], sys.argv[2], sys.argv[3]
word = open(input_file).read().split()[0]
answer = open(answer_file).read().split()[0]
tokens = sys.stdin.read().split()


def reject(message):
    with open(feedback + "judgemessage.txt", "w") as out:
        out.write(message + "\n")
    sys.exit(43)


if len(tokens) != 1:
    reject(f"expected one word, got {len(tokens)}")
got = tokens[0]
if answer == "IMPOSSIBLE":
    if got != "IMPOSSIBLE":
        reject(f"`{word}` has no other anagram, and `{got}` is not IMPOSSIBLE")
    sys.exit(42)
if got == "IMPOSSIBLE":
    reject(f"`{word}` has another anagram, `{answer}` for one")
if sorted(got) != sorted(word):
    reject(f"`{got}` is not an anagram of `{word}`")
if got == word:
    reject("the anagram is the word itself")
sys.exit(42)
