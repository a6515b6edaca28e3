"""Wang, Li & Li (2016): the claims of §3.1 and §3.2, each checked by a stated rule on our
committed tables and on the paper's own (counts compare numbers at 3 dp, as printed)."""

from __future__ import annotations

import pandas as pd

from simstudy.report.prose import Claim

from .grid import BLOCK_PREFIX, SIM_COMPARISONS, TESTS, TYPE1, TYPE2


def wide(long: pd.DataFrame, index: list[str], value: str) -> pd.DataFrame:
    """One row per ``index`` with a column per test holding ``value`` (only complete rows)."""
    w = long.pivot_table(index=index, columns="test", values=value, sort=False)
    return w.reindex(columns=list(TESTS)).dropna()


def _rounded(w: pd.DataFrame) -> pd.DataFrame:
    # compare at the paper's printed precision, so 'equal' means what it means in the paper
    return w.round(3)


def count_lower(w: pd.DataFrame, a: str, b: str, strict: bool = True) -> int:
    """Rows where test ``a`` rejects less than test ``b`` (at 3 dp; ``strict=False``: ≤)."""
    w = _rounded(w)
    return int((w[a] < w[b]).sum() if strict else (w[a] <= w[b]).sum())


def count_between(w: pd.DataFrame) -> int:
    """Rows where tB3x2cv lies between F5x2cv and FB5x2cv (inclusive, at 3 dp)."""
    w = _rounded(w)
    lo = w[["F5x2cv", "FB5x2cv"]].min(axis=1)
    hi = w[["F5x2cv", "FB5x2cv"]].max(axis=1)
    return int(((w["tB3x2cv"] >= lo) & (w["tB3x2cv"] <= hi)).sum())


def count_lowest(w: pd.DataFrame, test: str) -> int:
    """Rows where ``test`` rejects strictly less than both other tests (at 3 dp)."""
    w = _rounded(w)
    others = [t for t in TESTS if t != test]
    return int(((w[test] < w[others[0]]) & (w[test] < w[others[1]])).sum())


def _same_side(ours: int, paper_says: int, total: int) -> bool:
    """A 'k of n' claim is reproduced when ours is on the same side of n/2 as the paper's k."""
    return (ours > total / 2) == (paper_says > total / 2)


def gaussian_claims(t3: pd.DataFrame) -> list[Claim]:
    """§3.1's claims, by a stated rule on ours and on the paper's own Table 3."""
    ok = t3[t3["status"] == "ok"]
    claims: list[Claim] = []
    for comp in SIM_COMPARISONS:
        wo = wide(ok[ok["comparison"] == comp], ["case"], "ours")
        wp = wide(t3[t3["comparison"] == comp], ["case"], "paper")
        n = len(wo)
        text = (f"{comp}: FB5x2cv rejects less than (or as often as) F5x2cv on the poor "
                "partition in most of the 8 cases")
        rule = "FB5x2cv ≤ F5x2cv (at 3 dp) in more than half of the cases run"
        if n == 0:
            claims.append(Claim(text, rule, "no complete case run", None, table="Table 3"))
            continue
        le, lt = count_lower(wo, "FB5x2cv", "F5x2cv", False), count_lower(wo, "FB5x2cv", "F5x2cv")
        ple, plt = (count_lower(wp, "FB5x2cv", "F5x2cv", False),
                    count_lower(wp, "FB5x2cv", "F5x2cv"))
        claims.append(Claim(text, rule, f"≤ in {le}/{n} cases (strictly < in {lt})", le > n / 2,
                            f"≤ in {ple}/{len(wp)} (strictly < in {plt})", ple > len(wp) / 2,
                            table="Table 3"))
    wo = wide(ok, ["comparison", "case"], "ours")
    wp = wide(t3, ["comparison", "case"], "paper")
    text = "the blocked 3×2 cv t test lies between F5x2cv and FB5x2cv in most cases"
    rule = "tB3x2cv between F5x2cv and FB5x2cv (inclusive, at 3 dp) in more than half of the cases"
    if len(wo):
        b, pb = count_between(wo), count_between(wp)
        per = ", ".join(f"{c} {count_between(wo.loc[[c]])}/{len(wo.loc[[c]])}"
                        for c in SIM_COMPARISONS if c in wo.index.get_level_values(0))
        claims.append(Claim(text, rule, f"{b}/{len(wo)} ({per})", b > len(wo) / 2,
                            f"{pb}/{len(wp)}", pb > len(wp) / 2, table="Table 3"))
    else:
        claims.append(Claim(text, rule, "no complete case run", None, table="Table 3"))
    c3 = ok[(ok["case"] == 3) & (ok["comparison"] == "RT vs LS")].set_index("test")
    p3 = t3[(t3["case"] == 3) & (t3["comparison"] == "RT vs LS")].set_index("test")["paper"]
    if {"F5x2cv", "FB5x2cv"} <= set(c3.index):
        f, fb = c3.loc["F5x2cv", "ours"], c3.loc["FB5x2cv", "ours"]
        claims.append(Claim(
            "case (3), RT vs LS: F5x2cv rejects more often than alpha, FB5x2cv less",
            "F5x2cv > 0.05 and FB5x2cv < 0.05 (the reject proportions)",
            f"F5x2cv {f:.3f} [{c3.loc['F5x2cv', 'ci95_low']:.3f}, "
            f"{c3.loc['F5x2cv', 'ci95_high']:.3f}], FB5x2cv {fb:.3f} "
            f"[{c3.loc['FB5x2cv', 'ci95_low']:.3f}, {c3.loc['FB5x2cv', 'ci95_high']:.3f}] (95 % "
            f"Wilson); mean errors RT {c3['err_a'].mean():.3f}, LS {c3['err_b'].mean():.3f}",
            bool(f > 0.05 and fb < 0.05),
            f"F5x2cv {p3['F5x2cv']:.3f}, FB5x2cv {p3['FB5x2cv']:.3f}",
            bool(p3["F5x2cv"] > 0.05 and p3["FB5x2cv"] < 0.05), table="Table 3"))
    return claims


