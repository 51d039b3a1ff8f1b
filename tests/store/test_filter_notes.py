"""A filter that leaves out what its user may not expect says so, one line on stderr (issue
31): a --player name that matches nobody, with the stored names near it, and the undated
matches --since/--until leave out. The result stands: exit 0."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.ingest import ImportOptions, run_import
from bgparse.questions.filter_notes import folded, near_names

from .conftest import hand_matches, write_inputs
from .factories import fake_verify, game, match, roll

runner = CliRunner()


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hand-made matches (M3, Alice-Dave, undated) and one of Kévin UNGER's, dated."""
    base = tmp_path_factory.mktemp("notes")
    specs = hand_matches()
    specs["m5.json"] = match(
        game(roll(0, "52", "13/8 13/11"), roll(1, "31", "8/5 6/5"), winner=0),
        players=("Kévin UNGER", "Erin"),
        length=5,
        date="2021-05-05",
    )
    run_import([write_inputs(base / "in", specs)], base / "data", ImportOptions(workers=1),
               verify=fake_verify)  # fmt: skip
    return base / "data"


def stats(data: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["stats", *args, "--data", str(data), "-f", "csv"])
    return result.exit_code, result.stdout, result.stderr


HEADER = "date,player,opponent,length,score,opponent_score,result,games,errors,warnings,event,"


def test_a_name_without_its_accent_is_told_the_stored_name(data: Path) -> None:
    code, out, err = stats(data, "matches", "--player", "Kevin UNGER")
    assert (code, out.startswith(HEADER), out.count("\n")) == (0, True, 1)
    assert err == (
        'bgparse: note: --player "Kevin UNGER" matches no player of the dataset; '
        'near names: "Kévin UNGER"\n'
    )


@pytest.mark.parametrize(
    ("typed", "near"),
    [
        ("kevin   unger", '"Kévin UNGER"'),  # case and spacing
        ("Unger", '"Kévin UNGER"'),  # a last name alone
        ("Kevin Ungar", '"Kévin UNGER"'),  # a letter off
        ("Alise", '"Alice"'),
        ("Dav", '"Dave"'),
    ],
)
def test_near_names_forgive_accents_case_spacing_and_a_typo(
    data: Path, typed: str, near: str
) -> None:
    code, _, err = stats(data, "player", "--player", typed)
    assert code == 0
    assert err == (
        f'bgparse: note: --player "{typed}" matches no player of the dataset; near names: {near}\n'
    )


def test_a_name_near_nothing_points_at_the_player_list(data: Path) -> None:
    code, out, err = stats(data, "head-to-head", "--player", "Zbigniew")
    assert (code, out.count("\n")) == (0, 1)
    assert err == (
        'bgparse: note: --player "Zbigniew" matches no player of the dataset '
        "('bgparse stats player' lists them)\n"
    )


def test_a_stored_name_in_any_case_and_spacing_has_no_note(data: Path) -> None:
    code, out, err = stats(data, "matches", "--player", "  kÉVIN   unger ")
    assert (code, err) == (0, "")
    assert out.count("\n") == 2 and ",Kévin UNGER,Erin,5," in out


def test_dates_say_how_many_undated_matches_they_left_out(data: Path) -> None:
    code, out, err = stats(data, "matches", "--since", "2019-01-01")
    assert code == 0
    assert err == "bgparse: note: --since left out 1 undated match (of 4 matches)\n"
    assert out.count("\n") == 1 + 2 * 3  # M1, M2, M5 from both sides; not M3
    _, _, err = stats(
        data, "dice", "--since", "2019-01-01", "--until", "2030-01-01", "--length", "0"
    )
    assert err == "bgparse: note: --since/--until left out 1 undated match (of 1 match)\n"
    # Nothing undated among the matches the other filters keep: no note.
    assert stats(data, "dice", "--until", "2030-01-01", "--length", "5")[2] == ""
    assert stats(data, "dice", "--length", "0")[2] == ""


def test_the_report_says_the_same_on_stderr_and_on_its_page(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    args = ["report", "--data", str(data), "--out", str(out)]
    result = runner.invoke(app, [*args, "--since", "2019-01-01", "--player", "Kevin Unger"])
    assert result.exit_code == 0
    # No stored match is the player's, so none undated either: one note.
    assert result.stderr == (
        'bgparse: note: --player "Kevin Unger" matches no player of the dataset; '
        'near names: "Kévin UNGER"\n'
    )
    page = out.read_text(encoding="utf-8")
    assert "Note: --player &#34;Kevin Unger&#34; matches no player of the dataset" in page
    result = runner.invoke(app, [*args, "--until", "2020-12-31"])
    assert result.stderr == "bgparse: note: --until left out 1 undated match (of 4 matches)\n"
    page = out.read_text(encoding="utf-8")
    summary = page[page.index('<section id="summary">') :].split("</section>")[0]
    assert '<p class="meta note">Note: --until left out 1 undated match (of 4 matches).</p>' in (
        summary
    )


def test_folded_and_near_names() -> None:
    assert folded("Kévin  UNGER") == "kevinunger"
    assert folded("O'Brien, Seán") == "obriensean"
    names = ["Kévin UNGER", "Kevin Ungerer", "Alice", "Bob"]
    assert near_names("kevin unger", names) == ["Kévin UNGER", "Kevin Ungerer"]
    assert near_names("Zed", names) == []


def test_the_player_statistics_own_name_option_is_noted_too(data: Path) -> None:
    code, out, err = stats(data, "player", "--name", "Kevin UNGER")
    assert (code, out.count("\n")) == (0, 1)
    assert err == (
        'bgparse: note: --name "Kevin UNGER" matches no player of the dataset; '
        'near names: "Kévin UNGER"\n'
    )
    code, out, err = stats(data, "player", "--name", "kévin unger", "--length", "5")
    assert (code, err, out.count("\n")) == (0, "", 2)
