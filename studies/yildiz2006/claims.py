"""Yıldız & Alpaydın (2006): the paper's claims, each checked by a stated rule on our
committed Tables 1-3 (and, for the claims about single runs, on the stored runs) and on the
paper's own tables."""

from __future__ import annotations

from collections import Counter

import pandas as pd

from simstudy.report.prose import Claim, fmt_list

from .grid import DATASETS, NAMES, NONE, REF
from .tables import choices

#: the 14 data sets §4.4 names where Newman–Keuls and MultiTest "in most of the cases"
#: select the same best; "on the other data sets ... different"
SAME_SETS = ("balance", "breast", "car", "dermatology", "flare", "haberman", "hepatitis",
             "mushroom", "nursery", "pendigits", "tictactoe", "wave", "wine", "zoo")


T1, T2, T3 = "Table 1", "Table 2", "Table 3"


def _paper_t3() -> pd.DataFrame:
    return pd.read_csv(REF / "yildiz2006_table3.csv")


def _paper_t2() -> pd.DataFrame:
    p = pd.read_csv(REF / "yildiz2006_table2.csv", keep_default_na=False)
    p["dataset"] = p["dataset"].replace({"Z00": "zoo"})
    return p


def _paper_t1() -> pd.DataFrame:
    p = pd.read_csv(REF / "yildiz2006_table1.csv")
    p["dataset"] = p["dataset"].replace({"Z00": "zoo"})
    return p


def _counts(t3: pd.DataFrame, method: str, count: str = "count") -> dict[str, int]:
    g = t3[t3["method"] == method]
    return {b: (0 if pd.isna(c) else int(c)) for b, c in zip(g["best"], g[count], strict=True)}


def _mean_rank(c: dict[str, int]) -> float:
    """Mean prior rank (1 = MAX ... 5 = NN) of the chosen best over runs with a best."""
    n = sum(c.get(a, 0) for a in NAMES)
    return sum((k + 1) * c.get(a, 0) for k, a in enumerate(NAMES)) / n if n else float("nan")


def _firsts(t2: pd.DataFrame, method: str, paper: bool = False) -> dict[str, str]:
    col = "paper_first" if paper else "first"
    g = t2[(t2["method"] == method) & ((t2["runs"] > 0) | paper)]
    return {d: f for d, f in zip(g["dataset"], g[col], strict=True) if isinstance(f, str) and f}


def _found_top(first, second) -> str | None:
    """The most frequent best among runs that found one (Table 2's (1), else its (2))."""
    for lab in (first, second):
        if isinstance(lab, str) and lab and lab != NONE:
            return lab
    return None


def _not_found_gaps(t2: pd.DataFrame, method: str, points: float = 30.0) -> str:
    """Data sets where our share of 'no best' differs from the paper's by > ``points``."""
    def nf(a, pa, b, pb):
        return pa if a == NONE else (pb if b == NONE else 0.0)
    t = t2[(t2["method"] == method) & (t2["runs"] > 0)]
    out = []
    for _, r in t.iterrows():
        o = nf(r["first"], r["first_pct"], r["second"], r["second_pct"])
        p = nf(r["paper_first"], r["paper_first_pct"], r["paper_second"], r["paper_second_pct"])
        if abs(o - p) > points:
            out.append(f"{r['dataset']} {o:.0f} % vs {p:.0f} % (ours picks {r['first']})"
                       if o < p else f"{r['dataset']} {o:.0f} % vs {p:.0f} %")
    return "; ".join(out) or "none"


