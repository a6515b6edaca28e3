"""The interval studies' grids: designs and the interval methods that read them, the
generators and their learner pairs, the population data sets, and the nested-cv designs
``ci-ncv-reps`` compares."""

from __future__ import annotations

from simstudy.study import Cell

#: design -> the interval methods that read it
DESIGNS: dict[str, tuple[str, ...]] = {
    "holdout[train=0.67]": ("holdout",),
    "1x10cv[strat=0]": ("naive-cv", "cv-clt", "cv-clt[variance=naive]"),
    "resample[r=15]": ("corrected-t", "naive-cv"),
    "5x2": ("t5x2cv", "conservative-z"),
    "ncv[k=5,reps=5]": ("ncv", "ncv[bias=authors]"),
}
#: generator -> (learner pair, task)
GENERATORS: dict[str, tuple[tuple[str, str], str]] = {
    "lingauss": (("ols", "ridge"), "regression"),
    "friedman1": (("ridge", "knn-reg"), "regression"),
    "logistic": (("lda", "1nn"), "classification"),
}
SIZES = (100, 400, 1600)


def grid(sizes: tuple[int, ...] = SIZES) -> list[Cell]:
    """Every generator x size x design cell, its interval methods in the labels."""
    out = []
    for gen, (pair, task) in GENERATORS.items():
        for n in sizes:
            for design, methods in DESIGNS.items():
                if task == "classification" and design.startswith("holdout"):
                    methods = (*methods, "holdout[dist=binomial]")
                out.append(Cell(f"{gen}[n={n}]", pair, design, (),
                                (("generator", gen), ("intervals", methods), ("n", n),
                                 ("task", task))))
    return out


POPULATIONS = ("mushroom", "nursery", "optdigits", "pendigits", "spambase")
REAL_SIZES = (100, 500)


def real_grid(sizes: tuple[int, ...] = REAL_SIZES) -> list[Cell]:
    """Every population x size x design cell, its interval methods in the labels."""
    return [Cell(f"population[data={data},n={n}]", ("nmc", "1nn"), design, (),
                 (("data", data), ("intervals", (*methods, "holdout[dist=binomial]")
                                   if design.startswith("holdout") else methods),
                  ("n", n), ("task", "classification")))
            for data in POPULATIONS for n in sizes for design, methods in DESIGNS.items()]


#: the nested-cv designs ``ci-ncv-reps`` compares: the study's, twice its repetitions, and
#: the authors' package defaults (Bates, Hastie & Tibshirani 2024; ``nestedcv`` in R)
NCV_DESIGNS = ("ncv[k=5,reps=5]", "ncv[k=5,reps=10]", "ncv[k=10,reps=50]")


def ncv_grid(n: int = 100) -> list[Cell]:
    """Every generator at size ``n`` x the nested-cv designs of :data:`NCV_DESIGNS`."""
    return [Cell(f"{gen}[n={n}]", pair, design, (),
                 (("generator", gen), ("intervals", DESIGNS["ncv[k=5,reps=5]"]), ("n", n),
                  ("task", task)))
            for gen, (pair, task) in GENERATORS.items() for design in NCV_DESIGNS]
