"""From a plan to results in the store: the session, the runner, targets and the limits around them."""
