"""The `bgparse convert` and `bgparse generate` commands: match files rewritten in GNU's `.mat` or
SGF layout, and generated self-play matches written as files. `register(app)` adds them to the
command line; like the rest of the CLI they only turn library results into files, messages and
exit codes (0 all done, 1 some file failed or was refused, 2 usage error or unreadable input).

Output files go into `--out` only: a converted file where its input stands below the folder
named (archive members below a folder of the archive's name), named by the input's stem (its
whole name where another input there has that stem; or the generator's seed and match
number) and the new extension. An existing file is never
overwritten without `--force`, and then it is replaced atomically (a new file renamed over it,
so a symbolic link there is replaced, not followed out of `--out`). New files get the
permissions the umask gives.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Annotated

import typer

from bgparse.cli.base import RulesOption, WriteFormat, echo_error, input_blobs, rule_profile
from bgparse.helpers.errors import OutputError, UsageError
from bgparse.helpers.outfiles import atomic_output
from bgparse.helpers.paths import display_path
from bgparse.rules.wording import plural

__all__ = ["register"]


class _Refused(Exception):
    """A file that is not written (it exists, or this run already wrote it)."""


def register(app: typer.Typer) -> None:
    """Add `convert` and `generate` to the `bgparse` command line."""
    app.command("convert")(convert)
    app.command("generate")(generate)


def _out_dir(out: str) -> Path:
    target = Path(out)
    if target.exists() and not target.is_dir():
        raise UsageError(f"--out {display_path(out)}: not a folder")
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        why = exc.strerror or exc
        raise OutputError(f"--out {display_path(out)}: cannot create: {why}") from None
    return target


def _write(target: Path, text: str, *, force: bool, written: set[Path]) -> None:
    """Write `text` to `target` (inside the output folder): refused if it exists and not
    `force`, or if this run wrote it already (two inputs with the same stem)."""
    key = target.resolve()
    shown = display_path(target)
    if key in written:
        raise _Refused(f"{shown}: another input of this run was written there; not overwritten")
    if (target.exists() or target.is_symlink()) and not force:
        raise _Refused(f"{shown}: exists; not overwritten (use --force to replace it)")
    with atomic_output(target) as f:
        f.write(text.encode("utf-8"))
    written.add(key)


# --- convert --------------------------------------------------------------------------------

#: A compressed file's suffix (`match.mat.gz` is read as the one member `match.mat`).
_COMPRESSED = re.compile(r"\.(?:gz|gzip|z|bz2|bzip2|xz|lzma)$", re.IGNORECASE)


def _parts(shown: str) -> list[str]:
    """A display name's path parts, as the file system spells them (`bgparse.helpers.paths`)."""
    from bgparse.helpers.paths import path_from_display

    return [p for p in path_from_display(shown).replace("\\", "/").split("/") if p]


def _relative(top: str, label: str, archive: str | None) -> list[str]:
    """Where below --out the output of input `label` goes, as path parts ending in the name
    whose stem names the file: the input's path below the folder `top` named (its own name
    alone for a file or archive named itself); an archive's members below a folder of the
    archive's name, except a compressed file's one member, which stands for the file."""
    from bgparse.helpers.paths import display_path

    shown_top = display_path(top)
    folder = os.path.isdir(top)

    def below(name: str) -> list[str]:
        if folder and name.startswith(shown_top.rstrip("/") + "/"):
            return _parts(name[len(shown_top.rstrip("/")) + 1 :])
        return _parts(name)[-1:]

    if archive is None:
        return below(label)
    member = _parts(label[len(archive) + 1 :])
    outer = below(archive)
    if member == [_COMPRESSED.sub("", outer[-1])]:
        return [*outer[:-1], *member]  # a compressed file: its one member is the file
    return [*(outer if folder else []), *member]


