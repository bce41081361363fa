"""YAML 1.2 scalars as the tools read them (js-yaml 5.2.2's core schema for promptfoo, yaml.v3's booleans)."""

from __future__ import annotations

import datetime
import math

import pytest
import yaml

from bench_formats.yaml12 import Yaml12BoolLoader, load_js_yaml

# Behaviour that differs between Python versions: these run on every Python (noxfile.py).
pytestmark = pytest.mark.every_python


def test_js_yaml_core_schema_scalars():
    # what `node -e` with js-yaml 5.2.2 and promptfoo's YAML_LOAD_SCHEMA printed for the same text
    text = (
        "a: yes\nb: No\nc: on\nd: 1:30\ne: 010\nf: 0o10\ng: ~\nh: 1e3\ni: 1_000\nj: 0x1F\n"
        "k: 0b101\nl: True\nm: NULL\nn: +12\no: -0x1F\np: .5\nq: 2001-12-14\nr:\n  <<: {x: 1}\n  y: 2\n"
    )
    assert load_js_yaml(text) == {
        "a": "yes",
        "b": "No",
        "c": "on",
        "d": "1:30",
        "e": 10,
        "f": 8,
        "g": None,
        "h": 1000.0,
        "i": "1_000",
        "j": 31,
        "k": "0b101",
        "l": True,
        "m": None,
        "n": 12,
        "o": "-0x1F",
        "p": 0.5,
        "q": datetime.date(2001, 12, 14),
        "r": {"x": 1, "y": 2},
    }
    infinite = load_js_yaml("a: .inf\nb: -.Inf\nc: .NaN\n")
    assert infinite["a"] == math.inf
    assert infinite["b"] == -math.inf
    assert math.isnan(infinite["c"])


def test_go_yaml_booleans_only_change_booleans():
    assert yaml.load("a: yes\nb: off\nc: TRUE\nd: 1.5\n", Loader=Yaml12BoolLoader) == {
        "a": "yes",
        "b": "off",
        "c": True,
        "d": 1.5,
    }


def test_js_yaml_flow_plain_scalar_with_question_mark():
    # js-yaml (promptfoo) and the YAML spec read `?` inside a flow plain scalar as text; PyYAML's
    # pure-Python scanner stopped the scalar there and refused the file
    text = "tests:\n  - vars: {question: What is 2+2?, more: [Why?, a?b]}\n"
    assert load_js_yaml(text) == {"tests": [{"vars": {"question": "What is 2+2?", "more": ["Why?", "a?b"]}}]}
