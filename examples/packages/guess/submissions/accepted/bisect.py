low, high = 1, int(input())
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
