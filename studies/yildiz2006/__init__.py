"""Yıldız & Alpaydın (2006), *Ordering and Finding the Best of K > 2 Supervised Learning
Algorithms*, IEEE TPAMI 28(3): Tables 1–3, Figs. 3–4 (study ``multitest``).

One cell per data set: the five learners in the paper's prior order (§4.1) MAX, NMC, LGC,
C4.5, NN (``max``, ``nmc``, ``lgc``, ``c45``, ``1nn``) on 5×2 cv with unstratified random
halves (``5x2``), 1000 runs, overall alpha 0.05.  A trial fits each learner once per fold;
every method reads the same 5 × 10 fold error rates.  The methods are choice methods (see
:mod:`simstudy.stats.choice`), stored per trial as (best, order) rows:

* ``anova`` — accepts → MAX (the simplest), rejects → none (§4.2, §4.4);
* ``newman-keuls`` — the range test at alpha, best by the four rules of §4.2;
* ``multitest`` — one-sided 5×2 cv t for every pair at alpha/10 (Bonferroni), Fig. 1;
* ``testfirst`` — Bonferroni over its K − 1 = 4 comparisons (the paper does not give the
  family size);
* variants, ours: ``multitest[holm=1]`` (Holm, named in §3.2) and
  ``testfirst[family=pairs]`` (TestFirst at MultiTest's alpha/10).

Data (paper name → bundled set; see :data:`.grid.DATASETS`): flare = flare1
with the C-class count as class, monks = monks-1-test (432 cases), horse = horse-colic with
surgical lesion as class, wave = waveform (5000 × 21), credit = crx, breast = breast-w,
pima = diabetes, ironosphere (the paper's spelling) = ionosphere, optdigits = UCI's training
file optdigits.tra = the first 3823 rows of the bundled set (its class counts 376, 389, 380,
389, 387, 376, 377, 387, 380, 382 are optdigits.names' training counts).  **pendigits** is
the whole shuffled UCI file (10,992 rows, training + test): the 7,494-row training file the
paper used (MAX 90.05 %) is not available, so its row is flagged.

Learners: NMC and 1-NN on inputs imputed and z-scored on each training half; LGC linear
logistic regression by gradient descent; C4.5 an entropy tree post-pruned on a random 20 %
hold-out of the training half (the paper's "postpruning with 20 percent of the data reserved
for pruning"); MAX the training half's majority class.  Missing values are imputed with the
training half's means.

Modules
-------
:mod:`.grid` the data sets, learners, methods and cells; :mod:`.tables` Tables 1-3 beside
ours; :mod:`.claims` the paper's claims; :mod:`.pages` the results page; :mod:`.render` the
study's rendering; :mod:`.encodings` a check of the inputs' encoding against Table 1
(``scripts/yildiz2006_encodings.py``).  This module registers the study and is the paper's
interface to the report.
"""

from __future__ import annotations

from simstudy.catalog import register_study
from simstudy.study import Study

from .claims import RUN_CLAIM_TABLES, claims_tables
from .grid import ALPHA, NONE, PAPER_METHODS, REF, RUNS, SEED, cells
from .pages import page
from .render import render as render_study  # the module stays .render

# what simstudy.report reads of the paper: the page and the claims
__all__ = ["NONE", "PAPER_METHODS", "REF", "RUN_CLAIM_TABLES", "build", "claims_tables", "page"]


@register_study("multitest",
                description="Yildiz & Alpaydin 2006 Tables 1-3: best of 5 learners on 30 UCI sets")
def build(datasets: dict[str, str] | None = None) -> Study:
    """Yıldız & Alpaydın (2006): 30 data sets × 5 learners, 5×2 cv, 1000 runs, 6 methods."""
    return Study("multitest", cells(datasets), runs=RUNS, seed=SEED, alpha=ALPHA, chunk=25,
                 description="Yildiz & Alpaydin 2006 Tables 1-3, Figs. 3-4 (best of 5 learners)",
                 render=render_study)
