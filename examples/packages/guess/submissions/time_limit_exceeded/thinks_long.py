# Thinks far too long before its first guess when the range is large.
n = int(input())
total = 0
for i in range(n * 200):
    total += i * i
low, high = 1, n
while True:
    middle = (low + high) // 2
    print(middle, flush=True)
    answer = input()
    if answer == "correct":
        break
    if answer == "higher":
        low = middle + 1
    else:
        high = middle - 1
