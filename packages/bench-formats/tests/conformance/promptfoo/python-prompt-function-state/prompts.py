def greet(context):
    variables = context["vars"]
    if variables["q"] == "boom":
        raise ValueError("boom")
    if "name" in variables:
        return "Hello " + variables["name"] + ", {{ q }}"
    return "{{ q }}"
