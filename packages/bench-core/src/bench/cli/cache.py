"""``bench cache``: where the LLM response cache is, how big, and clearing it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from bench.cli.errors import handle_errors
from bench.cli.options import AsJson, CacheDir

cache_app = typer.Typer(help="The LLM response cache: where it is, how big, and clearing it.")


@cache_app.command("info")
@handle_errors
def cache_info(
    cache_dir: CacheDir = None,
    as_json: AsJson = False,
) -> None:
    """Where the response cache is, its entries, size on disk, and its oldest and newest entry;
    and the shared second level's URL when $BENCH_SHARED_CACHE names one."""
    import json
    from datetime import datetime

    from bench.llm.cache.shared import shared_cache_url

    info = _cache(cache_dir).info()
    shared = shared_cache_url()
    if as_json:
        fields = {
            "path": str(info.path),
            "entries": info.entries,
            "size_bytes": info.size_bytes,
            "oldest": info.oldest,
            "newest": info.newest,
            **({"shared_cache": shared} if shared else {}),
        }
        typer.echo(json.dumps(fields, indent=2))
        return

    def when(stamp: float | None) -> str:
        return "-" if stamp is None else datetime.fromtimestamp(stamp).strftime("%Y-%m-%d %H:%M:%S")

    typer.echo(f"cache:   {info.path}")
    typer.echo(f"entries: {info.entries:,}")
    typer.echo(f"size:    {info.size_bytes / 1_000_000:,.1f} MB")
    typer.echo(f"oldest:  {when(info.oldest)}")
    typer.echo(f"newest:  {when(info.newest)}")
    if shared:
        typer.echo(f"shared:  {shared}")


@cache_app.command("clear")
@handle_errors
def cache_clear(
    cache_dir: CacheDir = None,
    older_than: Annotated[
        str | None,
        typer.Option(
            "--older-than",
            metavar="AGE",
            help="Only entries stored longer ago than this: 30m, 12h, 7d, 2w.",
        ),
    ] = None,
) -> None:
    """Delete the cached responses (all of them, or those older than --older-than)."""
    from bench.llm.cache.local import parse_age

    age = None if older_than is None else parse_age(older_than, "--older-than")
    cache = _cache(cache_dir)
    removed = cache.clear(age)
    which = "" if older_than is None else f" older than {older_than}"
    typer.echo(f"removed {removed:,} cached response{'' if removed == 1 else 's'}{which} from {cache.path}")


def _cache(folder: Path | None) -> Any:
    from bench.llm.cache.local import CACHE_FILE, ResponseCache, default_cache_path
    from bench.vocabulary.errors import ConfigError

    path = default_cache_path() if folder is None else folder / CACHE_FILE
    if path.parent.exists() and not path.parent.is_dir():
        raise ConfigError(f"--cache-dir {path.parent}: not a folder")
    return ResponseCache(path)
