"""Wang, Li & Li (2016): the grids -- Table 3's Gaussian cases, Tables 4-5's real data sets,
each with the variants and hypotheses of the ``-paper`` studies derived from it.
"""

from __future__ import annotations

from simstudy.study import Cell

SEED = 2016
RUNS = 5000
ALPHA = 0.05  # the studies' alpha (Study's default)

# each test on its own design (the paper's §3 and Table 3 footnote)
TEST_DESIGN: tuple[tuple[str, str], ...] = (
    ("F5x2cv", "poor5x2"),
    ("tB3x2cv", "b3x2"),
    ("FB5x2cv", "b5x2"),
)

TESTS: tuple[str, ...] = tuple(t for t, _ in TEST_DESIGN)

DESIGN_OF: dict[str, str] = dict(TEST_DESIGN)

CASES: tuple[int, ...] = tuple(range(1, 9))

SIM_COMPARISONS: dict[str, tuple[str, str]] = {
    "RT vs LS": ("rt", "ls"),
    "SVM vs RF": ("svm", "rf"),
    "SVM vs AB": ("svm", "ab"),
    "AB vs RF": ("ab", "rf"),
}

# Table 3 header (μ1, Σ1 = c·I2 as printed); μ0 = (0, 0), Σ0 = I2 in every case
CASE_SETUP: dict[int, tuple[str, str]] = {
    1: ("(-3/2,-3/2)", "1/2"), 2: ("(-1/2,-1/2)", "1/6"), 3: ("(1,1)", "1/6"),
    4: ("(1,1)", "1/3"), 5: ("(1,1)", "1/2"), 6: ("(1,1)", "7/3"), 7: ("(2,2)", "1/6"),
    8: ("(2,2)", "1/2"),
}

# paper name -> our bundled source; Table 4's hidden units per data set
DATASETS: dict[str, str] = {
    "Iris": "iris",
    "Wine": "wine",
    "Glass": "glass",
    "Heart": "heart-statlog",
    "Balance": "balance-scale",
    "Thyroid gland": "new-thyroid",
}

HIDDEN: dict[str, tuple[int, ...]] = {
    "Iris": (3, 10, 20),
    "Wine": (10, 20),
    "Glass": (5, 10, 20),
    "Heart": (5, 10, 20),
    "Balance": (5, 10, 20),
    "Thyroid gland": (10,),
}

REAL_COMPARISONS: dict[str, tuple[str, str]] = {
    "SVM vs RF": ("svm", "rf"),
    "SVM vs LDA": ("svm", "lda"),
    "LDA vs RF": ("lda", "rf"),
}

# Table 4's two blocks: our label, the paper's column prefix
TYPE1, TYPE2 = "type I (MLP vs MLP)", "reject LP vs MLP (paper: 'type II')"

BLOCK_PREFIX = {TYPE1: "typeI_", TYPE2: "typeII_"}


# --- variants and hypotheses about the paper ------------------------------------------------
#
# Wang, Li & Li (2016) print no error rates of their learners, so nothing can be calibrated
# against an error table (Alpaydın's variant is, see studies/alpaydin1999/calibration.py).
# What is left are (a) the defaults of the R functions their group's public code calls
# (HaojieTing/RegularizedCrossValidation): nnet(size = h, maxit = 200) on unscaled inputs
# for LP/MLP -- fixed a priori, before looking at any reject proportion; e1071's radial SVM
# (γ = 1/p on scaled inputs) equals our default up to the sd's ddof, MASS::lda is ours; and
# (b) HYPOTHESES found by looking at the paper's reject tables: AB behaving like a
# training-fold majority-class learner, an SVM with e1071's sigmoid kernel, and tB3x2cv
# judged against the one-sided critical value.  Agreement under (b) is not independent
# evidence: the renderings label those scenarios as hypotheses.

ONE_SIDED = "tB3x2cv[crit=one-sided]"

RPART = "rt[cp=0.01,minsplit=20]"

#: R gbm's old defaults (gbm <= 2.1: n.trees 100, shrinkage 0.001, interaction.depth 1,
#: bag.fraction 0.5, n.minobsinnode 10, bernoulli deviance): our batched gbm
#: (simstudy.learners.gbm), every option in the id
GBM_OLD = ("gbm[bag_fraction=0.5,interaction_depth=1,n_minobsinnode=10,n_trees=100,"
           "shrinkage=0.001]")


#: canonical specs of the R-default learners (each its own cell id)
NNET = "[alpha=0,init=0.7,maxit=200,scale=none,solver=nnet]"


def nnet_spec(base: str) -> str:
    """``lp`` / ``mlp-<h>`` trained as R's ``nnet(size = h, maxit = 200)`` on unscaled inputs."""
    return base + NNET


def _tests(test: str) -> tuple[str, ...]:
    return (test, ONE_SIDED) if test == "tB3x2cv" else (test,)