def convert(
    inputs: Annotated[
        list[str], typer.Argument(help="Match files, or folders to search.", metavar="PATH")
    ],
    to: Annotated[WriteFormat, typer.Option("--to", help="Output format: mat or sgf.")],
    out: Annotated[
        str,
        typer.Option("--out", "-o", metavar="FOLDER", help="Folder to write into (default: here)."),
    ] = ".",
    force: Annotated[
        bool, typer.Option("--force", help="Replace output files that exist.")
    ] = False,
    rules: RulesOption = None,
    repair: Annotated[
        bool,
        typer.Option(
            "--repair",
            help="Write the verified result (points, scores) where the record's differs.",
        ),
    ] = False,
) -> None:
    """Rewrite match records as GNU Backgammon writes them (`.mat` export or SGF): each input is
    read, replayed through the rules, and written below --out where it stands below the folder
    named (a file named alone: in --out), with its stem and the new extension. A result the
    replay scores otherwise is written as the record says it, and reported; --repair writes the
    verified one. Exit 0: all converted; 1: some file was not (it exists, or writing failed);
    2: usage error or unreadable input."""
    from bgparse.model.carry import game_comments, recorded_results
    from bgparse.model.findings import RecordError
    from bgparse.readers import iter_records
    from bgparse.replay import replay
    from bgparse.store.inputs import check_paths
    from bgparse.writers import write_mat, write_sgf
    from bgparse.writers.mat import unwritable_cubes

    overrides = rule_profile(rules, {}) or None
    check_paths(inputs)
    folder = _out_dir(out)
    written: set[Path] = set()
    taken: dict[Path, str] = {}  # each output's path: the name of the input it is for
    counts = {"converted": 0, "failed": 0, "unreadable": 0}
    for top in inputs:
        for label, archive, data, refused in input_blobs([top]):
            try:
                if refused is not None:
                    raise refused
                records = list(iter_records(data, label))
            except RecordError as exc:
                counts["unreadable"] += 1
                typer.echo(exc.format(), err=True)
                continue
            parts: list[str] = []
            errors = 0
            lost: list[str] = []
            results: list[str] = []
            for record in records:
                match = replay(record, overrides)
                errors += sum(1 for f in match.findings if f.severity.value == "error")
                # Comments inside games are not in the verified match: placed from the record.
                notes = game_comments(record, match)
                kept, differ = recorded_results(record, match)
                results += differ
                if not repair:
                    match = kept
                if to == "mat":
                    lost += unwritable_cubes(match)
                    parts.append(write_mat(match, comments=record.comments, game_comments=notes))
                else:
                    parts.append(write_sgf(match, comments=record.comments, game_comments=notes))
            # Several matches of one file go into one output file, one after the other, as
            # both formats allow.
            text = ("\n" if to == "mat" else "").join(parts)
            where = _relative(os.fspath(top), label, archive)
            target = folder.joinpath(*where[:-1], f"{Path(where[-1]).stem}.{to.value}")
            if taken.get(target.resolve(), where[-1]) != where[-1]:
                # Another input of this folder has the same stem (`test.mat`, `test.xg`):
                # this one keeps its whole name (`test.xg.sgf`). One of the same whole name
                # (two files named alone) is refused below.
                target = target.with_name(f"{where[-1]}.{to.value}")
            taken.setdefault(target.resolve(), where[-1])
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                _write(target, text, force=force, written=written)
            except _Refused as exc:
                counts["failed"] += 1
                echo_error(str(exc))
                continue
            except OSError as exc:
                counts["failed"] += 1
                echo_error(f"{display_path(target)}: cannot write: {exc.strerror or exc}")
                continue
            counts["converted"] += 1
            note = (
                f" ({plural(errors, 'error')}: written as the replay reads them)" if errors else ""
            )
            if results:
                how = (
                    "repaired as verified" if repair else "kept as recorded (--repair: as verified)"
                )
                note += f" (results {how}: {'; '.join(results)})"
            if lost:
                note += (
                    f" (a .mat cannot write {'; '.join(lost)}: the file reads back with other "
                    "cube values)"
                )
            typer.echo(f"{label} -> {display_path(target)}{note}")
    typer.echo(
        f"{counts['converted']} converted, {counts['failed']} failed, "
        f"{counts['unreadable']} unreadable"
    )
    raise typer.Exit(2 if counts["unreadable"] else 1 if counts["failed"] else 0)


# --- generate -------------------------------------------------------------------------------


def generate(
    matches: Annotated[int, typer.Option("--matches", "-n", help="How many matches.")] = 1,
    length: Annotated[int, typer.Option("--length", "-l", help="Match length (1-64).")] = 7,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Random seed.")] = 0,
    out: Annotated[
        str,
        typer.Option("--out", "-o", metavar="FOLDER", help="Folder to write into (default: here)."),
    ] = ".",
    format: Annotated[WriteFormat, typer.Option("--format", "-f", help="mat or sgf.")] = (
        WriteFormat.mat
    ),
    money: Annotated[
        bool,
        typer.Option("--money", help="Money sessions of 2-6 games instead of matches."),
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Replace output files that exist.")
    ] = False,
) -> None:
    """Write random legal self-play matches (deterministic for a seed): gen-SEED-NNNNN.mat (or
    .sgf) in --out. Exit 0: all written; 1: some file existed (see --force); 2: usage error."""
    if matches < 1:
        raise UsageError(f"--matches must be 1 or more, not {matches}")
    if not money and not 1 <= length <= 64:
        raise UsageError(f"--length must be 1 to 64, not {length}")
    from bgparse.replay.generate import generate_matches
    from bgparse.writers import write_mat, write_sgf

    folder = _out_dir(out)
    written: set[Path] = set()
    done = refused = 0
    for i, match in enumerate(generate_matches(matches, length, seed, money=money)):
        comments = (f"bgparse generate --seed {seed}: match {i + 1}",)
        if format == "mat":
            text = write_mat(match, comments=comments)
        else:
            text = write_sgf(match, comments=comments)
        target = folder / f"gen-{seed}-{i + 1:05d}.{format.value}"
        try:
            _write(target, text, force=force, written=written)
        except _Refused as exc:
            refused += 1
            echo_error(str(exc))
            continue
        except OSError as exc:
            refused += 1
            echo_error(f"{display_path(target)}: cannot write: {exc.strerror or exc}")
            continue
        done += 1
    kind = "money session" if money else f"{length}-point match"
    written_to = f"written to {display_path(folder)}, {refused} refused"
    typer.echo(f"{plural(done, kind + ' file')} {written_to}")
    raise typer.Exit(1 if refused else 0)
