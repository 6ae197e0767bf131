# Guesses 1, 2, 3, ...: right only for small numbers.
n = int(input())
guess = 1
while True:
    print(guess, flush=True)
    if input() == "correct":
        break
    guess += 1
