"""OpenAI's evals registry: its suite loader and evaluator types (registered by ``bench_formats.plugin``).

Empty on purpose: every command asks each suite loader whether it reads the suite file, which
imports this package; its evaluator and target classes are imported when a suite names them
(``bench_formats.plugin`` registers each by import path).
"""