def claims_tables(t1: pd.DataFrame, t2: pd.DataFrame, t3: pd.DataFrame) -> list[Claim]:
    """The claims the committed Tables 1–3 can check, ours beside the paper's own tables."""
    out: list[Claim] = []
    p3 = _paper_t3().rename(columns={"best_algorithm": "best"})
    ours_mt, paper_mt = _counts(t3, "MultiTest"), _counts(p3, "MultiTest")
    n = sum(ours_mt.values())
    out.append(Claim("MultiTest always finds a best (Table 3: not found 0)",
                     "not found in 0 runs", f"not found in {ours_mt.get(NONE, 0)} of {n} runs",
                     None if n == 0 else ours_mt.get(NONE, 0) == 0,
                     f"not found in {paper_mt.get(NONE, 0)} of {sum(paper_mt.values())}",
                     paper_mt.get(NONE, 0) == 0, table=T3))
    oa, pa = _counts(t3, "Anova"), _counts(p3, "Anova")
    n, pn = sum(oa.values()), sum(pa.values())
    if n:
        acc, pacc = 100 * (n - oa.get(NONE, 0)) / n, 100 * (pn - pa.get(NONE, 0)) / pn
        other, pother = sum(oa.get(a, 0) for a in NAMES[1:]), sum(pa.get(a, 0) for a in NAMES[1:])
        out.append(Claim(
            "Anova finds a best only when it accepts, which occurs only 2 percent of the time, "
            "and then selects the simplest learner (MAX)",
            "Anova's best is MAX in 1–3 % of all runs (2 % ± 1 point) and never another learner",
            f"a best in {acc:.2f} % of {n} runs, another learner than MAX {other} times",
            abs(acc - 2.0) <= 1.0 and other == 0,
            f"{pacc:.2f} % of {pn}, another learner {pother} times",
            abs(pacc - 2.0) <= 1.0 and pother == 0, table=T3))
    ot, pt = _counts(t3, "TestFirst"), _counts(p3, "TestFirst")
    n, pn = sum(ot.values()), sum(pt.values())
    if n:
        pct, ppct = 100 * ot.get(NONE, 0) / n, 100 * pt.get(NONE, 0) / pn
        out.append(Claim(
            "TestFirst cannot find the best algorithm in 70 percent of the cases",
            "no best in 65–75 % of all runs (70 % ± 5 points)",
            f"no best in {pct:.2f} % of {n} runs; data sets where our share of no best differs "
            "from the paper's Table 2 by more than 30 points (it follows which learner has the "
            f"smallest mean, Table 1): {_not_found_gaps(t2, 'TestFirst')}",
            abs(pct - 70.0) <= 5.0, f"{ppct:.2f} % of {pn}", abs(ppct - 70.0) <= 5.0, table=T3))
    om, on = _counts(t3, "MultiTest"), _counts(t3, "Newman-Keuls")
    pm, pnk = _counts(p3, "MultiTest"), _counts(p3, "Newman-Keuls")
    if sum(om.values()) and sum(on.values()):
        def simple(c):
            return 100 * (c.get("MAX", 0) + c.get("NMC", 0)) / sum(c.values())
        out.append(Claim(
            "MultiTest favours simpler learners than Newman–Keuls (§4.4)",
            "the mean prior rank of the chosen best (1 = MAX … 5 = NN, over the runs that "
            "find one) is lower for MultiTest",
            f"{_mean_rank(om):.2f} (MultiTest) vs {_mean_rank(on):.2f} (Newman–Keuls); MAX or "
            f"NMC chosen in {simple(om):.1f} % vs {simple(on):.1f} % of runs",
            _mean_rank(om) < _mean_rank(on),
            f"{_mean_rank(pm):.2f} vs {_mean_rank(pnk):.2f}; MAX or NMC {simple(pm):.1f} % vs "
            f"{simple(pnk):.1f} % (Table 3)", _mean_rank(pm) < _mean_rank(pnk), table=T3))
    mt, nk = _firsts(t2, "MultiTest"), _firsts(t2, "Newman-Keuls")
    pmt, pnk2 = _firsts(t2, "MultiTest", True), _firsts(t2, "Newman-Keuls", True)
    both = [d for d in DATASETS if d in mt and d in nk]
    if both:
        same = [d for d in SAME_SETS if d in both]
        k = sum(mt[d] == nk[d] for d in same)
        pk = sum(pmt.get(d) == pnk2.get(d) for d in SAME_SETS)
        out.append(Claim(
            "on the 14 data sets §4.4 names, Newman–Keuls and MultiTest most often select the "
            "same learner", "the most chosen best (Table 2's (1)) is the same on at least 12 of "
            "the 14", f"same on {k} of {len(same)}; differ on "
            + fmt_list([d for d in same if mt[d] != nk[d]]),
            k >= 12 if len(same) == len(SAME_SETS) else None,
            f"same on {pk} of {len(SAME_SETS)}", pk >= 12, table=T2))
        other = [d for d in DATASETS if d not in SAME_SETS]
        have = [d for d in other if d in both]
        k = sum(mt[d] != nk[d] for d in have)
        pk = sum(pmt.get(d) != pnk2.get(d) for d in other)
        held = (None if len(have) != len(other) else
                True if k == len(other) else ("partly" if k > len(other) / 2 else False))
        out.append(Claim(
            f"on the other {len(other)} data sets the best learners selected by MultiTest and "
            "Newman–Keuls are different", f"the most chosen best differs on each of the "
            f"{len(other)}; partly if on more than half", f"differ on {k} of {len(have)}; the "
            "same on " + fmt_list([f"{d} ({mt[d]})" for d in have if mt[d] == nk[d]]),
            held, f"differ on {pk} of {len(other)}"
            + ("" if pk == len(other) else "; the same on " + fmt_list(
                [f"{d} ({pmt.get(d)})" for d in other if pmt.get(d) == pnk2.get(d)])),
            pk == len(other), table=T2))
    tf = t2[(t2["method"] == "TestFirst") & (t2["runs"] > 0)]
    if len(tf):
        ours_min = t1.dropna(subset=["mean"]).loc[lambda d: d.groupby("dataset")["mean"].idxmin()]
        low = dict(zip(ours_min["dataset"], ours_min["learner"], strict=True))
        p1 = _paper_t1()
        pmin = p1.loc[p1.groupby("dataset")["error_mean_pct"].idxmin()]
        plow = dict(zip(pmin["dataset"], pmin["algorithm"], strict=True))
        top = {r.dataset: _found_top(r.first, r.second) for r in tf.itertuples()}
        top = {d: v for d, v in top.items() if v}
        ptop = {r.dataset: _found_top(r.paper_first, r.paper_second) for r in tf.itertuples()}
        ptop = {d: v for d, v in ptop.items() if v}
        k = sum(top[d] == low.get(d) for d in top)
        pk = sum(ptop[d] == plow.get(d) for d in ptop)
        out.append(Claim(
            "TestFirst's best, when it finds one, is the learner with the smallest average "
            "error (§4.4)", "on most data sets where TestFirst ever finds a best, its most "
            "frequent best is the smallest-mean learner of Table 1",
            f"{k} of {len(top)}; differ on " + fmt_list(
                [f"{d} ({top[d]} vs {low.get(d)})" for d in top if top[d] != low.get(d)]),
            k > len(top) / 2, f"{pk} of {len(ptop)} (its Tables 1 and 2)", pk > len(ptop) / 2,
            table=T2))
    fl = t2[(t2["dataset"] == "flare") & t2["method"].isin(["Newman-Keuls", "MultiTest"])
            & (t2["runs"] > 0)]
    if len(fl) == 2:
        out.append(Claim(
            "MAX is the best on flare (Newman–Keuls and MultiTest; Table 2)",
            "MAX is the most chosen best of both methods",
            "; ".join(f"{r.method} {r.first} {r.first_pct:.0f} %" for r in fl.itertuples()),
            bool((fl["first"] == "MAX").all()),
            "; ".join(f"{r.method} {r.paper_first} {r.paper_first_pct:.0f} %"
                      for r in fl.itertuples()), bool((fl["paper_first"] == "MAX").all()),
            table=T2))
    m = t1[(t1["learner"] == "MAX") & (t1["runs"] > 0)]
    if len(m):
        k = int(m["within"].astype(bool).sum())
        off = m[~m["within"].astype(bool)]
        out.append(Claim(
            "Table 1, MAX (the training half's majority class) depends only on the data and the "
            "random halves", "MAX within 0.5 points of the paper on at least 28 of 30 sets",
            f"{k} of {len(m)}; off: " + fmt_list([f"{r.dataset} {r.mean:.2f} vs "
                                                   f"{r.paper_mean:.2f}" for r in off.itertuples()]),
            k >= 28 if len(m) == 30 else None, table=T1))
    return out


