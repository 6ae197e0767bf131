word = input().strip()
ascending = "".join(sorted(word))
descending = ascending[::-1]
if ascending == descending:
    print("IMPOSSIBLE")
else:
    print(ascending if ascending != word else descending)