def gaussian_variants(pair: tuple[str, str]) -> list[tuple[str, tuple[str, str]]]:
    """A Table 3 comparison's learners under each variant: ``default``; ``rt=rpart`` (R's
    pruned tree for RT: a priori, the group's R code); for AB the hypotheses ``ab=max`` (the
    paper's AB predicted the training majority) and ``ab=gbm`` (R gbm with its old defaults,
    shrinkage 0.001: barely leaves the prior)."""
    out = [("default", pair)]
    if "rt" in pair:
        out.append(("rt=rpart", tuple(RPART if x == "rt" else x for x in pair)))
    if "ab" in pair:
        out.append(("ab=max", tuple("max" if x == "ab" else x for x in pair)))
        out.append(("ab=gbm", tuple(GBM_OLD if x == "ab" else x for x in pair)))
    return out


def gaussian_cells(variants: bool = False) -> list[Cell]:
    """Table 3: 8 cases × 4 comparisons × 3 (test, design) = 96 cells.

    ``variants``: each comparison under every variant of :func:`gaussian_variants`, labelled
    ``variant`` (the default cells keep their ids), tB3x2cv also one-sided."""
    out = []
    for case in CASES:
        for comp, pair in SIM_COMPARISONS.items():
            labels = (("case", case), ("comparison", comp))
            for variant, lrn in (gaussian_variants(pair) if variants else [(None, pair)]):
                lab = labels + ((("variant", variant),) if variants else ())
                for test, design in TEST_DESIGN:
                    out.append(Cell(f"wang-case{case}", lrn, design,
                                    _tests(test) if variants else (test,), lab))
    return out


def real_cells() -> list[Cell]:
    """Table 4 (15 rows × 2 blocks × 3 tests = 90 cells) and Table 5 (3 × 6 × 3 = 54 cells)."""
    out = []
    for name, src in DATASETS.items():
        for h in HIDDEN[name]:
            for block, pair in ((TYPE1, (f"mlp-{h}", f"mlp-{h}")), (TYPE2, ("lp", f"mlp-{h}"))):
                for test, design in TEST_DESIGN:
                    out.append(Cell(src, pair, design, (test,),
                                    (("table", 4), ("dataset", name), ("hidden", h),
                                     ("block", block))))
    for comp, pair in REAL_COMPARISONS.items():
        for name, src in DATASETS.items():
            for test, design in TEST_DESIGN:
                out.append(Cell(src, pair, design, (test,),
                                (("table", 5), ("dataset", name), ("comparison", comp))))
    return out


def real_variant_cells() -> list[Cell]:
    """Tables 4-5: default cells, nnet LP/MLP cells (Table 4) and sigmoid-SVM cells (Table 5)."""
    out = []
    for c in real_cells():
        lab = dict(c.labels)
        out.append(Cell(c.source, c.learners, c.design, _tests(c.tests[0]),
                        c.labels + (("variant", "default"),)))
        if lab["table"] == 4:
            lrn = tuple(nnet_spec(x) for x in c.learners)
            out.append(Cell(c.source, lrn, c.design, _tests(c.tests[0]),
                            c.labels + (("variant", "nnet"),)))
        elif "svm" in c.learners:
            lrn = tuple("svm[kernel=sigmoid]" if x == "svm" else x for x in c.learners)
            out.append(Cell(c.source, lrn, c.design, _tests(c.tests[0]),
                            c.labels + (("variant", "svm=sigmoid"),)))
    return out


# (name, {comparison or table -> variant}, tB3x2cv criterion, hypothesis?)
Scenario = tuple[str, dict, str, bool]

AB_MAX = {"SVM vs AB": "ab=max", "AB vs RF": "ab=max"}

AB_GBM = {"SVM vs AB": "ab=gbm", "AB vs RF": "ab=gbm"}

RT_RPART = {"RT vs LS": "rt=rpart"}

GAUSS_SCENARIOS: tuple[Scenario, ...] = (
    ("default", {}, "two-sided", False),
    ("R defaults (rpart RT)", RT_RPART, "two-sided", False),
    ("R defaults, tB3x2cv one-sided", RT_RPART, "one-sided", True),
    ("R defaults + AB = majority class", {**RT_RPART, **AB_MAX}, "two-sided", True),
    ("R defaults + AB = majority class, tB3x2cv one-sided", {**RT_RPART, **AB_MAX},
     "one-sided", True),
    ("R defaults + AB = old-default gbm", {**RT_RPART, **AB_GBM}, "two-sided", True),
    ("R defaults + AB = old-default gbm, tB3x2cv one-sided", {**RT_RPART, **AB_GBM},
     "one-sided", True),
)

SIGMOID = {"SVM vs RF": "svm=sigmoid", "SVM vs LDA": "svm=sigmoid"}

REAL_SCENARIOS: tuple[Scenario, ...] = (
    ("default", {}, "two-sided", False),
    ("default, tB3x2cv one-sided", {}, "one-sided", True),
    ("R defaults (nnet LP/MLP)", {4: "nnet"}, "two-sided", False),
    ("R defaults, tB3x2cv one-sided", {4: "nnet"}, "one-sided", True),
    ("R defaults + sigmoid SVM", {4: "nnet", **SIGMOID}, "two-sided", True),
    ("R defaults + sigmoid SVM, tB3x2cv one-sided", {4: "nnet", **SIGMOID}, "one-sided", True),
)
