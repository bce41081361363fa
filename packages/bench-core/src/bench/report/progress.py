"""What a run's progress says (done, failures, errors, cost so far, rate, ETA), and when a plain
progress line is due where stderr is not a terminal (CI logs): at each 10% step, else at most
every ``LINE_EVERY_S`` seconds."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

#: Seconds between two plain progress lines (10% steps are printed whenever they are crossed).
LINE_EVERY_S = 10.0


def now() -> float:
    """The progress clock (``time.monotonic``; tests replace this function to control time)."""
    return time.monotonic()


class Spending(Protocol):
    """What the progress reads of the run's model-call totals (``bench.llm.accounting.Totals``)."""

    calls: int
    unpriced_calls: int
    cost_usd: float


def cost_so_far(totals: Spending | None) -> str | None:
    """The dollars spent so far, when any call had a price: ``$0.42``, ``at least $0.42`` while
    some calls have none; None when no call was priced."""
    if totals is None or totals.calls <= totals.unpriced_calls:
        return None
    spent = totals.cost_usd
    text = f"${spent:.2f}" if spent >= 0.1 or spent == 0 else f"${spent:.4f}"
    return f"at least {text}" if totals.unpriced_calls else text


@dataclass(frozen=True)
class Snapshot:
    """Where a run stands."""

    done: int
    total: int
    passed: int
    failed: int
    errors: int
    cost: str | None
    #: Tasks per second finished by this process (a resumed run's kept tasks do not count).
    rate: float | None

    @property
    def percent(self) -> int:
        return self.done * 100 // self.total if self.total else 100

    @property
    def eta(self) -> str:
        if self.done >= self.total:
            return "0:00:00"
        if not self.rate:
            return "?"
        return str(timedelta(seconds=round((self.total - self.done) / self.rate)))

    def _speed(self) -> str:
        return "? tasks/s" if self.rate is None else f"{self.rate:.1f} tasks/s"

    def line(self) -> str:
        """The plain line, as ``bench: 40% 160/400 tasks, 12 failed, 0 errors, $0.42, 8.1 tasks/s,
        ETA 0:00:30`` (on one line)."""
        cost = f", {self.cost}" if self.cost else ""
        return (
            f"bench: {self.percent}% {self.done}/{self.total} tasks, {self.failed} failed, "
            f"{self.errors} errors{cost}, {self._speed()}, ETA {self.eta}"
        )

    def bar_text(self) -> str:
        """What the terminal's bar shows beside done/total."""
        cost = f" · {self.cost}" if self.cost else ""
        counts = f"{self.passed} passed, {self.failed} failed, {self.errors} errors"
        return f"{counts} · {self._speed()} · ETA {self.eta}{cost}"


class Tracker:
    """Counts a run's finished tasks and says when a plain line is due; ``clock`` is injectable."""

    def __init__(
        self, total: int, kept: int, clock: Callable[[], float] | None = None, every: float = LINE_EVERY_S
    ) -> None:
        self.total, self.kept, self.done = total, kept, kept
        self.passed = self.failed = self.errors = 0
        self.clock, self.every = clock or now, every
        self.began = self.last_line = self.clock()
        self.last_step = self._step(kept)

    def _step(self, done: int) -> int:
        return done * 10 // self.total if self.total else 10

    def finished(self, status: str) -> None:
        """Count one finished task."""
        self.done += 1
        self.passed += status == "passed"
        self.failed += status == "failed"
        self.errors += status == "error"

    def snapshot(self, totals: Spending | None = None) -> Snapshot:
        elapsed = self.clock() - self.began
        ran = self.done - self.kept
        rate = ran / elapsed if ran and elapsed > 0 else None
        counts = (self.done, self.total, self.passed, self.failed, self.errors)
        return Snapshot(*counts, cost_so_far(totals), rate)

    def line_due(self) -> bool:
        """True (the line then counts as printed) at a new 10% step, or ``every`` seconds after
        the last line."""
        moment, step = self.clock(), self._step(self.done)
        if step > self.last_step or moment - self.last_line >= self.every:
            self.last_step, self.last_line = step, moment
            return True
        return False


def live_bar(console: Console) -> Progress:
    """The bar a run shows on a terminal, gone once the run ends (rich's progress module is
    imported here, only where there is a terminal to show it on)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[counts]}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
