"""Bad inputs, from the command line and from Python: each must be refused with exit
status 2 (a ``SimstudyError`` in Python) and one line naming the bad value, no traceback,
and nothing left behind (no new store, no output folder).

    python scripts/sweeps/inputs.py [--out figures/sweeps/inputs.csv] [--only WORD]

A handful of inputs are not errors but must be said (``--jobs`` above the cores: capped
with a warning); their rows expect exit 0 and the warning.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, Meter, files, leftovers, named, row, run, simstudy, write_csv  # noqa: E402 - the folder is put on the path above

REFUSED = "exit 2, one line"


def prepare(tmp: Path) -> dict[str, Path]:
    """A small demo store, a damaged copy, a foreign file, a study with no cells, a user
    test module, a data file with a row without a label."""
    store = tmp / "s.sqlite"
    r = run(simstudy("run", "demo", "--runs", "2", "--filter", "iris/nmc", "--store", store,
                     "--no-render", "--no-progress"), cwd=tmp)
    assert r["rc"] == 0, r["stderr"]
    damaged = tmp / "damaged.sqlite"
    shutil.copy(store, damaged)
    con = sqlite3.connect(damaged)
    page = con.execute("PRAGMA page_size").fetchone()[0]
    root = con.execute("SELECT rootpage FROM sqlite_master WHERE name='trials'").fetchone()[0]
    con.close()
    with open(damaged, "r+b") as f:
        f.seek((root - 1) * page)
        f.write(b"\xa5" * page)
    text = tmp / "notes.txt"
    text.write_text("not a store\n" * 200)
    empty = tmp / "empty.py"
    empty.write_text("from simstudy.study import Study\n\ndef build():\n"
                     "    return Study('empty', [])\n")
    broken = tmp / "broken.py"
    broken.write_text("def build(:\n")
    (tmp / "usertests.py").write_text(
        "def good(d, *, n_train, n_test):\n    return 0.0, 0.5\n"
        "def boolean(d, *, n_train, n_test):\n    return 0.0, True\n"
        "def exits(d, *, n_train, n_test):\n    raise SystemExit(3)\n"
        "def raises(d, *, n_train, n_test):\n    raise ZeroDivisionError('x')\n"
        "def nan(d, *, n_train, n_test):\n    return 0.0, float('nan')\n"
        "def big(d, *, n_train, n_test):\n    return 0.0, 1.5\n"
        "notcallable = 3\n")
    (tmp / "importfails.py").write_text("import nosuchmodule_xyz\n")
    data = tmp / "data.csv"
    data.write_text("a,b,class\n" + "".join(f"{i},{i % 3},{'xy'[i % 2]}\n" for i in range(40))
                    + "1,2,\n")
    good_data = tmp / "good.csv"
    good_data.write_text("a,b,class\n" + "".join(f"{i},{(i * 7) % 5},{'xy'[i % 2]}\n"
                                                 for i in range(60)))
    bad_csv = tmp / "bad.csv"
    bad_csv.write_bytes(b"\x00\x01\x02garbage")
    one_class = tmp / "oneclass.csv"
    one_class.write_text("a,class\n" + "".join(f"{i},x\n" for i in range(30)))
    existing = tmp / "exists.sqlite"
    shutil.copy(store, existing)
    return dict(store=store, damaged=damaged, text=text, empty=empty, broken=broken,
                data=data, good_data=good_data, bad_csv=bad_csv, one_class=one_class,
                existing=existing, tmp=tmp)


def cli_cases(p: dict[str, Path]) -> list[tuple[str, list, str, tuple]]:
    """(case, argv after ``simstudy``, expect, words one of which the error must say)."""
    tmp, s, dmg = p["tmp"], p["store"], p["damaged"]
    new = tmp / "new.sqlite"
    run_ = ["run", "demo", "--store", new, "--no-render", "--no-progress"]
    cases: list[tuple[str, list, str, tuple]] = []

    def bad(case, argv, *words, expect=REFUSED):
        cases.append((case, argv, expect, words))

    for v in ("0", "-1", "1e9", "1e20", "abc", "1.5", "1000001", ""):
        bad(f"run --runs {v!r}", [*run_, "--runs", v], repr(v), "runs")
    for v in ("0", "-1", "100000", "1025", "x"):
        bad(f"run --jobs {v!r}", [*run_, "--jobs", v], repr(v), "jobs")
    for v in ("0", "-1", "1001", "x"):
        bad(f"run --seeds {v!r}", [*run_, "--seeds", v], repr(v), "seeds")
    for v in ("-1", "x", str(2**64), "1.5"):
        bad(f"run --seed {v!r}", [*run_, "--seed", v], repr(v), "seed")
    bad("run --seed past the last seed", [*run_, "--seed", str(2**63 - 2), "--seeds", "3"],
        "seed")
    for v in ("0", "1", "1.5", "-0.1", "nan", "x", "inf"):
        bad(f"run --alpha {v!r}", [*run_, "--alpha", v], repr(v), "alpha")
    for v in ("", "nomatch"):
        bad(f"run --filter {v!r}", [*run_, "--filter", v], repr(v), "filter")
    for v in ("2", "0", "x"):
        bad(f"run --sets {v!r}", [*run_, "--sets", v], "sets")
    for v in ("spark", ""):
        bad(f"run --backend {v!r}", [*run_, "--backend", v], repr(v), "backend")
    bad("run --render all", [*run_[:-2], "--render", "all"], "'all'")
    bad("run --no-render with --out", [*run_[:-2], "--no-render", "--out", tmp / "o"],
        "render", "out")
    for v in ("3/2", "0/2", "1/0", "a/b", "1/2/3", "-1/2", "2", "", "1/1.5"):
        bad(f"run --shard {v!r}", [*run_, "--shard", v], "shard")
    for v in ("0", "-1", "x"):
        bad(f"run --chunk {v!r}", [*run_, "--chunk", v], repr(v), "chunk")
    bad("run --scheduler without dask backend", [*run_, "--scheduler", "tcp://127.0.0.1:1"],
        "scheduler")
    bad("run --scheduler unreachable", [*run_, "--backend", "dask", "--scheduler",
                                        "tcp://127.0.0.1:1", "--runs", "1"], "scheduler")
    bad("run --costs without --shard", [*run_, "--costs", s], "costs", "shard")
    bad("run --costs missing store", [*run_, "--shard", "1/2", "--costs", tmp / "none.sqlite"],
        "none.sqlite")
    for v in ("nosuch", "", "Demo", "demo[x=1]"):
        bad(f"run study {v!r}", ["run", v, "--store", new], repr(v), "study")
    bad("run study file missing", ["run", tmp / "missing.py", "--store", new], "missing.py")
    bad("run study with no cells", ["run", p["empty"], "--store", new, "--no-render"],
        "no cells")
    bad("run study file with a syntax error", ["run", p["broken"], "--store", new], "broken")
    bad("run --store is a folder", ["run", "demo", "--runs", "1", "--store", tmp,
                                    "--no-render"], "folder", "directory", str(tmp))
    bad("run --store in a missing folder", ["run", "demo", "--runs", "1", "--store",
                                            tmp / "no" / "s.sqlite", "--no-render"],
        "does not exist", "no/s.sqlite")
    bad("run --store a foreign file", ["run", "demo", "--runs", "1", "--store", p["text"],
                                       "--no-render"], "not a sqlite", "foreign")
    bad("run --store damaged", ["run", "demo", "--runs", "2", "--filter", "iris/nmc",
                                "--store", dmg, "--no-render"], "damaged")
    bad("run --out is a file", ["run", "demo", "--runs", "1", "--filter", "iris/nmc",
                                "--store", tmp / "o2.sqlite", "--out", p["text"]],
        "notes.txt", "not a folder", "exists")
    bad("run unknown option", [*run_, "--nosuch"], "--nosuch")
    bad("short form unknown study", ["nosuch"], "nosuch")
    bad("unknown command", ["nosuchcommand", "x"], "nosuchcommand", "unrecognized arguments")
    rep = ["report", "demo", "--store", s]
    for v in ("0", "-1", "1e9", "x"):
        bad(f"report --runs {v!r}", [*rep, "--runs", v], repr(v), "runs")
    for v in ("-1", "x"):
        bad(f"report --seed {v!r}", [*rep, "--seed", v], repr(v), "seed")
    for v in ("0", "2", "x"):
        bad(f"report --alpha {v!r}", [*rep, "--alpha", v], repr(v), "alpha")
    for v in ("95", "0", "1", "x"):
        bad(f"report --confidence {v!r}", [*rep, "--confidence", v], repr(v), "confidence")
    bad("report --filter ''", [*rep, "--filter", ""], "filter")
    bad("report --filter nomatch", [*rep, "--filter", "nomatch"], "nomatch")
    bad("report --format pdf", [*rep, "--format", "pdf"], "'pdf'")
    bad("report unknown study", ["report", "nosuch", "--store", s], "nosuch")
    bad("report missing store", ["report", "demo", "--store", tmp / "none.sqlite"],
        "none.sqlite")
    bad("report damaged store", ["report", "demo", "--store", dmg], "damaged")
    bad("report foreign file", ["report", "demo", "--store", p["text"]],
        "not a sqlite", "foreign", "not a simstudy")
    bad("report study not in store", ["report", "type1", "--store", s], "type1")
    card = ["card", "--studies", "demo", "--store", s, "--out", tmp / "c", "--no-figures"]
    ut = "usertests"
    for v, w in (("nosuch", "nosuch"), ("t5x2cv[foo=1]", "t5x2cv[foo=1]"),
                 ("usertests:missing", "missing"), ("nosuchmod_xyz:f", "nosuchmod_xyz"),
                 ("importfails:f", "importfails"), ("usertests:notcallable", "notcallable"),
                 (str(tmp / "none.py") + ":f", "none.py"), ("", "test")):
        bad(f"card --test {v!r}", [*card, "--test", v], w)
    for v, w in (("boolean", ("True",)), ("exits", ("SystemExit", "sys.exit")),
                 ("raises", ("ZeroDivision",)), ("big", ("1.5",))):
        bad(f"card test returning/doing {v}", [*card, "--test", f"{ut}:{v}"], *w)
    for v in ("nosuch", "", "demo,nosuch"):
        bad(f"card --studies {v!r}", ["card", "--test", f"{ut}:good", "--studies", v,
                                      "--store", s, "--out", tmp / "c"], "nosuch", "studies",
            "study")
    for opt, v in (("--runs", "0"), ("--runs", "1e9"), ("--alpha", "2"), ("--alpha", "0"),
                   ("--seed", "-1"), ("--seed", "x")):
        bad(f"card {opt} {v!r}", [*card, "--test", f"{ut}:good", opt, v], repr(v),
            opt.strip("-"))
    bad("card missing store", ["card", "--test", f"{ut}:good", "--studies", "demo",
                               "--store", tmp / "none.sqlite", "--out", tmp / "c"],
        "none.sqlite")
    bad("card damaged store", ["card", "--test", f"{ut}:good", "--studies", "demo", "--store",
                               dmg, "--out", tmp / "c", "--no-figures"], "damaged")
    bad("card --out is a file", ["card", "--test", f"{ut}:good", "--studies", "demo",
                                 "--store", s, "--out", p["text"]], "notes.txt")
    bench = ["bench", "--study", "demo", "--store", s]
    for v, w in (("nosuch", "nosuch"), ("usertests:missing", "missing"),
                 ("usertests:boolean", "True"), ("usertests:exits", "sys.exit")):
        bad(f"bench --test {v!r}", [*bench, "--test", v], w)
    for v in ("nosuch", ""):
        bad(f"bench --study {v!r}", ["bench", "--test", f"{ut}:good", "--study", v,
                                     "--store", s], repr(v), "study")
    for opt, v in (("--runs", "0"), ("--runs", "1000001"), ("--alpha", "1.5"),
                   ("--seed", "-1")):
        bad(f"bench {opt} {v!r}", [*bench, "--test", f"{ut}:good", opt, v], repr(v),
            opt.strip("-"))
    bad("bench damaged store", ["bench", "--test", f"{ut}:good", "--study", "demo",
                                "--store", dmg], "damaged")
    cmp_ = ["compare", "--data", "iris", "--no-measured"]
    for v in ("nosuch", "1nn[k=0]", "sklearn.svm:NoSuch"):
        bad(f"compare --models nmc {v!r}", [*cmp_, "--models", "nmc", v], "nosuch", "NoSuch",
            "k=0", "k")
    bad("compare one model", [*cmp_, "--models", "nmc"], "two")
    for v in ("nosuch", "5x2cv[r=0]", ""):
        bad(f"compare --design {v!r}", [*cmp_, "--models", "nmc", "1nn", "--design", v],
            repr(v), "design")
    for v in ("nosuch", "t5x2cv[foo=1]", "bayes-correlated-t[rope=x]",
              "paired-bootstrap[resamples=7]"):
        bad(f"compare --tests {v!r}", [*cmp_, "--models", "nmc", "1nn", "--tests", v],
            "nosuch", "foo", "rope", "resamples")
    bad("compare --scoring nosuch", [*cmp_, "--models", "nmc", "1nn", "--scoring", "nosuch"],
        "nosuch")
    for opt, v in (("--alpha", "2"), ("--seed", "-1"), ("--jobs", "0"), ("--jobs", "100000")):
        bad(f"compare {opt} {v!r}", [*cmp_, "--models", "nmc", "1nn", opt, v], repr(v),
            opt.strip("-"))
    for v, w in ((tmp / "none.csv", "none.csv"), (p["bad_csv"], "bad.csv"),
                 (p["data"], "label"), (p["one_class"], "class"), ("nosuchset", "nosuchset")):
        bad(f"compare --data {Path(str(v)).name}", ["compare", "--data", v, "--models", "nmc",
                                                    "1nn", "--no-measured"], w)
    bad("merge out exists", ["merge", p["existing"], s], "exists")
    bad("merge missing input", ["merge", tmp / "m.sqlite", tmp / "none.sqlite"], "none.sqlite")
    bad("merge foreign input", ["merge", tmp / "m.sqlite", p["text"]],
        "not a sqlite", "foreign", "not a simstudy")
    bad("merge damaged input", ["merge", tmp / "m.sqlite", dmg], "damaged")
    bad("merge out in a missing folder", ["merge", tmp / "no" / "m.sqlite", s], "does not exist")
    bad("merge no inputs", ["merge", tmp / "m.sqlite"], "inputs")
    bad("snapshot missing store", ["snapshot", tmp / "c.sqlite", "--store", tmp / "n.sqlite"],
        "n.sqlite")
    bad("snapshot onto itself", ["snapshot", s, "--store", s], "itself", "same")
    bad("snapshot foreign store", ["snapshot", tmp / "c.sqlite", "--store", p["text"]],
        "not a sqlite", "foreign", "not a simstudy")
    bad("snapshot damaged store", ["snapshot", tmp / "c.sqlite", "--store", dmg], "damaged")
    bad("snapshot dest in a missing folder", ["snapshot", tmp / "no" / "c.sqlite",
                                              "--store", s], "does not exist")
    bad("snapshot dest is a foreign file", ["snapshot", p["text"], "--store", s],
        "notes.txt")
    bad("migrate missing store", ["migrate", "--store", tmp / "none.sqlite"], "none.sqlite")
    bad("migrate foreign file", ["migrate", "--store", p["text"]],
        "not a sqlite", "foreign", "not a simstudy")
    bad("migrate damaged store", ["migrate", "--store", dmg], "damaged")
    bad("trials verify unknown study", ["trials", "verify", "--study", "nosuch"], "nosuch")
    for v in ("0", "2", "-1", "x"):
        bad(f"trials verify --sample {v!r}", ["trials", "verify", "--study", "multitest",
                                              "--sample", v], repr(v), "sample")
    bad("trials verify --dir missing", ["trials", "verify", "--dir", tmp / "nodir"], "nodir")
    bad("trials verify --dir without trials", ["trials", "verify", "--dir", tmp], str(tmp),
        "manifest")
    bad("trials info unknown study", ["trials", "info", "--study", "nosuch"], "nosuch")
    bad("trials info --dir missing", ["trials", "info", "--dir", tmp / "nodir"], "nodir")
    bad("trials export unknown study", ["trials", "export", "--study", "nosuch", "--out",
                                        tmp / "e", s], "nosuch")
    bad("trials export study not in store", ["trials", "export", "--study", "type1", "--out",
                                             tmp / "e", s], "type1")
    bad("trials export missing store", ["trials", "export", "--study", "demo", "--out",
                                        tmp / "e", tmp / "none.sqlite"], "none.sqlite")
    bad("trials export --max-file-mb 0", ["trials", "export", "--study", "demo", "--out",
                                          tmp / "e", "--max-file-mb", "0", s], "'0'",
        "max-file-mb")
    bad("list with an argument", ["list", "x"], "'x'", "unrecognized")
    bad("run --jobs 3 on 2 cores", ["run", "demo", "--runs", "1", "--filter", "iris/nmc~1nn",
                                    "--store", tmp / "w.sqlite", "--no-render", "--jobs", "3"],
        "warning", "cores", expect="exit 0, warned and capped")
    return cases


def api_cases(p: dict[str, Path]) -> list[tuple[str, object, tuple]]:
    """(case, a call, words one of which the SimstudyError must say)."""
    import simstudy as ss

    tmp, s, dmg = p["tmp"], p["store"], p["damaged"]
    new = tmp / "new.sqlite"
    sys.path.insert(0, str(tmp))
    import usertests as ut

    cases: list[tuple[str, object, tuple]] = []

    def bad(case, call, *words):
        cases.append((case, call, words))

    def r(**kw):
        return lambda: ss.run(kw.pop("study", "demo"), store=kw.pop("store", new),
                              progress=False, render="none", **kw)

    for k, v in (("runs", 0), ("runs", 10**9), ("runs", -1), ("runs", "x"), ("runs", 1.5),
                 ("jobs", 0), ("jobs", 100000), ("seeds", 0), ("seeds", 1001), ("seed", -1),
                 ("alpha", 1.5), ("alpha", float("nan")), ("filter", ""), ("sets", 2),
                 ("backend", "spark"), ("chunk", 0), ("shard", (3, 2)), ("shard", (0, 2)),
                 ("shard", "a/b"), ("study", "nosuch"), ("study", str(p["empty"])),
                 ("store", dmg), ("store", p["text"])):
        bad(f"ss.run({k}={v!r})", r(**{k: v}), repr(v), k, "damaged", "not a sqlite", "cells")
    for k, v in (("runs", 0), ("seed", -1), ("alpha", 2), ("confidence", 95), ("filter", ""),
                 ("study", "nosuch"), ("store", tmp / "none.sqlite"), ("store", dmg)):
        kw = {"store": s, k: v}
        bad(f"ss.collect({k}={v!r})",
            lambda kw=kw: ss.collect(kw.pop("study", "demo"), **kw), repr(v), k, "damaged",
            "none.sqlite")
    for what, call, words in (
            ("test 'nosuch'", lambda: ss.card("nosuch", ["demo"], s), ("nosuch",)),
            ("studies ['nosuch']", lambda: ss.card(ut.good, ["nosuch"], s), ("nosuch",)),
            ("runs=0", lambda: ss.card(ut.good, ["demo"], s, runs=0), ("runs",)),
            ("alpha=2", lambda: ss.card(ut.good, ["demo"], s, alpha=2), ("alpha",)),
            ("damaged store", lambda: ss.card(ut.good, ["demo"], dmg), ("damaged",)),
            ("a test returning True", lambda: ss.card(ut.boolean, ["demo"], s), ("True",)),
            ("a test calling sys.exit", lambda: ss.card(ut.exits, ["demo"], s),
             ("sys.exit",))):
        bad(f"ss.card({what})", call, *words)
    for what, call, words in (
            ("study 'nosuch'", lambda: ss.bench(ut.good, "nosuch", s), ("nosuch",)),
            ("runs=1000001", lambda: ss.bench(ut.good, "demo", s, runs=10**6 + 1), ("runs",)),
            ("damaged store", lambda: ss.bench(ut.good, "demo", dmg), ("damaged",))):
        bad(f"ss.bench({what})", call, *words)
    import numpy as np

    X = np.random.default_rng(0).normal(size=(40, 2))
    y = np.arange(40) % 2
    for what, call, words in (
            ("models ['nmc']", lambda: ss.compare(["nmc"], X, y, measured=False), ("two",)),
            ("model 'nosuch'", lambda: ss.compare(["nmc", "nosuch"], X, y, measured=False),
             ("nosuch",)),
            ("design 'nosuch'", lambda: ss.compare(["nmc", "1nn"], X, y, design="nosuch",
                                                   measured=False), ("nosuch",)),
            ("tests ['nosuch']", lambda: ss.compare(["nmc", "1nn"], X, y, tests=["nosuch"],
                                                    measured=False), ("nosuch",)),
            ("alpha=2", lambda: ss.compare(["nmc", "1nn"], X, y, alpha=2, measured=False),
             ("alpha",)),
            ("jobs=100000", lambda: ss.compare(["nmc", "1nn"], X, y, jobs=100000,
                                               measured=False), ("jobs",))):
        bad(f"ss.compare({what})", call, *words)
    bad("ss.merge(out exists)", lambda: ss.merge(p["existing"], [s]), "exists")
    bad("ss.merge(missing input)", lambda: ss.merge(tmp / "m.sqlite", [tmp / "none.sqlite"]),
        "none.sqlite")
    bad("ss.merge(damaged input)", lambda: ss.merge(tmp / "m.sqlite", [dmg]), "damaged")
    bad("ss.snapshot(missing store)", lambda: ss.snapshot(tmp / "n.sqlite", tmp / "c.sqlite"),
        "n.sqlite")
    bad("ss.snapshot(damaged store)", lambda: ss.snapshot(dmg, tmp / "c.sqlite"), "damaged")
    bad("ss.snapshot(onto itself)", lambda: ss.snapshot(s, s), "itself", "same")
    return cases


def sweep(tmp: Path, only: str = "", part: tuple[int, int] = (1, 1),
          out: Path | None = None) -> list[dict]:
    """Every case (those whose name contains ``only``; every n-th from the k-th for
    ``part`` (k, n)); the table rewritten at ``out`` after each."""
    p = prepare(tmp)
    rows = []
    mine = lambda i: i % part[1] == part[0] - 1  # noqa: E731
    for i, (case, argv, expect, words) in enumerate(cli_cases(p)):
        if (only and only not in case) or not mine(i):
            continue
        if out is not None and rows:
            write_csv(rows, out)
        before = files(tmp)
        res = run(simstudy(*argv), cwd=tmp, timeout=120)
        rc = 0 if expect.startswith("exit 0") else 2
        ok = named(res, rc, words)
        if rc == 2:  # one line, nothing else said
            ok = ok and len([x for x in res["stderr"].splitlines()
                             if x.startswith("simstudy: error")]) == 1
        new = sorted(f for f in files(tmp) - before)
        left = leftovers(tmp, before=before) or ";".join(
            Path(f).name for f in new if rc == 2)
        rows.append(row("cli", case, simstudy(*argv), expect, res, ok, leftovers=left))
        for f in new:  # the next case starts from the same folder
            q = Path(f)
            if q.is_dir():
                shutil.rmtree(q, ignore_errors=True)
            elif q.exists():
                q.unlink()
    from simstudy.errors import SimstudyError

    for i, (case, call, words) in enumerate(api_cases(p)):
        if (only and only not in case) or not mine(i):
            continue
        before = files(tmp)
        t0 = time.time()
        tb = False
        try:
            call()
            kind, msg = "returned", ""
        except SimstudyError as e:
            kind, msg = "SimstudyError", str(e)
        except BaseException as e:  # noqa: BLE001 - recorded: the sweep's finding
            kind, msg, tb = type(e).__name__, str(e), True
            traceback.print_exc()
        res = {"rc": kind, "stderr_first": msg.splitlines()[0][:300] if msg else "",
               "error_line": msg[:300], "traceback": tb, "seconds": round(time.time() - t0, 2)}
        ok = kind == "SimstudyError" and "\n" not in msg and (
            not words or any(w.lower() in msg.lower() for w in words))
        new = sorted(files(tmp) - before)
        rows.append(row("python", case, case, "SimstudyError, one line", res, ok,
                        leftovers=";".join(Path(f).name for f in new)))
        for f in new:
            q = Path(f)
            if q.is_dir():
                shutil.rmtree(q, ignore_errors=True)
            elif q.exists():
                q.unlink()
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "figures" / "sweeps" / "inputs.csv"))
    ap.add_argument("--only", default="", help="only cases whose name contains this")
    ap.add_argument("--part", default="1/1", help="K/N: every N-th case from the K-th")
    a = ap.parse_args(argv)
    part = tuple(int(x) for x in a.part.split("/"))
    meter = Meter()
    with tempfile.TemporaryDirectory(prefix="sweep-inputs-") as d:
        rows = sweep(Path(d), a.only, part, Path(a.out))
    write_csv(rows, Path(a.out))
    meter.write(Path(a.out), rows, sys.argv[1:] if argv is None else argv)
    bad = [r for r in rows if not r["named"] or r["traceback"] or r["leftovers"]]
    print(f"{len(rows)} cases ({sum(r['category'] == 'cli' for r in rows)} CLI, "
          f"{sum(r['category'] == 'python' for r in rows)} Python); {len(bad)} not as "
          f"expected; wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
