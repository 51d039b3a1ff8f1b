"""File names that are not valid UTF-8 or hold a newline: shown and stored in their display form
(`bgparse.helpers.paths`), one line per finding, valid JSON, and the import goes on."""

from __future__ import annotations

import io
import json
import os
import tarfile
import zipfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.helpers.paths import display_path, path_from_display
from tests.records import SHORT_MATCH

runner = CliRunner()

GOOD = SHORT_MATCH
# One illegal play (an error finding at line 5) and otherwise the same match, so that a
# finding's line carries the odd name too.
BAD = GOOD.replace("42: 24/20 24/22", "42: 24/18 13/11").replace("Bob", "Carol")


def test_display_form_examples() -> None:
    assert display_path("club/round 1/Ünal.mat") == "club/round 1/Ünal.mat"
    assert display_path(os.fsdecode(b"a\xff\xfeb.mat")) == "a\\xff\\xfeb.mat"
    assert display_path(b"a\xffb.mat") == "a\\xffb.mat"
    assert display_path("new\nline\r\t.mat") == "new\\nline\\r\\t.mat"
    assert display_path("bell\x07 del\x7f c1\x85.mat") == "bell\\x07 del\\x7f c1\\u0085.mat"
    # A backslash is doubled only where it would read as an escape.
    assert display_path("C:\\data\\b.mat") == "C:\\data\\b.mat"
    assert display_path("C:\\new\\x.mat") == "C:\\\\new\\\\x.mat"
    assert display_path("a\\\n.mat") == "a\\\\\\n.mat"
    # Line separators and bidirectional overrides would break or reorder a report line.
    assert display_path("a\u2028b\u202ec.mat") == "a\\u2028b\\u202ec.mat"
    assert path_from_display("a\\xff\\xfeb.mat") == os.fsdecode(b"a\xff\xfeb.mat")
    assert path_from_display("C:\\\\new\\data\\n.mat") == "C:\\new\\data\n.mat"


@given(st.binary(min_size=1, max_size=40))
def test_display_form_is_printable_utf8_on_one_line_and_reads_back(name: bytes) -> None:
    shown = display_path(os.fsdecode(name))
    shown.encode("utf-8")  # never a lone surrogate
    assert shown.splitlines() == [shown] or shown == ""
    assert os.fsencode(path_from_display(shown)) == name


# Backslashes next to escape letters, hex digits and escaped characters are where an escape
# scheme goes wrong; arbitrary text covers the rest.
_TRICKY = st.text(alphabet=st.sampled_from(list("\\xunrt0af\n\x85\udcff\u2028é")), max_size=30)


@given(_TRICKY | st.text(max_size=30))
def test_display_form_of_any_text_reads_back(name: str) -> None:
    assert path_from_display(display_path(name)) == name


def _odd_names(folder: Path) -> dict[str, bytes]:
    """A folder of match files with odd names, and archives with odd member names, each a
    different match. Returns each input's expected display label -> b"ok" or the code of its
    one finding."""
    base = os.fsencode(folder)
    files = {b"good.mat": GOOD, b"bad\xff\xfename.mat": BAD, b"new\nline.mat": BAD}
    for i, (name, text) in enumerate(files.items()):
        with open(os.path.join(base, name), "wb") as f:
            f.write(text.replace("Alice", f"Alice{i}").encode())
    with tarfile.open(folder / "club.tar", "w", format=tarfile.GNU_FORMAT) as tf:
        for i, member in enumerate(("r1/x\udcffy.mat", "r1/two\nlines.mat")):
            data = BAD.replace("Alice", f"Tara{i}").encode()
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    with zipfile.ZipFile(folder / "club.zip", "w") as zf:
        zf.writestr("z\nnew.mat", GOOD.replace("Alice", "Zoe"))
    shown = str(folder)
    return {
        f"{shown}/good.mat": b"ok",
        f"{shown}/bad\\xff\\xfename.mat": b"P001",
        f"{shown}/new\\nline.mat": b"P001",
        f"{shown}/club.tar!r1/x\\xffy.mat": b"P001",
        f"{shown}/club.tar!r1/two\\nlines.mat": b"P001",
        f"{shown}/club.zip!z\\nnew.mat": b"ok",
    }


def test_validate_text_prints_odd_names_escaped_one_line_per_finding(tmp_path: Path) -> None:
    expected = _odd_names(tmp_path)
    res = runner.invoke(app, ["validate", "--quiet", str(tmp_path)])
    assert res.exit_code == 1, res.output  # the illegal plays; nothing unreadable
    text = res.stdout_bytes.decode("utf-8")  # strict: no raw bytes of a name
    lines = text.splitlines()
    heads = [line for line in lines if ": error: " in line]
    # Each finding's head line starts with the whole display form of its file's name.
    assert sorted(h.split(":5:6: error: P001 ")[0] for h in heads) == sorted(
        label for label, want in expected.items() if want == b"P001"
    )
    assert lines[-1] == (
        "6 files, 6 matches: 4 errors, 0 warnings; 4 matches with errors, 0 with warnings only"
    )


