"""Weka 3.6.14 itself as a benchmark peer: ``nox -s perf-weka``.

JIT-warm Weka (one JVM that warms up, then times many fits) and our ``wnb``, ``j48`` and
``ib1`` on the same splits, side by side, written to ``figures/perf-weka.{json,md}`` with the
commit they were measured at.

What is timed
-------------
* **Per fit**: the 100 training sets of one 10×10 cv of ``credit-g`` (our design's folds,
  run 0 of the ``replicability`` study's credit-g 10×10 cv cell).  Weka: for each fold a
  new classifier, ``buildClassifier`` on the fold's training instances and
  ``classifyInstance`` on each test instance, after a warm-up of at least ``warm`` seconds
  (the JIT compiles the hot code); a timed pass repeats the 100 fits until it lasts
  ``min_pass`` seconds.  The folds' ``Instances`` are built once, before any timing (that
  favours Weka).  Ours: ``fit_predict`` on the 100 masks at once, as the runner calls it
  (a batch of 100 models in one call), and again with one mask per call (100 calls of
  one model each, as a user fitting one model calls it; Weka's fits are one per call).
* **The whole cell**: the cell's 10 runs (1000 fits per learner, three learners); Weka fits
  them one after another in the warm JVM, ours is the runner's ``compute_chunk`` (fits,
  fold losses and both tests).

Clocks: wall time, and CPU time reported separately.  Weka's CPU time is its thread's
(``ThreadMXBean``: without the JIT compiler and the garbage collector, which run in other
threads; that favours Weka too), its process CPU time is given beside it.  Our one-thread
CPU time is measured in a fresh process started with ``NUMBA_NUM_THREADS=1``, so no numba
worker exists that could spin (after a multi-threaded call, idle OpenMP workers spin and a
process clock counts them); our wall time on all numba threads in another fresh process.
Per-core ratio = Weka's thread CPU time / our one-thread CPU time; wall ratio = Weka's wall
time / our wall time on all threads.  Each repetition runs Weka and both of ours in turn;
the ratios are formed within a repetition and their median is reported, with the load
average before and after each.

Weka's predictions on the per-fit folds are compared with ours (``agree``): ``wnb`` and
``j48`` reproduce Weka's; ``ib1`` breaks distance ties its own way unless ``ties=order``.

Command line: ``python -m simstudy perf weka [--repeats 3] [--out figures/perf-weka]
[--quick] [--weka PATH]`` (``--quick``: 2 runs of the cell, shorter warm-up; a smoke test);
from Python :func:`measure`, then :func:`write`.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import SimstudyError
from .provenance import checkout

#: our learner -> (Weka class and options) of the paper's NB, C4.5 and NN
LEARNERS = {
    "wnb": "weka.classifiers.bayes.NaiveBayes",
    "j48": "weka.classifiers.trees.J48 -C 0.25 -M 2",
    "ib1": "weka.classifiers.lazy.IB1",
}
STUDY = "replicability"
SOURCE = "credit-g"
DESIGN = "10x10cv"
#: where Debian's ``weka`` package puts the jar (``WEKA_JAR`` overrides)
DEFAULT_JARS = ("/usr/share/java/weka.jar", "/usr/share/java/weka-3.6.14.jar")

JAVA = r"""
import java.io.*;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import weka.classifiers.Classifier;
import weka.core.Instance;
import weka.core.Instances;
import weka.core.Utils;

/** Times Weka learners JIT-warm on given splits in one JVM.
 *  args: data.arff fitSplits cellSplits(or -) warmSeconds minPassSeconds passes predsOut learner...
 *  A learner is "name=weka.Class -opt val"; a splits file has one "train;test" line per fold. */
