"""Items left open in the rules: an XGID with a score in money play, a cube too large for the
dataset, and a single-game `.gam` file."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.rules.ids import IdError, decode_xgid

runner = CliRunner()

_BOARD = "XGID=-b----E-C---eE---c-e----B-"


@pytest.mark.parametrize(
    ("scores", "field"),
    [("3:0", "score X 3"), ("0:2", "score O 2"), ("4:1", "score X 4")],
)
def test_show_refuses_an_xgid_with_a_score_in_money_play(scores: str, field: str) -> None:
    text = f"{_BOARD}:0:0:1:00:{scores}:0:0:10"
    result = runner.invoke(app, ["show", text])
    assert result.exit_code == 2
    assert result.output == (
        f"bgparse: XGID {text!r}: {field} in money play (match length 0), "
        "where the scores must be 0\n"
    )
    with pytest.raises(IdError, match=field):
        decode_xgid(text)


def test_an_xgid_of_money_play_at_0_0_and_of_a_match_with_a_score_are_read() -> None:
    assert decode_xgid(f"{_BOARD}:0:0:1:00:0:0:0:0:10").match_length == 0
    state = decode_xgid(f"{_BOARD}:0:0:1:00:3:1:0:7:10")
    assert (state.score_x, state.score_o, state.match_length) == (3, 1, 7)
