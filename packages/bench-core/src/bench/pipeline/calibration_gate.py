"""A suite's calibration bars: each calibrated judge's kappa against its labels, checked before a run.

Results are cached in ``calibration.json`` next to the LLM cache, keyed by the judge's settings, its
models, its prompt (text and version), the labels file's digest and the responses judged.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.llm.cache.local import default_cache_path
from bench.pipeline.client import make_client
from bench.pipeline.options import RunOptions
from bench.report.observer import RunObserver
from bench.scoring.labels import Label, digest, read_labels
from bench.scoring.stats import Interval
from bench.suite.plan import BoundEvaluator, CalibrationBar, Plan
from bench.vocabulary.errors import ConfigError

if TYPE_CHECKING:
    from bench.llm.client import LLMClient

CACHE_FILE = "calibration.json"


@dataclass(frozen=True)
class Standing:
    """One calibrated judge: its kappa (with interval) against the bar."""

    judge: str
    kappa: Interval | None
    bar: CalibrationBar

    @property
    def passes(self) -> bool:
        return self.kappa is not None and self.kappa.value >= self.bar.min_kappa

    def text(self) -> str:
        k = self.kappa
        figure = (
            "no labelled task judged" if k is None else f"kappa {k.value:.2f} [{k.low:.2f}, {k.high:.2f}]"
        )
        return f"judge '{self.judge}': {figure}, min_kappa {self.bar.min_kappa:g} ({self.bar.labels.name})"

    def as_dict(self) -> dict[str, Any]:
        """As the run's report records it (``calibration``)."""
        return {
            "judge": self.judge,
            "kappa": None if self.kappa is None else self.kappa.as_dict(),
            "min_kappa": self.bar.min_kappa,
            "labels": self.bar.labels.name,
            "passes": self.passes,
        }


def bars(plan: Plan) -> dict[str, tuple[BoundEvaluator, CalibrationBar]]:
    """Each judge that has a calibration bar (its own, else the suite's), by name."""
    found: dict[str, tuple[BoundEvaluator, CalibrationBar]] = {}
    if plan.calibration is None and not plan.calibrated:
        return found  # no bar anywhere: nothing to walk (a large plan rebuilds each task)
    from bench.llm.judge import Judge  # the judges' machinery, for a suite that has a bar

    for planned in plan.tasks:
        for bound in planned.evaluators:
            bar = bound.calibration or plan.calibration
            if bar is not None and isinstance(bound.instance, Judge):
                found.setdefault(bound.name, (bound, bar))
    return found


def _key(plan: Plan, bound: BoundEvaluator, bar: CalibrationBar, grouped: dict[str, list[Label]]) -> str:
    from bench.judging import calibrate as cal
    from bench.llm.judge import Judge

    judge = bound.instance
    assert isinstance(judge, Judge)
    responses = {}
    for p in plan.tasks:
        if p.task.id in grouped:
            response = p.task.response or cal.labelled_response(grouped[p.task.id])
            responses[p.task.id] = response.text if response else None
    parts: dict[str, Any] = {
        "spec": bound.spec,
        "models": judge.config.judges,
        "prompt": judge.custom_prompt() or judge.template,
        "version": judge.version,
        "labels": digest(bar.labels),
        "responses": responses,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


async def standings(plan: Plan, llm: LLMClient, cache_folder: Path | None) -> list[Standing]:
    """Every calibrated judge's standing, computed or read from the cache."""
    from bench.judging import calibrate as cal

    cache_path = cache_folder / CACHE_FILE if cache_folder is not None else None
    cache = _read(cache_path) if cache_path is not None else {}
    out = []
    for name, (bound, bar) in bars(plan).items():
        grouped = cal.by_task(read_labels(bar.labels), plan, str(bar.labels))
        key = _key(plan, bound, bar, grouped)
        kappa: Interval | None = _cached(cache.get(key))
        if kappa is None:
            (result,) = await cal.calibrate(plan, grouped, llm, only={name})
            kappa = result.kappa() if result.items else None
            if kappa is not None:
                cache[key] = kappa.as_dict()
        out.append(Standing(name, kappa, bar))
    if cache_path is not None and cache != _read(cache_path):
        _write(cache_path, cache)
    return out


def _cached(entry: Any) -> Interval | None:
    """A cached kappa, or None for an entry that is missing or not whole (then measured again)."""
    try:
        return Interval(
            float(entry["value"]), float(entry["low"]), float(entry["high"]), str(entry["method"])
        )
    except (TypeError, KeyError, ValueError):
        return None


def _write(path: Path, cache: dict[str, Any]) -> None:
    """Replace the cache file whole (a temporary file renamed over it), so a reader never sees half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(cache, indent=1, sort_keys=True), encoding="utf-8")
    os.replace(tmp, path)


async def gate(plan: Plan, options: RunOptions, observer: RunObserver) -> tuple[dict[str, Any], ...]:
    """Before a run: each calibrated judge's standing, told to ``observer``; with
    ``options.require_calibration``, one below its bar refuses the run. The standings as the
    run's report records them (``calibration``)."""
    if not (options.require_calibration or bars(plan)):
        return ()
    found = await measure(plan, options)
    for standing in found:
        observer.calibrated(standing.text(), standing.passes)
    if options.require_calibration:
        require(found)
    return tuple(s.as_dict() for s in found)


async def measure(plan: Plan, options: RunOptions) -> list[Standing]:
    """Every calibrated judge's standing before a run (``options`` picks the LLM cache); with
    ``options.require_calibration``, a suite without a bar is refused."""
    if not bars(plan):
        if options.require_calibration:
            raise ConfigError("--require-calibration: no judge of this suite has a calibration bar")
        return []
    llm = make_client(plan, options)
    try:
        folder = (options.cache_path or default_cache_path()).parent if options.cache else None
        return await standings(plan, llm, folder)
    finally:
        await llm.aclose()


def require(found: list[Standing]) -> None:
    """Refuse a run whose calibrated judges include one below its bar (``--require-calibration``)."""
    below = [s for s in found if not s.passes]
    if below:
        names = "; ".join(s.text() for s in below)
        raise ConfigError(f"--require-calibration: below the bar: {names}")