def run_facts(result, graphs: dict) -> dict:
    """What the claims about single runs need and the committed tables do not keep: per data
    set, the runs where Anova accepts and where Newman–Keuls finds no best; the most frequent
    MultiTest ordering on pendigits; the most frequent graphs of Figs. 3–4."""
    ch = choices(result)
    an, nk = ch[ch["test"] == "anova"], ch[ch["test"] == "newman-keuls"]
    facts: dict = {
        "anova_most": sorted(d for d, h in an.groupby("dataset") if (h["best"] >= 0).mean() > 0.5),
        "nk_fails": {d: (int((g["best"] < 0).sum()), len(g)) for d, g in nk.groupby("dataset")
                     if (g["best"] < 0).any()},
    }
    gm = ch[(ch["test"] == "multitest") & (ch["dataset"] == "pendigits")]
    orders = Counter(o for o in gm["order"] if o is not None)
    if orders:
        top, cnt = orders.most_common(1)[0]
        facts["pendigits_order"] = (list(top), cnt, len(gm))
    facts["graphs"] = {k: (len(v["edges"]), v["count"], v["runs"]) for k, v in graphs.items()}
    return facts


#: the claims :func:`claims_runs` writes: text prefix -> the paper table they are about
RUN_CLAIM_TABLES: tuple[tuple[str, str], ...] = (
    ("Anova's result converts", "Table 3"), ("Newman–Keuls cannot find", "Table 2"),
    ("pendigits: MultiTest orders", "Fig. 4"), ("hepatitis: all pairwise", "Fig. 3"))


