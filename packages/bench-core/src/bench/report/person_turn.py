"""A person's turn in a conversation that waits for one, taken on the terminal: ``bench answer``,
and ``bench run --resume`` asking before it goes on (``bench view`` takes it in the browser)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from bench.execution.journal.person import Waiting, check_in_time, find_waiting, save_answer, waiting_tasks
from bench.report.console import plain, plain_block, stdout
from bench.vocabulary.errors import BenchError, ConfigError


def answer_person(run_id: str, task_id: str, runs_dir: Path) -> None:
    """Take a person's turn in a conversation that waits for one; --resume then goes on from it."""
    waiting = find_waiting(runs_dir, run_id, task_id)
    check_in_time(waiting)
    if not on_a_terminal():
        raise ConfigError(
            f"bench answer asks the person on a terminal, and this is none: run it in one, "
            f"or answer in bench view (task '{waiting.key}' of run {waiting.run_id})"
        )
    ask(waiting)
    typer.echo(f"saved; the conversation goes on with: bench run SUITE --resume {waiting.run_id}")


def on_a_terminal() -> bool:
    """Whether a person sits at this command: stdin and stdout are a terminal."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def ask(waiting: Waiting) -> None:
    """Show the conversation so far, ask the person for their turn and save it."""
    stdout.print(plain(f"task {waiting.key} of run {waiting.run_id} waits for you at turn {waiting.turn}"))
    for message in waiting.messages[-SHOWN_MESSAGES:]:
        stdout.print(plain(f"{message.get('role')}:", 40), plain_block(message.get("content")))
    if waiting.prompt:
        stdout.print(plain(f"you are asked: {waiting.prompt}", 2000))
    save_answer(waiting, typer.prompt("your message as the user"))


#: How many of the transcript's last messages a person is shown before their turn.
SHOWN_MESSAGES = 6


def answer_waiting(runs_dir: Path, ref: str) -> None:
    """Before a resume: on a terminal, ask the person each of the run's conversations waits for;
    elsewhere, say which stay waiting and how to answer them."""
    try:
        waiting = [w for w in waiting_tasks(runs_dir, ref) if not w.answered and not w.too_late]
    except BenchError:
        return  # the resume itself says what is wrong with the run
    for task in waiting:
        if on_a_terminal():
            ask(task)
        else:
            typer.echo(
                f"task '{task.key}' waits for a person and stays waiting (no terminal to ask on): "
                f"answer it with bench answer {task.run_id} {task.key} on a terminal, or in bench view",
                err=True,
            )
