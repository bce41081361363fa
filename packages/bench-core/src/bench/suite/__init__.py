"""From a suite file to a validated plan: YAML reading, the suite's models, evaluator binding, the plan."""