SAME_SIDE = "our count on the same side of n/2 as the paper's k (n: the cases run)"


def real_claims(t4: pd.DataFrame, t5: pd.DataFrame) -> list[Claim]:
    """§3.2's claims (text after Table 5), by a stated rule on ours and on the paper's own
    Tables 4–5 (the text's count k against the table's count, the same way)."""
    claims: list[Claim] = []

    def both(t: pd.DataFrame, index: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
        return (wide(t[t["status"] == "ok"], index, "ours"), wide(t, index, "paper"))

    o4, p4 = both(t4, ["block", "dataset", "hidden"])
    n4 = len(o4)
    text = ("Table 4: 'in 23 of 30 cases' FB5x2cv has lower type I and 'type II' numbers than "
            "F5x2cv")
    if n4:
        le, lt = count_lower(o4, "FB5x2cv", "F5x2cv", False), count_lower(o4, "FB5x2cv", "F5x2cv")
        ple, plt = count_lower(p4, "FB5x2cv", "F5x2cv", False), count_lower(p4, "FB5x2cv", "F5x2cv")
        parts = []
        for block in BLOCK_PREFIX:
            if block in o4.index.get_level_values(0):
                ob = o4.loc[[block]]
                parts.append(f"{block}: {count_lower(ob, 'FB5x2cv', 'F5x2cv', False)}/{len(ob)}")
        claims.append(Claim(
            text, "FB5x2cv ≤ F5x2cv (at 3 dp, ties counted, as the paper's 23 needs); "
            + SAME_SIDE, f"≤ in {le}/{n4} ({'; '.join(parts)}), strictly < in {lt}",
            _same_side(le, 23, 30) if n4 == 30 else le > n4 / 2,
            f"≤ in {ple}/30, strictly < in {plt}", _same_side(ple, 23, 30), table="Table 4",
            note="In the right half our numbers are reject probabilities: if LP and MLP really "
                 "differ, a lower number there is lower power, not a lower error."))
    else:
        claims.append(Claim(text, SAME_SIDE, "no complete Table 4 row run", None,
                            table="Table 4"))
    for block, what, said in ((TYPE1, "type I error", 10),
                              (TYPE2, "'type II' (LP vs MLP reject)", 4)):
        ob = o4.loc[[block]] if n4 and block in o4.index.get_level_values(0) else o4.iloc[:0]
        pb = p4.loc[[block]]
        if len(ob):
            k, pk = count_lower(ob, "tB3x2cv", "FB5x2cv"), count_lower(pb, "tB3x2cv", "FB5x2cv")
            claims.append(Claim(
                f"Table 4: tB3x2cv has lower {what} than FB5x2cv in {said} of 15 cases",
                "tB3x2cv < FB5x2cv (at 3 dp); " + SAME_SIDE, f"{k}/{len(ob)}",
                _same_side(k, said, 15) if len(ob) == 15 else None, f"{pk}/15",
                _same_side(pk, said, 15), table="Table 4"))
    o5, p5 = both(t5, ["comparison", "dataset"])
    if len(o5):
        k, pk = count_lower(o5, "FB5x2cv", "F5x2cv"), count_lower(p5, "FB5x2cv", "F5x2cv")
        claims.append(Claim(
            "Table 5: FB5x2cv rejects less than F5x2cv in 15 of 18 cases",
            "FB5x2cv < F5x2cv (at 3 dp); " + SAME_SIDE,
            f"{k}/{len(o5)} (≤ in {count_lower(o5, 'FB5x2cv', 'F5x2cv', False)})",
            _same_side(k, 15, 18) if len(o5) == 18 else k > len(o5) / 2, f"{pk}/18",
            _same_side(pk, 15, 18), table="Table 5"))
        svm = [c for c in ("SVM vs RF", "SVM vs LDA") if c in o5.index.get_level_values(0)]
        if svm:
            os_, ps = o5.loc[svm], p5.loc[["SVM vs RF", "SVM vs LDA"]]
            k, pk = count_lower(os_, "FB5x2cv", "tB3x2cv"), count_lower(ps, "FB5x2cv", "tB3x2cv")
            claims.append(Claim(
                "Table 5, SVM vs RF and SVM vs LDA: FB5x2cv rejects less than tB3x2cv in 9 of "
                "12 cases", "FB5x2cv < tB3x2cv (at 3 dp); " + SAME_SIDE, f"{k}/{len(os_)}",
                _same_side(k, 9, 12) if len(os_) == 12 else k > len(os_) / 2, f"{pk}/12",
                _same_side(pk, 9, 12), table="Table 5"))
        if "LDA vs RF" in o5.index.get_level_values(0):
            ol, pl = o5.loc[["LDA vs RF"]], p5.loc[["LDA vs RF"]]
            k, pk = count_lowest(ol, "tB3x2cv"), count_lowest(pl, "tB3x2cv")
            claims.append(Claim(
                "Table 5, LDA vs RF: tB3x2cv rejects least of the three tests in 5 of 6 cases",
                "tB3x2cv strictly below both others (at 3 dp); " + SAME_SIDE, f"{k}/{len(ol)}",
                _same_side(k, 5, 6) if len(ol) == 6 else k > len(ol) / 2, f"{pk}/6",
                _same_side(pk, 5, 6), table="Table 5"))
    return claims
