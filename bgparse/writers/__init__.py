"""Writers: verified matches back to text, as GNU Backgammon's `.mat` export (or another
producer's dialect, `MatStyle`) and as GNU Backgammon's SGF."""

from bgparse.writers.mat import MatStyle, write_mat
from bgparse.writers.sgf import write_sgf

__all__ = ["MatStyle", "write_mat", "write_sgf"]