def test_validate_json_is_valid_utf8_json_for_odd_names(tmp_path: Path) -> None:
    expected = _odd_names(tmp_path)
    res = runner.invoke(app, ["validate", "--format", "json", str(tmp_path)])
    assert res.exit_code == 1, res.output
    raw_lines = res.stdout_bytes.split(b"\n")
    assert raw_lines[-1] == b""
    docs = [json.loads(line.decode("utf-8")) for line in raw_lines[:-1]]
    assert {d["path"]: d["ok"] for d in docs} == {
        label: want == b"ok" for label, want in expected.items()
    }
    # The display form names the file the system holds.
    for d in docs:
        if "!" not in d["path"]:
            assert os.path.isfile(os.fsencode(path_from_display(d["path"])))


def test_import_stores_odd_names_and_goes_on(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    expected = _odd_names(folder)
    data = tmp_path / "data"
    res = runner.invoke(app, ["import", str(folder), "-d", str(data), "-w", "1"])
    assert res.exit_code == 0, res.output
    # Six match files and the two archives.
    assert res.stdout.startswith("8 inputs: 8 imported, 0 duplicate, 0 quarantined")
    ledger = runner.invoke(
        app,
        ["query", "-d", str(data), "-f", "json", "SELECT path, kind FROM imports ORDER BY path"],
    )
    assert ledger.exit_code == 0, ledger.output
    paths = {r["path"] for r in json.loads(ledger.stdout) if r["kind"] != "archive"}
    assert paths == set(expected)
    sql = "SELECT source_path, n_errors FROM matches"
    stored = runner.invoke(app, ["query", "-d", str(data), "-f", "json", sql])
    assert {r["source_path"]: r["n_errors"] for r in json.loads(stored.stdout)} == {
        label: int(want == b"P001") for label, want in expected.items()
    }
    sql = "SELECT DISTINCT source_path FROM findings WHERE code = 'P001'"
    stored = runner.invoke(app, ["query", "-d", str(data), "-f", "json", sql])
    assert {r["source_path"] for r in json.loads(stored.stdout)} == {
        label for label, want in expected.items() if want == b"P001"
    }


def test_parse_json_of_an_odd_name_is_valid_utf8(tmp_path: Path) -> None:
    target = os.path.join(os.fsencode(tmp_path), b"p\xe9\n.mat")
    with open(target, "wb") as f:
        f.write(GOOD.encode())
    res = runner.invoke(app, ["parse", "--format", "json", os.fsdecode(target)])
    assert res.exit_code == 0, res.output
    [line] = res.stdout_bytes.splitlines()
    assert json.loads(line.decode("utf-8"))["path"] == f"{tmp_path}/p\\xe9\\n.mat"


@pytest.mark.parametrize("command", ["validate", "parse", "import"])
def test_a_missing_odd_name_is_reported_escaped(command: str, tmp_path: Path) -> None:
    missing = os.fsdecode(os.path.join(os.fsencode(tmp_path), b"no\xff\nne.mat"))
    extra = ["-d", str(tmp_path / "data")] if command == "import" else []
    res = runner.invoke(app, [command, missing, *extra])
    assert res.exit_code == 2
    assert res.stderr_bytes.decode("utf-8").count("\n") == 1
    assert "no\\xff\\nne.mat" in res.stderr


def test_odd_dataset_and_output_names_in_messages_are_escaped(tmp_path: Path) -> None:
    odd = os.fsdecode(os.path.join(os.fsencode(tmp_path), b"d\xff\nx"))
    shown = f"{tmp_path}/d\\xff\\nx"
    with open(odd, "wb") as f:  # a file, where a folder is wanted
        f.write(b"x")
    for args, message in (
        (["query", "-d", odd, "SELECT 1"], f"bgparse: no dataset at {shown} ("),
        (["compact", "-d", odd], f"bgparse: no dataset at {shown} ("),
        (["generate", "-o", odd], f"bgparse: --out {shown}: not a folder"),
        (["convert", str(tmp_path), "--to", "sgf", "-o", odd], f"bgparse: --out {shown}: not"),
    ):
        if args[0] == "convert":
            (tmp_path / "m.mat").write_text(GOOD, encoding="utf-8")
        res = runner.invoke(app, args)
        assert res.exit_code == 2, args
        text = res.stderr_bytes.decode("utf-8")
        assert text.count("\n") == 1 and text.startswith(message), (args, text)


def _zip_with_a_false_utf8_name(target: Path) -> None:
    """A zip whose first member's name is marked UTF-8 but is not (b"r\\xff\\xfe.mat"), beside
    a correctly marked UTF-8 name and a plain ASCII one: zipfile refuses the whole archive."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("rQQ.mat", GOOD.replace("Alice", "Rae"))
        zf.writestr("é.mat", GOOD.replace("Alice", "Eve"))
        zf.writestr("plain.mat", GOOD.replace("Alice", "Pat"))
    raw = bytearray(buf.getvalue().replace(b"rQQ.mat", b"r\xff\xfe.mat"))
    local = raw.find(b"PK\x03\x04")
    central = raw.find(b"PK\x01\x02")
    raw[local + 7] |= 0x08
    raw[central + 9] |= 0x08
    target.write_bytes(bytes(raw))


def test_a_zip_name_falsely_marked_utf8_keeps_its_bytes_and_the_other_members(
    tmp_path: Path,
) -> None:
    _zip_with_a_false_utf8_name(tmp_path / "club.zip")
    with pytest.raises(UnicodeDecodeError):
        zipfile.ZipFile(tmp_path / "club.zip")
    res = runner.invoke(app, ["validate", "-f", "json", str(tmp_path / "club.zip")])
    assert res.exit_code == 0, res.output
    docs = [json.loads(line) for line in res.stdout_bytes.decode("utf-8").splitlines()]
    assert [(d["path"], d["players"][0]) for d in docs] == [
        (f"{tmp_path}/club.zip!r\\xff\\xfe.mat", "Rae"),
        (f"{tmp_path}/club.zip!é.mat", "Eve"),
        (f"{tmp_path}/club.zip!plain.mat", "Pat"),
    ]


def test_a_dataset_path_that_is_not_utf8_is_refused_in_one_line(tmp_path: Path) -> None:
    # Issue 11: Arrow takes file names as UTF-8 only; the import ended in a
    # UnicodeEncodeError traceback from the Parquet writer, and query in DuckDB's wording.
    good = tmp_path / "good.mat"
    good.write_text(GOOD, encoding="utf-8")
    odd = os.fsdecode(os.path.join(os.fsencode(tmp_path), b"d\xff\nx", b"data"))
    shown = f"{tmp_path}/d\\xff\\nx/data: a dataset's path must be valid UTF-8"
    res = runner.invoke(app, ["import", str(good), "-d", odd])
    assert res.exit_code == 2
    text = res.stderr_bytes.decode("utf-8")
    assert text.count("\n") == 1 and text.startswith(f"bgparse: {shown}"), text
    assert not os.path.exists(os.path.dirname(odd))  # nothing was made
    # A dataset made elsewhere and moved there is refused by the readers in the same words.
    made = tmp_path / "made"
    assert runner.invoke(app, ["import", str(good), "-d", str(made / "data")]).exit_code == 0
    os.rename(made, os.path.dirname(odd))
    for args in (["query", "-d", odd, "SELECT 1"], ["stats", "opening-rolls", "-d", odd]):
        res = runner.invoke(app, args)
        assert res.exit_code == 2, args
        text = res.stderr_bytes.decode("utf-8")
        assert text.count("\n") == 1 and text.startswith(f"bgparse: {shown}"), (args, text)


def test_dataset_messages_show_odd_names_escaped(tmp_path: Path) -> None:
    # The messages built in bgparse/store/dataset.py printed the raw name (a newline split them).
    good = tmp_path / "good.mat"
    good.write_text(GOOD, encoding="utf-8")
    folder = tmp_path / "d\nx"
    folder.mkdir()
    (folder / "_dataset.json").write_text("not json", encoding="utf-8")
    for args in (
        ["import", str(good), "-d", str(folder)],
        ["query", "-d", str(folder), "SELECT 1"],
    ):
        res = runner.invoke(app, args)
        assert res.exit_code == 2, args
        assert res.stderr.startswith(f"bgparse: {tmp_path}/d\\nx/_dataset.json is not a bgparse")
        assert res.stderr.count("\n") == 1
    (folder / "_dataset.json").unlink()
    os.close(os.open(os.path.join(os.fsencode(folder), b"n\xffte"), os.O_CREAT | os.O_WRONLY))
    res = runner.invoke(app, ["import", str(good), "-d", str(folder)])
    assert res.exit_code == 2
    assert res.stderr == (
        f"bgparse: {tmp_path}/d\\nx is not empty and not a bgparse dataset (it has 'n\\xffte'); "
        "choose another --data folder\n"
    )
    afile = tmp_path / "f\nile"
    afile.write_text("x", encoding="utf-8")
    res = runner.invoke(app, ["import", str(good), "-d", str(afile)])
    assert (res.exit_code, res.stderr) == (2, f"bgparse: {tmp_path}/f\\nile is not a folder\n")
    res = runner.invoke(app, ["import", str(good), "-d", str(afile / "sub")])
    assert res.exit_code == 2  # under a regular file: one line, no NotADirectoryError traceback
    assert res.stderr.startswith(f"bgparse: cannot create {tmp_path}/f\\nile/sub: Not a directory")
    assert res.stderr.count("\n") == 1
