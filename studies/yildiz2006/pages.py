"""Yıldız & Alpaydın (2006): the results page, written from the committed tables
(:mod:`simstudy.report.prose`), with the claims about single runs when the stored runs are
at hand."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from simstudy.report.prose import Section, band_checks, claims_markdown, read_table, strict_half
from simstudy.report.style import runs_range

from .claims import _paper_t3, claims_runs, claims_tables, run_facts
from .grid import ALPHA, DATASETS, NAMES, PAPER_METHODS, RUNS


def _t1_summary(t1: pd.DataFrame) -> list[str]:
    ok = t1[t1["runs"] > 0]
    if ok.empty:
        return ["No trials stored."]
    lines = []
    for alg in NAMES:
        a = ok[ok["learner"] == alg]
        w = int(a["within"].astype(bool).sum())
        yard = "0.5 points" if alg == "MAX" else "2 paper sd"
        lines.append(f"- {alg}: within {yard} of the paper on {w} of {len(a)} sets; "
                     f"median |ours − paper| {a['diff'].abs().median():.2f} points")
    off = ok[(ok["learner"] != "MAX") & ~ok["within"].astype(bool)]
    if len(off):
        lines.append("- off by more than 2 paper sd: " + "; ".join(
            f"{r['dataset']} {r['learner']} {r['mean']:.2f} vs {r['paper_mean']:.2f} "
            f"(z {r['z']:+.1f})" for _, r in off.sort_values("z", key=abs, ascending=False)
            .iterrows()))
    return lines


def _encoding_check(out: Path) -> pd.DataFrame | None:
    """The committed encoding check (``table1_encoding_check.csv``, written with its page
    ``.md`` by scripts/yildiz2006_encodings.py), or None."""
    p = Path(out) / "table1_encoding_check.csv"
    if not p.is_file():
        return None
    df = pd.read_csv(p, dtype=str, keep_default_na=False)
    for c in ("paper", "paper_sd", "z-all", "hamming", "codes"):
        df[c] = [f"{float(v):.2f}" if v else "" for v in df[c]]
    return df.set_index(["dataset", "learner"])


def _nmc_pilot(out: Path) -> str:
    """What the NMC encoding pilot (figures/pilots/yildiz_nmc_encodings.csv) found."""
    p = Path(out).parent / "pilots" / "yildiz_nmc_encodings.csv"
    if not p.is_file():
        return ""
    df = pd.read_csv(p).set_index("dataset")
    enc = [c for c in df.columns if c not in ("paper_NMC", "paper_NMC_sd", "paper_MAX", "MAX",
                                              "closest", "closest_z")]
    z = df[enc].sub(df["paper_NMC"], axis=0).div(df["paper_NMC_sd"], axis=0)
    best = z.abs().idxmin(axis=1)
    near = [f"{d} ('{best[d]}', z {z.loc[d, best[d]]:+.1f})" for d in df.index
            if abs(z.loc[d, best[d]]) <= 2]
    far = [d for d in df.index if abs(z.loc[d, best[d]]) > 2]
    return (f"; the pilot's {len(enc)} encodings (figures/pilots/yildiz_nmc_encodings.md) come "
            f"within 2 paper sds on {', '.join(near) or 'none'}"
            + (f", not on {', '.join(far)}: unexplained there" if far else ""))


def _enc(e: pd.DataFrame | None, d: str, a: str, col: str) -> str:
    if e is None or (d, a) not in e.index or not e.loc[(d, a), col]:
        return "?"
    return e.loc[(d, a), col]


def _enc_range(e: pd.DataFrame | None, d: str, a: str) -> str:
    if e is None or (d, a) not in e.index:
        return "?"
    v = [float(x) for x in (e.loc[(d, a), c] for c in ("z-all", "hamming", "codes")) if x]
    return f"{min(v):.1f}-{max(v):.1f}"


# Table 1 gaps and their explanations (checked by scripts/yildiz2006_encodings.py, whose
# committed table1_encoding_check.md gives the numbers at 10 runs)
EXPLAINED: tuple[tuple[Callable[[pd.DataFrame | None], str], tuple[tuple[str, str], ...]], ...] = (
    (lambda e: "1-NN on nominal data: the paper's numbers fit Euclidean distance on 0/1 "
     "indicators (Hamming), ours z-scores the indicators (the study's choice); with 0/1 "
     f"indicators 1-NN gives car {_enc(e, 'car', 'NN', 'hamming')}, nursery "
     f"{_enc(e, 'nursery', 'NN', 'hamming')}, tictactoe {_enc(e, 'tictactoe', 'NN', 'hamming')} "
     "at 10 runs (`table1_encoding_check.md`)",
     (("car", "NN"), ("nursery", "NN"), ("tictactoe", "NN"), ("cylinder", "NN"))),
    (lambda e: "balance: the paper's 1-NN and LGC fit its four 1..5 attributes read as nominal "
     f"(1-NN {_enc(e, 'balance', 'NN', 'hamming')}, LGC {_enc(e, 'balance', 'LGC', 'hamming')} "
     "at 10 runs: a linear model on 1-of-5 inputs can represent the rule a1·a2 vs a3·a4); we "
     "read them as numbers", (("balance", "NN"), ("balance", "LGC"))),
    (lambda e: "monks: the paper's NMC and 1-NN fit the attributes as integer codes "
     f"({_enc(e, 'monks', 'NMC', 'codes')} and {_enc(e, 'monks', 'NN', 'codes')} at 10 runs); "
     "the bundled file declares them categorical (one-hot)", (("monks", "NMC"), ("monks", "NN"))),
    (lambda e: "NMC on nursery, car and balance: the paper's values are near or above MAX; the "
     f"three encodings of the check give nursery {_enc_range(e, 'nursery', 'NMC')}, car "
     f"{_enc_range(e, 'car', 'NMC')}, balance {_enc_range(e, 'balance', 'NMC')}",
     (("nursery", "NMC"), ("car", "NMC"), ("balance", "NMC"))),
    (lambda e: "LGC: ours is L2-regularised (1e-2) logistic regression fitted by L-BFGS to "
     "convergence; the paper uses gradient descent without giving its settings",
     (("pendigits", "LGC"), ("segment", "LGC"), ("monks", "LGC"))),
    (lambda e: "horse: the paper's LGC is far below its other learners; the UCI file's "
     "lesion-type attributes (which encode the surgical lesion) are not in the bundled copy -- "
     "a possible, unverified cause", (("horse", "LGC"),)),
    (lambda e: "C4.5: ours is a binary entropy tree on one-hot inputs with reduced-error pruning "
     "on a 20 % hold-out, not Quinlan's C4.5 (multiway nominal splits, gain ratio, its own "
     "pruning): lower error on the all-nominal sets",
     (("nursery", "C4.5"), ("car", "C4.5"), ("tictactoe", "C4.5"), ("balance", "C4.5"))),
)


def _explanations(t1: pd.DataFrame, enc: pd.DataFrame | None, pilot: str = "") -> list[str]:
    """The bullets of EXPLAINED with our numbers; ``pilot``: what the NMC encoding pilot
    found, after the NMC bullet."""
    ok = t1[t1["runs"] > 0].set_index(["dataset", "learner"])
    lines = []
    for text, keys in EXPLAINED:
        have = [k for k in keys if k in ok.index]
        if not have:
            continue
        nums = "; ".join(f"{d} {a} ours {ok.loc[(d, a), 'mean']:.2f} vs paper "
                         f"{ok.loc[(d, a), 'paper_mean']:.2f} (z {ok.loc[(d, a), 'z']:+.1f})"
                         for d, a in have)
        more = pilot if ("nursery", "NMC") in keys else ""
        lines.append(f"- {text(enc)}{more}.  {nums}")
    return lines


def page(out: Path, result=None, graphs: dict | None = None) -> list[Section]:
    """figures/multitest/RESULTS.md from ``table1.csv``, ``table2.csv``, ``table3.csv``.

    The claims about single runs (Anova's data sets, Newman–Keuls' failures by data set, the
    pendigits ordering, the graphs of Figs. 3–4) need the stored runs: with ``result`` they
    are written, without it (the committed tables alone) the committed section is kept."""
    out = Path(out)
    t1, t2, t3 = (read_table(out, s) for s in ("table1", "table2", "table3"))
    alpha = ALPHA
    runs = t2.loc[t2["runs"] > 0, "runs"]
    rline = ("Runs per data set: none stored." if runs.empty else
             f"Runs per data set and method: {runs_range(runs, ' to ')} (the paper: {RUNS}); "
             f"data sets: {t2.loc[t2['runs'] > 0, 'dataset'].nunique()} of {len(DATASETS)}.")
    pen = t1[(t1["dataset"] == "pendigits") & (t1["learner"] == "MAX")]
    pen_txt = (f" (its MAX error is {pen['mean'].iloc[0]:.2f} % instead of "
               f"{pen['paper_mean'].iloc[0]:.2f} %)" if len(pen) and pen["runs"].iloc[0] else "")
    t2p = t2[t2["method"].isin(PAPER_METHODS) & (t2["runs"] > 0)]
    same = ", ".join(f"{m} {int(t2p.loc[t2p['method'] == m, 'same_first'].astype(bool).sum())}"
                     f"/{int((t2p['method'] == m).sum())}"
                     for m in ("TestFirst", "Newman-Keuls", "MultiTest"))
    p3 = _paper_t3()
    inside = band_checks(
        p3.set_index(["method", "best_algorithm"]).reindex(
            list(zip(t3["method"], t3["best"], strict=True)))["pct"].to_numpy() / 100,
        t3["pct"] / 100, t3["total"], confidence=0.99, slack=5e-5)
    summary = [
        "# multitest: Yıldız & Alpaydın (2006) Tables 1–3, Figs. 3–4", "",
        "Five learners in prior order MAX < NMC < LGC < C4.5 < NN (1 … 5), 5×2 cv on "
        f"unstratified random halves, overall alpha {alpha}.  Every method reads the same "
        "stored 5 × 10 fold errors; Tables 2–3 count the stored (best, order) rows.", "",
        rline, "",
        "Data: the paper's 30 UCI sets (see `table1.csv`, column note).  **pendigits is all "
        f"10,992 rows of the shuffled UCI file, not the paper's 7,494-row training file**"
        f"{pen_txt}; optdigits is the training file (the first 3823 rows).", "",
        "## Table 1 (mean ± sd of the fold error rates, %)", "", *_t1_summary(t1), "",
        "Where ours differs and why:", "", *_explanations(t1, _encoding_check(out), _nmc_pilot(out)), "",
        "## Table 2", "", f"Most chosen best equal to the paper's: {same} data sets.", "",
        "## Table 3", "",
        "Share of all runs choosing each best (or none), the paper's inside our 99 % Wilson "
        f"interval, of the paper's four methods' {inside[2]} cells: {strict_half(*inside)} "
        "(*strict*: the paper's percentage as printed, to 0.01 points, inside our interval; "
        "*half-digit*: within 0.005 points, half its last digit).",
    ]
    claims = ["## The paper's claims", "",
              "Each claim is checked by the rule it states, on our numbers and on the paper's "
              "own tables.", "", claims_markdown(claims_tables(t1, t2, t3))]
    runs_claims = (None if result is None else
                   "From the stored runs (the committed tables do not keep them):\n\n"
                   + claims_markdown(claims_runs(run_facts(result, graphs or {}))))
    notes = ["Choices: TestFirst's Bonferroni family is its K − 1 = 4 comparisons "
             "(`TestFirst (alpha/10)` is the variant at MultiTest's level); Newman–Keuls at "
             "alpha uncorrected with df K(L − 1) = 45; ties of mean error go to the simpler "
             "learner; an undefined t (zero variance) has p = 1.  Newman–Keuls' best: the "
             "simplest learner of the underline under the first, unless an overlapping "
             "underline holds a simpler learner (then none).", "",
             "Files: `table1` (long, with diff, z = diff / paper sd, within), "
             "`table1_paper_layout`, `table2`, `table2_paper_layout`, `table3`, "
             "`table3_paper_layout` (md/csv/tex); `figure3_multitest_graph.png`, "
             "`figure4_error_distributions.png` (and pdf)."]
    return [("summary", "\n".join(summary)), ("claims", "\n".join(claims)),
            ("claims-runs", runs_claims), ("notes", "\n".join(notes))]