def claims_runs(facts: dict) -> list[Claim]:
    """The claims about single runs (from the store: :func:`run_facts`)."""
    out: list[Claim] = []
    p3 = _counts(_paper_t3().rename(columns={"best_algorithm": "best"}), "Anova")
    pacc = sum(p3.get(a, 0) for a in NAMES)
    most = facts["anova_most"]
    out.append(Claim(
        "Anova's result converts to an ordering only when it accepts, 'in only two data sets "
        "out of 30' (§4.4)", "Anova accepts (finds a best) in most of the 1000 runs on "
        "exactly two data sets", f"{len(most)} data set(s): {fmt_list(most)}",
        len(most) == 2,
        f"{pacc} acceptances in all (Table 3), too few for two data sets with more than 500 "
        "of 1000 each", pacc > 2 * 500, table=T3,
        note="The paper's 'two data sets' must count data sets with any acceptance; the "
             "committed tables do not keep per-data-set Anova counts."))
    fails = facts["nk_fails"]
    big = [d for d, (k, n) in fails.items() if k >= 0.01 * n]
    tot = sum(k for k, _ in fails.values())
    p3n = _counts(_paper_t3().rename(columns={"best_algorithm": "best"}), "Newman-Keuls")
    p2 = _paper_t2()
    hep = p2[(p2["dataset"] == "hepatitis") & (p2["method"] == "Newman-Keuls")].iloc[0]
    hep_pct = float(hep["second_pct"]) if hep["second_algorithm"] == NONE else 0.0
    rest = p3n.get(NONE, 0) - round(10 * hep_pct)
    out.append(Claim(
        "Newman–Keuls cannot find the best only on hepatitis and glass (§4.4)",
        "every data set where it finds no best in ≥ 1 % of runs is glass or hepatitis",
        f"no best in {tot} runs; by data set: " + fmt_list(
            [f"{d} {k}/{n}" for d, (k, n) in sorted(fails.items(), key=lambda x: -x[1][0])]),
        set(big) <= {"glass", "hepatitis"},
        f"no best in {p3n.get(NONE, 0)} runs (Table 3), hepatitis {hep_pct:.0f} % (Table 2), "
        f"so at most {rest} runs on all other sets", rest < 10, table=T2))
    if "pendigits_order" in facts:
        top, cnt, n = facts["pendigits_order"]
        g = facts["graphs"].get("pendigits")
        out.append(Claim(
            "pendigits: MultiTest orders 5 < 3 < 4 < 2 < 1, every test but H0: μ3 ≤ μ4 "
            "rejecting (§4.3, Fig. 4) — ours with all 10,992 rows, not the training file",
            "the most frequent ordering is 5 < 3 < 4 < 2 < 1",
            f"{' < '.join(str(o + 1) for o in top)} in {cnt} of {n} runs"
            + (f"; the most frequent graph has {g[0]} edges" if g else ""),
            list(top) == [4, 2, 3, 1, 0], table="Fig. 4"))
    if "hepatitis" in facts["graphs"]:
        e, cnt, n = facts["graphs"]["hepatitis"]
        out.append(Claim("hepatitis: all pairwise tests accept (Fig. 3)",
                         "the most frequent MultiTest graph has no edges",
                         f"{e} edges, in {cnt} of {n} runs", e == 0, table="Fig. 3"))
    return out