public class WekaPeer {
  static ThreadMXBean tmx = ManagementFactory.getThreadMXBean();
  static com.sun.management.OperatingSystemMXBean os =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  public static void main(String[] a) throws Exception {
    Instances data = new Instances(new BufferedReader(new FileReader(a[0])));
    data.setClassIndex(data.numAttributes() - 1);
    Object[] fit = folds(data, a[1]);
    Object[] cell = a[2].equals("-") ? null : folds(data, a[2]);
    double warm = Double.parseDouble(a[3]);
    double minPass = Double.parseDouble(a[4]);
    int passes = Integer.parseInt(a[5]);
    try (PrintWriter preds = new PrintWriter(new FileWriter(a[6]))) {
      for (int L = 7; L < a.length; L++) {
        String name = a[L].substring(0, a[L].indexOf('='));
        String[] spec = Utils.splitOptions(a[L].substring(a[L].indexOf('=') + 1));
        String cls = spec[0];
        String[] opts = new String[spec.length - 1];
        System.arraycopy(spec, 1, opts, 0, opts.length);
        Instances[] tr = (Instances[]) fit[0];
        Instance[][] te = (Instance[][]) fit[1];
        int[][] out = new int[tr.length][];
        long w0 = System.nanoTime();
        int warmPasses = 0;
        while (warmPasses < 1 || System.nanoTime() - w0 < warm * 1e9) {
          run(cls, opts, tr, te, out);
          warmPasses++;
        }
        System.out.println("WARM " + name + " " + warmPasses + " " + (System.nanoTime() - w0));
        for (int p = 0; p < passes; p++) {
          long pc = os.getProcessCpuTime(), tc = tmx.getCurrentThreadCpuTime(), t = System.nanoTime();
          int fits = 0;
          do {
            run(cls, opts, tr, te, out);
            fits += tr.length;
          } while (System.nanoTime() - t < minPass * 1e9);
          t = System.nanoTime() - t;
          tc = tmx.getCurrentThreadCpuTime() - tc;
          pc = os.getProcessCpuTime() - pc;
          System.out.println("FIT " + name + " " + fits + " " + t + " " + tc + " " + pc);
        }
        for (int b = 0; b < out.length; b++) {
          StringBuilder s = new StringBuilder(name).append(' ').append(b);
          for (int v : out[b]) s.append(' ').append(v);
          preds.println(s);
        }
        if (cell != null) {
          Instances[] ctr = (Instances[]) cell[0];
          Instance[][] cte = (Instance[][]) cell[1];
          int[][] cout = new int[ctr.length][];
          long pc = os.getProcessCpuTime(), tc = tmx.getCurrentThreadCpuTime(), t = System.nanoTime();
          run(cls, opts, ctr, cte, cout);
          t = System.nanoTime() - t;
          tc = tmx.getCurrentThreadCpuTime() - tc;
          pc = os.getProcessCpuTime() - pc;
          System.out.println("CELL " + name + " " + ctr.length + " " + t + " " + tc + " " + pc);
        }
        System.out.flush();
      }
    }
  }

