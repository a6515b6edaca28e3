"""Docs describe what is: no numbered history (session, wave or issue numbers) in the code, the
docs, the tests or the committed result pages.  History lives in git."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HISTORY = re.compile(r"\b(sessions?|waves?|issues?)\s+#?\d+", re.IGNORECASE)
PLACES = [("simstudy", "*.py"), ("studies", "*.py"), ("tests", "*.py"), ("docs", "*.md"),
          ("figures", "*.md"), ("figures", "*.html"), ("scripts", "*.py"), ("examples", "*.py")]


def _files():
    yield ROOT / "README.md"
    for top, pattern in PLACES:
        yield from sorted((ROOT / top).rglob(pattern))


def test_the_pattern_finds_what_it_should():
    assert HISTORY.search("found in session 12: a bug")
    assert HISTORY.search("(issue 18)") and HISTORY.search("Sessions 12–13")
    assert HISTORY.search("wave 1's code") and HISTORY.search("issue #3")
    assert not HISTORY.search("waveform 5000") and not HISTORY.search("the issue is 3 cells")


@pytest.mark.parametrize("path", [p for p in _files() if p.name != "test_no_history.py"],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_no_numbered_history(path):
    hits = [f"{i}: {line.strip()[:100]}"
            for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if HISTORY.search(line)]
    assert not hits, f"{path.relative_to(ROOT)} names history by number:\n" + "\n".join(hits)
