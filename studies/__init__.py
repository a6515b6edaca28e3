"""The studies: one package per paper, and the pages they write.

:data:`RESULTS_PAGES` declares each ``figures/<name>/RESULTS.md`` the studies write and the
function that writes its generated sections from the committed tables
(``f(out: Path) -> list[Section]``, as ``"module:function"`` so that naming a page imports
nothing); :mod:`simstudy.report.prose` reads it.
"""

RESULTS_PAGES: dict[str, str] = {
    "type1": "simstudy.studies.alpaydin1999:page_type1",
    "type2": "simstudy.studies.alpaydin1999:page_type2",
    "type1-paper": "simstudy.studies.alpaydin1999:page_type1_paper",
    "type2-paper": "simstudy.studies.alpaydin1999:page_type2_paper",
    "numerator": "simstudy.studies.alpaydin1999:page_numerator",
    "errors": "simstudy.studies.alpaydin1999:page_errors",
    "errors-paper": "simstudy.studies.alpaydin1999:page_errors_paper",
    "odr-size": "simstudy.studies.alpaydin1999:page_odr_size",
    "gaussian": "simstudy.studies.wang2016:page_gaussian",
    "gaussian-paper": "simstudy.studies.wang2016:page_gaussian_paper",
    "wang-real": "simstudy.studies.wang2016:page_real",
    "wang-real-paper": "simstudy.studies.wang2016:page_real_paper",
    "wang-ab-weka-defaults": "simstudy.studies.wang2016:page_ab_weka_defaults",
    "multitest": "simstudy.studies.yildiz2006:page",
    "replicability": "simstudy.studies.bouckaert2004:page",
    "ban": "simstudy.studies.bouckaert2004.ban:page",
    "ci-synthetic": "simstudy.studies.ci.pages:page_synthetic",
    "ci-real": "simstudy.studies.ci.pages:page_real",
    "ci-ncv-reps": "simstudy.studies.ci.pages:page_ncv_reps",
}

#: the gaps of ``figures/FIDELITY.md`` the studies account for (``"module:attribute"``, a
#: tuple of :class:`simstudy.report.prose_fidelity.Gap`)
FIDELITY_GAPS: tuple[str, ...] = (
    "simstudy.studies.alpaydin1999.gaps:GAPS",
    "simstudy.studies.wang2016.gaps:GAPS",
    "simstudy.studies.yildiz2006.gaps:GAPS",
    "simstudy.studies.bouckaert2004.ban.gaps:GAPS",
)

#: tables committed twice: (copy, source) under figures/, without ``.csv``; a copy's columns
#: that the source has must hold the source's values (``python -m simstudy pages --check``)
SAME_TABLES: tuple[tuple[str, str], ...] = (
    ("type1-paper/table3_type1_default", "type1/table3_type1"),
    ("type2-paper/table3_type2_default", "type2/table3_type2"),
    ("errors-paper/table2_errors_default", "errors/table2_errors"),
    ("gaussian-paper/table3_default", "gaussian/table3"),
    ("wang-real-paper/table4_default", "wang-real/table4"),
    ("wang-real-paper/table5_default", "wang-real/table5"),
)

#: the rows of ``figures/FIDELITY.md``, per paper: ``f(figures, variants) -> list[Row]``
FIDELITY_ROWS: tuple[str, ...] = (
    "simstudy.studies.alpaydin1999.fidelity:rows",
    "simstudy.studies.wang2016.fidelity:rows",
    "simstudy.studies.bouckaert2004.fidelity:rows",
    "simstudy.studies.yildiz2006.fidelity:rows",
)

#: what the variant rows of ``figures/FIDELITY.md`` are (the page prints it above them)
FIDELITY_VARIANTS = ("The same checks under the scenarios the `*-paper` studies and `odr-size` "
                     "add (their RESULTS.md say which are fixed a priori and which are "
                     "hypotheses read off the paper's tables).")

#: the lines of ``figures/NUMBERS.md``, per paper: ``f(figures) -> list[str]``
NUMBERS_LINES: tuple[str, ...] = (
    "simstudy.studies.alpaydin1999.fidelity:numbers",
    "simstudy.studies.wang2016.fidelity:numbers",
)