  /** The folds' training Instances (rows in ascending order, as our learners see them) and
   *  test instances, built once. */
  static Object[] folds(Instances data, String path) throws IOException {
    List<int[][]> splits = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new FileReader(path))) {
      String line;
      while ((line = r.readLine()) != null) {
        if (line.isBlank()) continue;
        String[] parts = line.split(";");
        splits.add(new int[][] {ints(parts[0]), ints(parts[1])});
      }
    }
    Instances[] tr = new Instances[splits.size()];
    Instance[][] te = new Instance[splits.size()][];
    for (int b = 0; b < tr.length; b++) {
      int[] r = splits.get(b)[0], s = splits.get(b)[1];
      tr[b] = new Instances(data, r.length);
      for (int i : r) tr[b].add(data.instance(i));
      te[b] = new Instance[s.length];
      for (int k = 0; k < s.length; k++) te[b][k] = data.instance(s[k]);
    }
    return new Object[] {tr, te};
  }

  static void run(String cls, String[] opts, Instances[] tr, Instance[][] te, int[][] out)
      throws Exception {
    for (int b = 0; b < tr.length; b++) {
      Classifier c = (Classifier) Class.forName(cls).getDeclaredConstructor().newInstance();
      c.setOptions(opts.clone());
      c.buildClassifier(tr[b]);
      int[] o = new int[te[b].length];
      for (int k = 0; k < o.length; k++) o[k] = (int) c.classifyInstance(te[b][k]);
      out[b] = o;
    }
  }

  static int[] ints(String s) {
    s = s.trim();
    if (s.isEmpty()) return new int[0];
    String[] f = s.split(",");
    int[] o = new int[f.length];
    for (int i = 0; i < f.length; i++) o[i] = Integer.parseInt(f[i]);
    return o;
  }
}
"""


def weka_jar(path: str | None = None) -> Path:
    """The Weka jar: ``path``, else ``$WEKA_JAR``, else Debian's; SimstudyError if none is
    there or no ``java`` is on the PATH."""
    candidates = [path] if path else [os.environ.get("WEKA_JAR"), *DEFAULT_JARS]
    for c in candidates:
        if c and Path(c).is_file():
            if shutil.which("java") is None:
                raise SimstudyError("perf-weka needs java on the PATH (Debian: apt install weka)")
            return Path(c)
    raise SimstudyError(f"no Weka jar at {path or ' or '.join(DEFAULT_JARS)!r}; set WEKA_JAR or "
                        "pass --weka (Debian: apt install weka)")


def _cell(quick: bool):
    """The study's credit-g 10x10 cv cell, its chunk (all runs, or 2 with ``quick``), the
    data and the cell's (runs, 100, n) training masks."""
    from ..catalog import get_study
    from ..planning import Chunk
    from ..trialdata import trial_data

    study = get_study(STUDY)
    cell = next(c for c in study.cells if c.source == SOURCE and c.design == DESIGN)
    runs = tuple(range(2 if quick else study.runs))
    chunk = Chunk(study.name, cell, runs, study.seed, study.alpha)
    trials = [trial_data(cell, study.seed, r) for r in runs]
    data = trials[0][0]
    train = np.stack([tr.reshape(-1, data.n) for _, tr, _ in trials])
    return chunk, data, train


def _write_splits(path: Path, train: np.ndarray) -> None:
    with path.open("w") as f:
        for m in train:
            f.write(",".join(map(str, np.flatnonzero(m))) + ";"
                    + ",".join(map(str, np.flatnonzero(~m))) + "\n")


def run_weka(jar: Path, data: Any, fit_train: np.ndarray, cell_train: np.ndarray | None, *,
             warm: float, min_pass: float, passes: int) -> dict[str, Any]:
    """Run :data:`JAVA` once: per learner, µs per fit (wall, thread CPU, process CPU) of
    each timed pass on ``fit_train``, one pass over ``cell_train``, and the predictions on
    the ``fit_train`` folds (``preds[name]``: (B, n), -1 outside the test rows)."""
    from .arff import to_arff

    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "WekaPeer.java").write_text(JAVA)
        (d / "data.arff").write_text(to_arff(data), encoding="utf-8")
        _write_splits(d / "fit.txt", fit_train)
        if cell_train is not None:
            _write_splits(d / "cell.txt", cell_train)
        cmd = ["java", "-cp", str(jar), str(d / "WekaPeer.java"), str(d / "data.arff"),
               str(d / "fit.txt"), str(d / "cell.txt") if cell_train is not None else "-",
               str(warm), str(min_pass), str(passes), str(d / "preds.txt"),
               *(f"{k}={v}" for k, v in LEARNERS.items())]
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
        if res.returncode != 0:
            raise SimstudyError(f"Weka run failed ({res.returncode}): {res.stderr.strip()[-500:]}")
        out: dict[str, Any] = {k: {"fit": [], "cell": None} for k in LEARNERS}
        for line in res.stdout.splitlines():
            f = line.split()
            if f and f[0] in ("FIT", "CELL"):
                fits, wall, tcpu, pcpu = int(f[2]), int(f[3]), int(f[4]), int(f[5])
                row = {"fits": fits, "wall_us": wall / 1e3 / fits, "cpu_us": tcpu / 1e3 / fits,
                       "process_cpu_us": pcpu / 1e3 / fits}
                if f[0] == "FIT":
                    out[f[1]]["fit"].append(row)
                else:
                    out[f[1]]["cell"] = {**row, "wall_s": wall / 1e9, "cpu_s": tcpu / 1e9,
                                         "process_cpu_s": pcpu / 1e9}
            elif f and f[0] == "WARM":
                out[f[1]]["warm_passes"] = int(f[2])
        preds = {k: np.full(fit_train.shape, -1, dtype=np.int64) for k in LEARNERS}
        for line in (d / "preds.txt").read_text().splitlines():
            f = line.split()
            b = int(f[1])
            preds[f[0]][b, ~fit_train[b]] = np.array(f[2:], dtype=np.int64)
        for k in LEARNERS:
            out[k]["preds"] = preds[k]
    return out


