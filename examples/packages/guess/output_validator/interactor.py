"""The judge of `guess`: reads n and the secret from the input file, answers each guess, accepts a
right one within 20 guesses, and says in judgemessage.txt why it rejects."""
import sys

input_file, feedback = sys.argv[1], sys.argv[3]
n, secret = map(int, open(input_file).read().split())
GUESSES = 20


def reject(message):
    with open(feedback + "judgemessage.txt", "w") as out:
        out.write(message + "\n")
    sys.exit(43)


print(n, flush=True)
for guess in range(1, GUESSES + 1):
    line = sys.stdin.readline()
    if not line:
        reject(f"the program stopped after {guess - 1} guesses")
    try:
        value = int(line)
    except ValueError:
        reject(f"guess {guess}: `{line.strip()}` is not a number")
    if value == secret:
        print("correct", flush=True)
        sys.exit(42)
    print("higher" if secret > value else "lower", flush=True)
reject(f"no right guess in {GUESSES} guesses")
