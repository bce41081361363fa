"""A Python assertion reading the assertion's config (as promptfoo's examples/python-assert)."""


def get_assert(output, context):
    print("Config", context.get("config", {}))
    fruit_list = context.get("config", {}).get("fruitList", [])
    return any(fruit in output.lower() for fruit in fruit_list)