# --- our side, in a fresh process per thread count ------------------------------------------

def _ours(threads: int, quick: bool, reps: int) -> dict[str, Any]:
    """Our per-fit and whole-cell times in this process (run by :func:`ours` in a fresh
    one whose numba thread count is fixed before numba starts)."""
    from ..learners import get_learner
    from ..runner import compute_chunk

    chunk, data, train = _cell(quick)
    fit = train[0]
    res: dict[str, Any] = {"threads": threads, "learners": {}}
    clock_cpu = time.process_time
    for name in LEARNERS:
        learner = get_learner(name).prepare(data)
        learner.fit_predict(data.X, data.y, fit[:2], ~fit[:2])  # warm-up: JIT cache, imports
        walls, cpus = [], []
        for _ in range(reps):
            c0, t0 = clock_cpu(), time.perf_counter()
            learner.fit_predict(data.X, data.y, fit, ~fit)
            walls.append(time.perf_counter() - t0)
            cpus.append(clock_cpu() - c0)
        B = len(fit)
        # one fit per call, as a user fitting one model calls it: the same B folds, B calls
        swalls, scpus = [], []
        for _ in range(max(1, reps // 2)):
            c0, t0 = clock_cpu(), time.perf_counter()
            for b in range(B):
                learner.fit_predict(data.X, data.y, fit[b:b + 1], ~fit[b:b + 1])
            swalls.append(time.perf_counter() - t0)
            scpus.append(clock_cpu() - c0)
        res["learners"][name] = {"wall_us": 1e6 * statistics.median(walls) / B,
                                 "cpu_us": 1e6 * statistics.median(cpus) / B,
                                 "best_wall_us": 1e6 * min(walls) / B, "best_cpu_us": 1e6 * min(cpus) / B,
                                 "single_wall_us": 1e6 * statistics.median(swalls) / B,
                                 "single_cpu_us": 1e6 * statistics.median(scpus) / B}
    from ..planning import Chunk

    compute_chunk(Chunk(chunk.study, chunk.cell, chunk.runs[:1], chunk.seed, chunk.alpha))  # warm-up
    c0, t0 = clock_cpu(), time.perf_counter()
    compute_chunk(chunk)
    res["cell"] = {"wall_s": time.perf_counter() - t0, "cpu_s": clock_cpu() - c0,
                   "fits": int(train.shape[0] * train.shape[1]) * len(LEARNERS)}
    return res


def ours(threads: int | None, quick: bool, reps: int) -> dict[str, Any]:
    """:func:`_ours` in a fresh Python process with ``NUMBA_NUM_THREADS=threads`` (None:
    numba's default) and one BLAS thread."""
    env = dict(os.environ)
    if threads is not None:
        env["NUMBA_NUM_THREADS"] = str(threads)
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    code = ("import json, sys; from simstudy.perf.weka_peer import _ours; "
            f"print('RESULT ' + json.dumps(_ours({threads or 0}, {quick!r}, {reps})))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=3600)
    line = next((x for x in res.stdout.splitlines() if x.startswith("RESULT ")), None)
    if res.returncode != 0 or line is None:
        raise SimstudyError(f"timing process failed ({res.returncode}): {res.stderr.strip()[-500:]}")
    out = json.loads(line[7:])
    if threads is None:
        import numba

        out["threads"] = numba.config.NUMBA_NUM_THREADS
    return out


# --- the benchmark ----------------------------------------------------------------------------

#: the code a measurement runs (local changes elsewhere in the tree are listed, not flagged)
MEASURED = ("simstudy/learners/weka/", "simstudy/learners/trees/", "simstudy/perf/", "simstudy/runner.py")


def _machine() -> dict[str, Any]:
    cpu = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "java": java[0] if java else None}


def measure(repeats: int = 3, quick: bool = False, jar: str | None = None,
            echo: bool = True) -> dict[str, Any]:
    """The whole benchmark: ``repeats`` × (Weka, ours on one thread, ours on all threads).

    Returns a JSON-ready dict: per repetition the raw numbers and the load averages, per
    learner and for the cell the medians of the times and of the ratios.

    Examples
    --------
    >>> measure(0)
    Traceback (most recent call last):
    ...
    simstudy.errors.SimstudyError: repeats must be a positive integer, got 0
    """
    from ..params import POSITIVE_INT, check

    check("repeats", repeats, POSITIVE_INT)
    jar_path = weka_jar(jar)
    chunk, data, train = _cell(quick)
    fit = train[0]
    cell_train = train.reshape(-1, data.n)
    reps = []
    for r in range(repeats):
        load0 = os.getloadavg()
        w = run_weka(jar_path, data, fit, cell_train, warm=1.0 if quick else 3.0,
                     min_pass=0.3 if quick else 1.0, passes=3 if quick else 5)
        one = ours(1, quick, 3 if quick else 7)
        many = ours(None, quick, 3 if quick else 7)
        load1 = os.getloadavg()
        rep = {"load_before": load0, "load_after": load1, "weka": {}, "ours_1": one, "ours_n": many}
        for k in LEARNERS:
            fits = w[k]["fit"]
            rep["weka"][k] = {
                "wall_us": statistics.median(x["wall_us"] for x in fits),
                "cpu_us": statistics.median(x["cpu_us"] for x in fits),
                "process_cpu_us": statistics.median(x["process_cpu_us"] for x in fits),
                "passes": fits, "warm_passes": w[k].get("warm_passes"), "cell": w[k]["cell"]}
            if r == 0:
                rep["weka"][k]["preds"] = w[k]["preds"]
        reps.append(rep)
        if echo:
            print(f"repetition {r + 1}/{repeats}: load {load0[0]:.1f} -> {load1[0]:.1f}; " + "; ".join(
                f"{k} Weka {rep['weka'][k]['cpu_us']:,.0f} us CPU vs ours {one['learners'][k]['cpu_us']:,.0f}"
                for k in LEARNERS), flush=True)
    # agreement with Weka's predictions on the per-fit folds (after all timing)
    from ..learners import get_learner

    agree = {}
    for k in LEARNERS:
        weka_pred = reps[0]["weka"][k].pop("preds")
        pred = get_learner(k).prepare(data).fit_predict(data.X, data.y, fit, ~fit)
        test = ~fit
        agree[k] = {"same": int(np.sum(pred[test] == weka_pred[test])), "of": int(test.sum())}
    for rep in reps[1:]:
        for k in LEARNERS:
            rep["weka"][k].pop("preds", None)
    return {"summary": summarise(reps), "agree": agree, "repetitions": reps,
            "setup": {"study": STUDY, "cell": chunk.cell.id, "seed": chunk.seed,
                      "runs": len(chunk.runs), "fits_per_learner_per_fit_phase": int(len(fit)),
                      "n": int(data.n), "quick": quick, "jar": str(jar_path),
                      "weka_classes": LEARNERS},
            "machine": _machine(), **checkout(MEASURED), "date": time.strftime("%Y-%m-%d %H:%M:%S %z")}


def summarise(reps: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians over the repetitions of each time and of each within-repetition ratio."""
    med = statistics.median
    out: dict[str, Any] = {"learners": {}}
    for k in LEARNERS:
        rows = [(rp["weka"][k], rp["ours_1"]["learners"][k], rp["ours_n"]["learners"][k]) for rp in reps]
        out["learners"][k] = {
            "weka_wall_us": med(w["wall_us"] for w, _, _ in rows),
            "weka_cpu_us": med(w["cpu_us"] for w, _, _ in rows),
            "weka_process_cpu_us": med(w["process_cpu_us"] for w, _, _ in rows),
            "ours_cpu_us_1_thread": med(o["cpu_us"] for _, o, _ in rows),
            "ours_wall_us_1_thread": med(o["wall_us"] for _, o, _ in rows),
            "ours_wall_us": med(m["wall_us"] for _, _, m in rows),
            "ours_cpu_us": med(m["cpu_us"] for _, _, m in rows),
            "ratio_per_core": med(w["cpu_us"] / o["cpu_us"] for w, o, _ in rows),
            "ratio_wall": med(w["wall_us"] / m["wall_us"] for w, _, m in rows),
            "ratios_per_core": [w["cpu_us"] / o["cpu_us"] for w, o, _ in rows],
        }
        if all("single_cpu_us" in o for _, o, _ in rows):  # one fit per call (later runs)
            out["learners"][k].update({
                "ours_single_cpu_us_1_thread": med(o["single_cpu_us"] for _, o, _ in rows),
                "ours_single_wall_us_1_thread": med(o["single_wall_us"] for _, o, _ in rows),
                "ratio_per_core_single": med(w["cpu_us"] / o["single_cpu_us"] for w, o, _ in rows),
            })
    cells = []
    for rp in reps:
        wk = [rp["weka"][k]["cell"] for k in LEARNERS]
        cells.append({"weka_wall_s": sum(c["wall_s"] for c in wk), "weka_cpu_s": sum(c["cpu_s"] for c in wk),
                      "ours_cpu_s_1_thread": rp["ours_1"]["cell"]["cpu_s"],
                      "ours_wall_s_1_thread": rp["ours_1"]["cell"]["wall_s"],
                      "ours_wall_s": rp["ours_n"]["cell"]["wall_s"], "ours_cpu_s": rp["ours_n"]["cell"]["cpu_s"]})
    out["cell"] = {key: med(c[key] for c in cells) for key in cells[0]}
    out["cell"]["ratio_per_core"] = med(c["weka_cpu_s"] / c["ours_cpu_s_1_thread"] for c in cells)
    out["cell"]["ratio_wall"] = med(c["weka_wall_s"] / c["ours_wall_s"] for c in cells)
    out["threads"] = reps[0]["ours_n"]["threads"]
    out["load"] = [round(x, 2) for rp in reps for x in (rp["load_before"][0], rp["load_after"][0])]
    return out


def markdown(res: dict[str, Any]) -> str:
    """``figures/perf-weka.md``: the summary table and how it was measured."""
    s = res["summary"]
    th = s["threads"]
    commit = res.get("commit") or "unknown"
    lines = [
        "# Weka 3.6.14 beside `wnb`, `j48`, `ib1` (credit-g, 10×10 cv)",
        "",
        f"Measured by `nox -s perf-weka` (`python -m simstudy perf weka`) at commit `{commit[:12]}`"
        + (" with local changes to the measured code" if res.get("dirty") else "") + f", {res['date']}; "
        f"{res['machine']['cores']} cores ({res['machine']['cpu']}), {res['machine']['java']}; "
        f"load average {min(s['load']):.1f}–{max(s['load']):.1f} during the run "
        f"(other jobs share the machine: the ratios, measured side by side, are what count).",
        "",
        f"Median of {len(res['repetitions'])} repetitions, each Weka then ours in turn; "
        "µs per fit on the 100 folds of one 10×10 cv (900 training, 100 test rows each); "
        "ours fits the 100 folds as a batch of 100 models in one call.",
        "",
        f"| learner | Weka wall | Weka CPU | ours CPU, 1 thread | ours wall, {th} threads "
        "| × per core (CPU) | × wall | same predictions as Weka |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for k, v in s["learners"].items():
        a = res["agree"][k]
        lines.append(f"| `{k}` | {v['weka_wall_us']:,.0f} | {v['weka_cpu_us']:,.0f} | "
                     f"{v['ours_cpu_us_1_thread']:,.0f} | {v['ours_wall_us']:,.0f} | "
                     f"**{v['ratio_per_core']:.1f}** | {v['ratio_wall']:.1f} | "
                     f"{a['same']:,} / {a['of']:,} |")
    single = {k: v for k, v in s["learners"].items() if "ratio_per_core_single" in v}
    if single:
        lines += ["", "One fit per call (the same 100 folds, 100 calls of one model each, one "
                  "thread): µs per fit and the ratio to Weka's per-fit CPU time.", "",
                  "| learner | ours CPU, one fit per call | ours wall | × per core (CPU) |",
                  "|---|---:|---:|---:|"]
        lines += [f"| `{k}` | {v['ours_single_cpu_us_1_thread']:,.0f} | "
                  f"{v['ours_single_wall_us_1_thread']:,.0f} | "
                  f"**{v['ratio_per_core_single']:.1f}** |" for k, v in single.items()]
    c = s["cell"]
    runs = res["setup"]["runs"]
    lines += [
        "",
        f"The whole cell `{res['setup']['cell']}` ({runs} runs: {runs * 100:,} fits per learner, "
        "three learners): Weka fits them in the warm JVM, ours is the runner's `compute_chunk` "
        "(fits, fold losses, both tests).",
        "",
        f"| | Weka wall | Weka CPU | ours CPU, 1 thread | ours wall, {th} threads | × per core (CPU) | × wall |",
        "|---|---:|---:|---:|---:|---:|---:|",
        f"| cell, seconds | {c['weka_wall_s']:.2f} | {c['weka_cpu_s']:.2f} | {c['ours_cpu_s_1_thread']:.2f} | "
        f"{c['ours_wall_s']:.2f} | **{c['ratio_per_core']:.1f}** | {c['ratio_wall']:.1f} |",
        "",
        "Weka's CPU time is its thread's (without JIT compilation and garbage collection, "
        "which run in other threads); its process CPU time per fit was "
        + ", ".join(f"`{k}` {v['weka_process_cpu_us']:,.0f} µs" for k, v in s["learners"].items())
        + ". Weka's folds are built once before timing; each fit makes a new classifier, "
        "builds it and classifies the fold's test instances. Our one-thread CPU time comes "
        "from a fresh process with `NUMBA_NUM_THREADS=1` (no numba worker can spin), our wall "
        f"time on {th} threads from another. `ib1` breaks distance ties at random per model "
        "(Weka's Experimenter shuffles each training fold); `ib1[ties=order]` reproduces "
        "Weka's file-order runs exactly.",
        "",
        "Per-core ratios of the repetitions: " + "; ".join(
            f"`{k}` " + ", ".join(f"{x:.1f}" for x in v["ratios_per_core"]) for k, v in s["learners"].items())
        + ". Raw numbers: `perf-weka.json`.",
        "",
    ]
    return "\n".join(lines)


def write(res: dict[str, Any], stem: str | Path) -> tuple[Path, Path]:
    """Write ``<stem>.json`` and ``<stem>.md``."""
    stem = Path(stem)
    js, md = stem.with_suffix(".json"), stem.with_suffix(".md")
    js.write_text(json.dumps(res, indent=1, default=float) + "\n")
    md.write_text(markdown(res))
    return js, md

