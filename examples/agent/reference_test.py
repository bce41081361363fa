from calc import add, mul

assert add(2, 3) == 5
assert mul(2, 3) == 6
print("all tests passed")
