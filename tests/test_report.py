"""Table writers: raw floats in, formatted text out; missing values empty; LaTeX escaped."""

import numpy as np
import pandas as pd

from simstudy.report import to_latex, to_markdown, write_table


def _frame():
    return pd.DataFrame({"cell": ["iris/nmc~1nn/5x2", "a_b"], "p": [0.0123456, np.nan],
                         "k": pd.array([3, None], dtype="Int64")})


def test_markdown():
    md = to_markdown(_frame()).splitlines()
    assert md[0] == "| cell | p | k |" and md[1] == "|---|---|---|"
    assert md[2] == "| iris/nmc~1nn/5x2 | 0.012 | 3 |"
    assert md[3] == "| a_b |  |  |"


def test_latex_escapes():
    tex = to_latex(_frame(), caption="50% of x_y")
    assert r"iris/nmc\textasciitilde{}1nn/5x2" in tex and r"a\_b" in tex
    assert r"\caption{50\% of x\_y}" in tex and tex.count(r"\\") == 3


def test_write_table_keeps_raw_floats_in_csv(tmp_path):
    paths = write_table(_frame(), tmp_path, "t")
    assert [p.name for p in paths] == ["t.md", "t.csv", "t.tex"]
    back = pd.read_csv(tmp_path / "t.csv")
    assert back["p"].iloc[0] == 0.0123456
