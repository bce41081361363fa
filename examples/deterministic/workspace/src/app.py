def total(prices):
    return round(sum(prices), 2)


if __name__ == "__main__":
    print(total([1.25, 2.5]))
