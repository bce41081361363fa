"""A var computed by Python (promptfoo calls get_var(var_name, prompt, other_vars))."""


def get_var(var_name, prompt, other_vars):
    assert var_name == "city"
    return {"output": "  Tokyo\n" if "visits" in prompt else "wrong prompt"}
