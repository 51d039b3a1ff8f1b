"""Pictures and pages: the SVG board, charts and the HTML reports (imports nothing from the CLI)."""

from bgparse.render.board import Board, board_svg

__all__ = ["Board", "board_svg"]
