"""Prints one n between 1 and the bound, chosen by the seed: the same seed, the same n."""
import random
import sys

seed, bound = int(sys.argv[1]), int(sys.argv[2])
print(random.Random(seed).randint(1, bound))
