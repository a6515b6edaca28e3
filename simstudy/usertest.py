"""One adapter for a user's test: load it, read what it declares, call it, check what it returns.

``bench`` (two learners and K learners) and ``card`` call a user's function only through
:class:`UserTest`, so the rules below hold everywhere:

* **Loading**: ``MODULE:FUNCTION`` (imported from the current directory too) or
  ``path/to/file.py:FUNCTION``; a callable passes through.
* **Two kinds.** A *pairwise test* ``f(d, *, n_train, n_test[, losses])``: ``d`` the (R, F)
  fold differences of error rates, learner a minus learner b; it returns the shape of
  :class:`simstudy.stats.TestResult` (scipy's: ``.statistic``, ``.pvalue``, optionally
  ``confidence_interval()``) or a ``(statistic, pvalue)`` tuple, or the p-value alone;
  optionally a confidence interval for the difference in error, as
  ``(statistic, pvalue, (low, high))`` or an attribute ``ci = (low, high)``.  A *choice method* ``g(errors, *, alpha)``:
  ``errors`` one trial's (K, R, F) fold error rates; it returns the index of the best
  learner or ``None`` (a ``(best, order)`` tuple is accepted).
* **Declarations** (attributes of the function, all optional):
  ``f.designs`` -- design names or kinds it reads (``{"5x2"}``); undeclared, a cell is
  *probed*: a ``ValueError`` or ``IndexError`` on its first trial (or on the one call of a
  vectorised function) skips the cell, with the reason reported.  (Why probing and not
  "undeclared fits everything": a first function rarely declares designs, and a 5x2-only
  test should run on the 5x2 cells of a study and say which cells it skipped, not stop at
  the first 10x10 cell.)
  ``f.needs = "losses"`` -- it also gets ``losses``, int8 (2, R, F, n) per-instance 0/1 losses
  of the pair, -1 off the fold's test positions; cells whose trials did not keep them are
  skipped with a note.
  ``f.vectorized = True`` -- called once per cell with ``d`` (T, R, F), ``n_train`` and
  ``n_test`` (T,) (each trial's mean fold size) and ``losses`` (T, 2, R, F, n); it returns
  arrays of T statistics and p-values (and intervals); a choice method gets (T, K, R, F)
  and returns T indices, -1 for none.
  ``f.confidence`` -- the level of the intervals it returns (default 0.95).
* **A third kind, an interval method** ``g(fold_losses, design, a, b)``, called as the
  registered interval methods are (:mod:`simstudy.stats.interval_registry`): one trial's
  :class:`~simstudy.core.FoldLosses`, the :class:`~simstudy.designs.Design` that produced
  them, learner ``a`` and ``b`` (None: learner a's error; else the difference a - b).  It
  returns ``(low, high)`` at its declared ``g.confidence`` (default: the card's level), or
  an object with ``confidence_interval(level)`` (an
  :class:`~simstudy.stats.intervals.IntervalResult`), called at the card's level.  A bound
  that is NaN or infinite, or ``low > high``, is an error naming the cell and the run;
  ``g.designs`` and probing work as for a test (:mod:`simstudy.intervalcard`).
* **Errors**, one ladder: a wrong signature, a return value that is not a p-value in
  [0, 1] (NaN included: an undefined statistic must give p = 1; a bool or a text is not a
  number), any exception other than a probe's, or a call of ``sys.exit`` is a
  :class:`~simstudy.errors.SimstudyError` naming the cell and the run; Ctrl-C (or a
  ``KeyboardInterrupt`` the function raises) is an :class:`~simstudy.errors.Interrupted`
  naming them.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import numbers
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .errors import Interrupted, SimstudyError
from .spec import parse_spec

if TYPE_CHECKING:
    from .store import TrialReader
    from .study import Study

KINDS = ("pairwise", "choice", "interval")
SIGNATURES = {"pairwise": "f(d, *, n_train, n_test)", "choice": "g(errors, *, alpha)",
              "interval": "g(fold_losses, design, a, b)"}
#: exceptions of a probe (an undeclared function's first call on a cell) that mean "this
#: function does not read this design": the cell is skipped, with the reason reported
PROBE_ERRORS = (ValueError, IndexError)


def load_function(path: str, option: str = "--test") -> Callable:
    """Import ``package.module:function``, or ``path/to/file.py:function``.

    >>> load_function("math:sqrt")(4.0)
    2.0
    """
    if not isinstance(path, str) or ":" not in path:
        raise SimstudyError(f"{option} expects MODULE:FUNCTION or path/to/file.py:FUNCTION, "
                            f"got {path!r}")
    mod_name, fn_name = path.rsplit(":", 1)
    try:
        if mod_name.endswith(".py"):
            p = Path(mod_name)
            if not p.is_file():
                raise FileNotFoundError(f"no file {mod_name!r}")
            spec = importlib.util.spec_from_file_location(f"_simstudy_user_test_{p.stem}", p)
            if spec is None or spec.loader is None:
                raise ImportError(mod_name)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
        else:
            if "" not in sys.path and os.getcwd() not in sys.path:
                sys.path.insert(0, os.getcwd())  # a console script does not add it
            mod = importlib.import_module(mod_name)
    except (ImportError, FileNotFoundError) as e:
        raise SimstudyError(f"cannot import module {mod_name!r} for {option} {path!r}: {e}") from None
    except Exception as e:  # noqa: BLE001 - the user's module failed while importing
        raise SimstudyError(f"module {mod_name!r} ({option} {path!r}) raised while importing: "
                            f"{type(e).__name__}: {e}") from None
    fn = getattr(mod, fn_name, None)
    if not callable(fn):
        raise SimstudyError(f"module {mod_name!r} has no function {fn_name!r} ({option} {path!r})")
    return fn


@dataclass
class Output:
    """What a pairwise test returned on one cell's trials: arrays of T values."""

    statistic: np.ndarray
    pvalue: np.ndarray
    ci_low: np.ndarray | None = None
    ci_high: np.ndarray | None = None


@dataclass
class UserTest:
    """A user's test with its declarations read once (see the module doc).

    >>> def f(d, *, n_train, n_test):
    ...     return 0.0, 0.5
    >>> f.designs = {"5x2"}
    >>> t = UserTest.of(f)
    >>> t.name, t.fits("5x2"), t.fits("10x10"), t.vectorized, t.needs_losses
    ('f', True, False, False, False)
    """

    fn: Callable
    name: str
    kind: str = "pairwise"
    designs: frozenset[str] | None = None
    needs_losses: bool = False
    vectorized: bool = False
    confidence: float = 0.95
    #: an interval method's declared ``g.confidence`` (None: undeclared)
    declared_confidence: float | None = None

    @classmethod
    def of(cls, test: Callable | str | UserTest, *, name: str | None = None,
           kind: str = "pairwise") -> UserTest:
        """Load ``test`` (a callable, ``MODULE:FUNCTION`` or ``file.py:FUNCTION``), read its
        declarations and check its signature; ``name`` defaults to the function's name."""
        if kind not in KINDS:
            raise SimstudyError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
        if isinstance(test, UserTest):
            if test.kind != kind:
                raise SimstudyError(f"{test.name!r} was loaded as a {test.kind} function, not "
                                    f"as {kind!r}")
            if name is not None and name != test.name:
                return UserTest(test.fn, name, test.kind, test.designs, test.needs_losses,
                                test.vectorized, test.confidence, test.declared_confidence)
            return test
        if isinstance(test, str):
            fn = load_function(test, "--interval" if kind == "interval" else "--test")
            default = test.rsplit(":", 1)[1]
        elif callable(test):
            fn, default = test, getattr(test, "__name__", "new")
        else:
            raise SimstudyError(f"a test must be a function or 'MODULE:FUNCTION', got {test!r:.80}")
        name = default if name is None else name
        if not isinstance(name, str) or not name:
            raise SimstudyError(f"the test's name must be a non-empty string, got {name!r}")
        t = cls(fn, name, kind, _designs(fn), _needs(fn), _flag(fn, "vectorized"),
                _confidence(fn),
                _confidence(fn) if getattr(fn, "confidence", None) is not None else None)
        t.check_signature()
        return t

    # --- declarations -----------------------------------------------------------------
    def fits(self, design: str) -> bool | None:
        """True / False when ``f.designs`` says, None when undeclared (probe the cell)."""
        if self.designs is None:
            return None
        return design in self.designs or parse_spec(design)[0] in self.designs

    def check_signature(self) -> None:
        """The function must accept the call it will get; one line saying which if not."""
        if self.kind == "choice":
            args, kw = (np.zeros((2, 5, 2)),), {"alpha": 0.05}
        elif self.kind == "interval":
            args, kw = (None, None, 0, None), {}
        else:
            args = (np.zeros((5, 2)),)
            kw = {"n_train": 1.0, "n_test": 1.0}
            if self.needs_losses:
                kw["losses"] = np.zeros((2, 5, 2, 1), dtype=np.int8)
        try:
            inspect.signature(self.fn).bind(*args, **kw)
        except TypeError as e:
            call = SIGNATURES[self.kind]
            if self.needs_losses:
                call = call[:-1] + ", losses)"
            raise SimstudyError(f"{self.noun} function {self.name!r} cannot be called as "
                                f"{call}: {e}") from None
        except ValueError:
            pass  # no signature available (a builtin): find out when calling it

    @property
    def noun(self) -> str:
        """What the function is, in messages: "test" or "interval"."""
        return "interval" if self.kind == "interval" else "test"

    # --- calling an interval method ---------------------------------------------------
    def interval(self, fl: object, design: object, a: int, b: int | None, level: float, *,
                 where: str, probe: bool = False, skipped: list | None = None
                 ) -> tuple[float, float] | None:
        """The interval method on one trial: ``(low, high)`` at ``level`` (its declared
        ``g.confidence`` when it returns a pair), checked: finite bounds, ``low <= high``;
        else one line naming the function and ``where`` (cell and run).  None when a probe
        says the design does not fit (the reason is appended to ``skipped``)."""
        out = self._call_args((fl, design, a, b), {}, where, probe, skipped)
        if out is _SKIP:
            return None
        if hasattr(out, "confidence_interval") and callable(out.confidence_interval):
            try:
                out = out.confidence_interval(level)
            except SimstudyError as e:  # e.g. a non-finite interval: name the cell and run
                raise SimstudyError(f"the interval function {self.name!r} on {where}: "
                                    f"{e}") from None
            except Exception as e:  # noqa: BLE001 - the user's code: one line
                raise SimstudyError(f"the interval function {self.name!r} raised on {where} "
                                    f"in confidence_interval({level!r}): "
                                    f"{type(e).__name__}: {e}") from None
        if hasattr(out, "low") and hasattr(out, "high"):
            out = (out.low, out.high)
        try:
            lo, hi = out  # type: ignore[misc]
            lo_, hi_ = _real(lo), _real(hi)
        except (TypeError, ValueError):
            lo_ = hi_ = None
        if lo_ is None or hi_ is None:
            raise SimstudyError(f"the interval function {self.name!r} returned {out!r:.80} on "
                                f"{where}; it must return (low, high), two numbers, or an "
                                "object with confidence_interval(level)")
        if not (np.isfinite(lo_) and np.isfinite(hi_)):
            raise SimstudyError(f"the interval function {self.name!r} returned a non-finite "
                                f"bound ({lo_!r}, {hi_!r}) on {where}; both bounds must be "
                                "finite numbers")
        if lo_ > hi_:
            raise SimstudyError(f"the interval function {self.name!r} returned low {lo_!r} > "
                                f"high {hi_!r} on {where}; it must return (low, high) with "
                                "low <= high")
        return lo_, hi_

    # --- calling a pairwise test ------------------------------------------------------
    def pvalues(self, d: np.ndarray, n_train: np.ndarray, n_test: np.ndarray, *,
                runs: np.ndarray, where: str, losses: list | None = None,
                skipped: list | None = None, progress=None) -> Output | None:
        """The test on one cell's trials: ``d`` (T, R, F), ``n_train``, ``n_test`` (T,)
        mean fold sizes, ``runs`` (T,) for messages, ``losses`` per trial (2, R, F, n) when
        the test needs them.  None when a probe says the cell does not fit (the reason is
        appended to ``skipped``); ``progress`` (a tqdm bar or None) advances by trials."""
        T = d.shape[0]
        probe = self.designs is None
        if self.vectorized:
            kw = {"n_train": n_train, "n_test": n_test}
            if losses is not None:
                if len({x.shape for x in losses}) != 1:
                    raise SimstudyError(f"{where}: trials hold per-instance losses of different "
                                        "sizes; a vectorised function cannot take them stacked "
                                        "(drop f.vectorized to get them trial by trial)")
                kw["losses"] = np.stack(losses)
            out = self._call(d, kw, where, probe, skipped)
            if progress is not None:
                progress.update(T)
            return None if out is _SKIP else self._vector_out(out, T, where, runs)
        stat, p = np.empty(T), np.empty(T)
        lo = hi = None
        done, due = 0, time.monotonic() + 0.5
        for i in range(T):  # a scalar function: one call per trial
            kw = {"n_train": float(n_train[i]), "n_test": float(n_test[i])}
            if losses is not None:
                kw["losses"] = losses[i]
            w = f"{where}, run {int(runs[i])}"
            try:
                out = self._call(d[i], kw, w, probe and i == 0, skipped)
            except Interrupted as e:
                e.done = i  # trials of this call finished: the caller says how far it got
                raise
            if out is _SKIP:
                return None
            s, pv, ci = self._scalar_out(out, w)
            stat[i], p[i] = s, pv
            if ci is not None:
                if lo is None:
                    lo, hi = np.full(T, np.nan), np.full(T, np.nan)
                lo[i], hi[i] = ci
            # the bar moves at least twice a second (a slow function shows it is alive at
            # once) and at most every 256 trials (a fast one pays little for it)
            if progress is not None and (i - done >= 255 or time.monotonic() > due):
                progress.update(i + 1 - done)
                done, due = i + 1, time.monotonic() + 0.5
        if progress is not None:
            progress.update(T - done)
        return Output(stat, p, lo, hi)

    def _call(self, x, kw: dict, where: str, probe: bool, skipped: list | None):
        return self._call_args((x,), kw, where, probe, skipped)

    def _call_args(self, args: tuple, kw: dict, where: str, probe: bool,
                   skipped: list | None):
        noun = self.noun
        try:
            return self.fn(*args, **kw)
        except KeyboardInterrupt:  # Ctrl-C (or the function raised it): say where it stopped
            stop = Interrupted(f"stopped in the {noun} function {self.name!r} on {where}; "
                               "nothing is stored: rerun to start again")
            stop.where = f"in the {noun} function {self.name!r} on {where}"
            raise stop from None
        except SystemExit as e:
            raise SimstudyError(f"the {noun} function called sys.exit({e.code!r}) on {where}; "
                                f"a {noun} must return "
                                f"{'an interval' if noun == 'interval' else 'a p-value'}, "
                                "not end the program") from None
        except PROBE_ERRORS as e:
            if probe:
                if skipped is not None:
                    skipped.append(f"{type(e).__name__}: {e}")
                return _SKIP
            raise SimstudyError(f"the {noun} function raised on {where}: "
                                f"{type(e).__name__}: {e}") from None
        except Exception as e:  # noqa: BLE001 - the user's code: one line
            raise SimstudyError(f"the {noun} function raised on {where}: "
                                f"{type(e).__name__}: {e}") from None

    def _fields(self, out: object, where: str, vector: bool) -> tuple[object, object, object]:
        """``(statistic, pvalue, interval)`` as returned, the one reading of the output
        protocol: a result with ``.pvalue`` (``.statistic``, an interval as ``ci`` or
        scipy's ``confidence_interval()``), a ``(statistic, pvalue[, (low, high)])``
        tuple, or the p-value alone (a number; arrays of them when vectorised)."""
        if hasattr(out, "pvalue"):
            return getattr(out, "statistic", None), out.pvalue, _ci_attr(out, self)
        if isinstance(out, tuple) and len(out) in (2, 3):
            return out[0], out[1], out[2] if len(out) == 3 else None
        if (isinstance(out, np.ndarray) and vector) or _real(out) is not None:
            return None, out, None
        what = "the vectorised test function" if vector else "the test function"
        raise SimstudyError(
            f"{what} returned {out!r:.80} on {where}; it must return a result with .statistic "
            f"and .pvalue (as scipy's), a (statistic, pvalue) tuple or the p-value"
            + (" (arrays of T values)" if vector else ""))

    def _scalar_out(self, out: object, where: str) -> tuple[float, float, tuple | None]:
        stat, p, ci = self._fields(out, where, vector=False)
        p_, stat_ = _real(p), np.nan if stat is None else _real(stat)
        if p_ is None:
            raise SimstudyError(f"the test function returned the p-value {p!r:.80} "
                                f"({type(p).__name__}) on {where}; it must be a number in "
                                "[0, 1] (a float; not a bool or a text)")
        if stat_ is None:
            raise SimstudyError(f"the test function returned the statistic {stat!r:.80} "
                                f"({type(stat).__name__}) on {where}; it must be a number "
                                "(or None)")
        p, stat = p_, stat_
        if not 0.0 <= p <= 1.0:  # also catches NaN
            raise SimstudyError(f"the test function returned p = {p!r} on {where}; a p-value "
                                "must be a number in [0, 1] (use p = 1 for an undefined "
                                "statistic)")
        if ci is not None:
            ci = _pair(ci, where)
        return stat, p, ci

    def _vector_out(self, out: object, T: int, where: str, runs: np.ndarray) -> Output:
        stat, p, ci = self._fields(out, where, vector=True)
        try:
            p_in = np.asarray(p).reshape(-1)
        except (TypeError, ValueError):
            raise SimstudyError(f"the vectorised test function returned non-numeric p-values "
                                f"on {where}") from None
        if p_in.dtype.kind not in "fiu":  # bools, texts, objects: not p-values
            bad = [i for i, v in enumerate(p_in.tolist()) if _real(v) is None]
            i = bad[0] if bad else 0
            run = f", run {int(runs[i])}" if p_in.size == T else ""
            raise SimstudyError(f"the vectorised test function returned p-values of type "
                                f"{p_in.dtype} on {where}{run} (e.g. {p_in[i]!r:.40}); they "
                                "must be numbers in [0, 1] (floats; not bools or texts)")
        try:
            p = p_in.astype(float)
            stat = np.asarray(np.nan if stat is None else stat, dtype=float)
            stat = np.broadcast_to(stat, (T,)).copy() if stat.size in (1, T) else stat.reshape(-1)
        except (TypeError, ValueError):
            raise SimstudyError(f"the vectorised test function returned non-numeric p-values "
                                f"on {where}") from None
        if p.shape != (T,) or stat.shape != (T,):
            raise SimstudyError(f"the vectorised test function returned {p.size} p-values for "
                                f"{T} trials on {where}; it must return one per trial")
        bad = ~((p >= 0) & (p <= 1))
        if bad.any():
            i = int(np.argmax(bad))
            raise SimstudyError(f"the vectorised test function returned p = {p[i]!r} on "
                                f"{where}, run {int(runs[i])}; a p-value must be a number in "
                                "[0, 1] (use p = 1 for an undefined statistic)")
        lo = hi = None
        if ci is not None:
            try:
                lo, hi = (np.broadcast_to(np.asarray(x, dtype=float), (T,)).copy() for x in ci)
            except (TypeError, ValueError):
                raise SimstudyError(f"the vectorised test function returned an interval that "
                                    f"is not two arrays of {T} bounds on {where}") from None
        return Output(stat, p, lo, hi)

    # --- calling a choice method ------------------------------------------------------
    def choose(self, errors: np.ndarray, alpha: float, *, runs: np.ndarray, where: str,
               skipped: list | None = None, progress=None) -> np.ndarray | None:
        """The method on one cell's trials, ``errors`` (T, K, R, F): the chosen learner per
        trial (T,) int64, -1 for none; None when a probe says the cell does not fit."""
        T, K = errors.shape[:2]
        probe = self.designs is None
        if self.vectorized:
            out = self._call(np.array(errors, dtype=np.float64), {"alpha": alpha}, where,
                             probe, skipped)
            if out is _SKIP:
                return None
            if progress is not None:
                progress.update(T)
            try:
                best = np.array([-1 if b is None else b for b in np.asarray(out, dtype=object)
                                 .reshape(-1)])
            except (TypeError, ValueError):
                best = np.array([out], dtype=object)
            if best.shape != (T,):
                raise SimstudyError(f"the vectorised choice function returned {best.size} "
                                    f"choices for {T} trials on {where}")
            return np.array([_best(b, K, f"{where}, run {int(r)}", vector=True)
                             for b, r in zip(best, runs, strict=True)], dtype=np.int64)
        out_ = np.empty(T, dtype=np.int64)
        for i in range(T):  # a copy of the errors: g may scribble on it
            w = f"{where}, run {int(runs[i])}"
            out = self._call(np.array(errors[i], dtype=np.float64), {"alpha": alpha}, w,
                             probe and i == 0, skipped)
            if out is _SKIP:
                return None
            out_[i] = _best(out, K, w)
            if progress is not None:
                progress.update(1)
        return out_


_SKIP = object()


def _real(v: object) -> float | None:
    """``v`` as a float if it is a real number (numpy's too, or a 0-d array of one); None
    for a bool, a text, None or anything else: ``True`` is not a p-value of 1."""
    if isinstance(v, np.ndarray) and v.ndim == 0:
        v = v[()]
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
        return None
    return float(v)


def _best(out: object, K: int, where: str, vector: bool = False) -> int:
    """A choice method's return value as a learner index, -1 for none; else an error."""
    if isinstance(out, tuple) and len(out) == 2:
        out = out[0]
    if out is None or (vector and isinstance(out, numbers.Integral) and int(out) == -1
                       and not isinstance(out, bool)):
        return -1
    if isinstance(out, numbers.Integral) and not isinstance(out, bool) and 0 <= int(out) < K:
        return int(out)
    raise SimstudyError(
        f"a choice function must return a learner index 0..{K - 1} or None, got {out!r} "
        f"({where})")


def _ci_attr(out: object, test: UserTest):
    """An interval a result object carries: ``ci``, or ``confidence_interval`` (a pair, an
    object with ``low``/``high``, or scipy's method, called at the declared confidence)."""
    ci = getattr(out, "ci", None)
    if ci is None:
        ci = getattr(out, "confidence_interval", None)
        if callable(ci):
            try:
                ci = ci(confidence_level=test.confidence)
            except TypeError:
                ci = ci()
            except SimstudyError:  # a simstudy result of a test that has no interval
                ci = None
    if ci is not None and hasattr(ci, "low") and hasattr(ci, "high"):
        ci = (ci.low, ci.high)
    return ci


def _pair(ci: object, where: str) -> tuple[float, float]:
    try:
        lo, hi = (float(x) for x in ci)  # type: ignore[union-attr]
    except (TypeError, ValueError):
        raise SimstudyError(f"the test function returned the interval {ci!r:.80} on {where}; "
                            "it must be a (low, high) pair of numbers") from None
    return lo, hi


def _designs(fn: Callable) -> frozenset[str] | None:
    declared = getattr(fn, "designs", None)
    if declared is None:
        return None
    if isinstance(declared, str):
        return frozenset({declared})
    try:
        names = frozenset(declared)
    except TypeError:
        names = None
    if names is None or not all(isinstance(x, str) for x in names):
        raise SimstudyError(f"f.designs must be design names or kinds (e.g. {{'5x2'}}), got "
                            f"{declared!r:.80}")
    return names


def _needs(fn: Callable) -> bool:
    need = getattr(fn, "needs", None)
    if need is None:
        return False
    if need != "losses":
        raise SimstudyError(f"test function declares needs={need!r}; the only valid value "
                            "is 'losses' (or leave it unset)")
    return True


def _flag(fn: Callable, attr: str) -> bool:
    v = getattr(fn, attr, False)
    if not isinstance(v, (bool, np.bool_)):
        raise SimstudyError(f"f.{attr} must be True or False, got {v!r}")
    return bool(v)


def _confidence(fn: Callable) -> float:
    v = getattr(fn, "confidence", 0.95)
    try:
        ok = 0.0 < float(v) < 1.0
    except (TypeError, ValueError):
        ok = False
    if not ok or isinstance(v, bool):
        raise SimstudyError(f"f.confidence must be a number in (0, 1), got {v!r}")
    return float(v)


def progress_bar(enabled: bool | None, total: int, desc: str):
    """A tqdm bar over ``total`` trials on stderr, with its estimate of the time left, or
    None: on by default when stderr is a terminal (a slow scalar function shows it is
    alive; a pipe or a log gets no bar)."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled or total <= 0:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="trial", desc=desc, file=sys.stderr, mininterval=0.5,
                smoothing=0.1)


# --- where the trials come from ---------------------------------------------------------

def open_readers(store: object, studies: Sequence[str] = ()
                 ) -> tuple[list[TrialReader], list[TrialReader]]:
    """Readers of stored trials for ``store``: a path or an open store, a list of them, or
    None for the shipped trials (:mod:`simstudy.trials`).  A store is read only when it is
    named: ``simstudy-store.sqlite`` in the current directory is never picked up by itself,
    so the same call gives the same answer wherever it is made.  Each study is read from
    the first reader that holds it.  Returns (readers, the ones opened here, which the
    caller closes)."""
    if store is None:
        return default_readers(studies)
    items = [store] if isinstance(store, (str, os.PathLike)) or hasattr(store, "fold_errors") \
        else list(store)  # type: ignore[call-overload]
    if not items:
        raise SimstudyError("no store given (an empty list)")
    from .store import open_reader

    readers, opened = [], []
    try:
        for x in items:
            r = _shipped_path(x) if isinstance(x, (str, os.PathLike)) else None
            if r is None:
                r = open_reader(x)
            if r is not x:
                opened.append(r)
            readers.append(r)
    except BaseException:
        for r in opened:
            r.close()
        raise
    return readers, opened


def local_store_hint() -> str | None:
    """One line when ``simstudy-store.sqlite`` is in the current directory: it is not read
    unless named, and this says how to name it (None when there is none)."""
    from .store import DEFAULT_STORE

    if not Path(DEFAULT_STORE).is_file():
        return None
    return (f"{DEFAULT_STORE} here is not read (a store is read only when named: "
            f"--store {DEFAULT_STORE})")


def default_readers(studies: Sequence[str] = ()
                    ) -> tuple[list[TrialReader], list[TrialReader]]:
    """The readers used when no store is given: the shipped trials alone (see
    :func:`open_readers`)."""
    readers = shipped_readers(studies)
    if not readers:
        hint = local_store_hint()
        raise SimstudyError(
            "no store given, and this simstudy ships no trials"
            + (f" of {', '.join(studies)}" if studies else "")
            + "; give a store (--store FILE), or compute one: python -m simstudy run STUDY"
            + (f" ({hint})" if hint else ""))
    return readers, list(readers)


def shipped_readers(studies: Sequence[str] = ()) -> list[TrialReader]:
    """The shipped trials holding ``studies`` (all when empty): readers from
    ``simstudy.trials.open_shipped``; none when this simstudy ships no trials."""
    try:
        from . import trials
    except ImportError:
        return []
    opener = getattr(trials, "open_shipped", None)
    return [] if opener is None else list(opener(list(studies) or None))


def _shipped_path(x: object):
    """A shipped-trials reader when ``x`` names shipped trials, else None."""
    try:
        from . import trials
    except ImportError:
        return None
    opener = getattr(trials, "open_path", None)
    return None if opener is None else opener(x)


def study_list(studies: object, default: Callable[[], Sequence]) -> list:
    """The studies a card reads: ``studies`` as a list (one name or Study alone too), or
    ``default()`` when None; none at all is an error."""
    from .study import Study

    if studies is None:
        studies = default()
    elif isinstance(studies, (str, Study)):
        studies = [studies]
    out = list(studies)
    if not out:
        raise SimstudyError("card needs at least one study")
    return out


def settle_study(row: dict, why: dict[str, list[str]], label: str, n_cells: int,
                 notes: list[str]) -> None:
    """A card's study row once its cells are read: ``status`` covered, partly covered or
    skipped and its ``reason``; one note per reason cells were skipped (``why``: reason ->
    cell ids)."""
    for reason, cells in why.items():
        notes.append(f"{label}: {len(cells)} of {n_cells} cells skipped, {reason}: "
                     f"{', '.join(cells[:3])}" + (", ..." if len(cells) > 3 else ""))
    if row["cells_read"] == 0:
        row["reason"] = "; ".join(why) or "no cell read"
    elif row["cells_read"] < n_cells:
        row["status"] = "partly covered"
        row["reason"] = "; ".join(f"{len(c)} cells: {r}" for r, c in why.items())
    else:
        row["status"] = "covered"


def locate(st: Study | str, readers: Sequence[TrialReader], runs: int | None,
           seed: int | None, alpha: float | None) -> tuple[Study, TrialReader | None]:
    """``(study, reader)``: the study scoped to the first reader holding any of its cells,
    or ``(study, None)`` when none does.  A name is scoped to the stored seed and runs (the
    study's own seed where several are stored); a Study is read as given unless ``runs`` or
    ``seed`` is asked for."""
    from .scope import stored_scope
    from .study import Study

    if isinstance(st, str):
        from .catalog import get_study

        study = get_study(st, alpha=alpha)
    elif isinstance(st, Study):
        study = st if alpha is None else st.replace(alpha=float(alpha))
    else:
        raise SimstudyError(f"a study must be a registered name, a study file's path or a "
                            f"Study, got {st!r:.80}")
    ids = [c.id for c in study.cells]
    for r in readers:
        if r.holdings(ids)["cell"].isin(ids).any():
            if isinstance(st, str) or runs is not None or seed is not None:
                # several root seeds stored (replicability's three): the study's own seed
                study = stored_scope(study, r, runs, seed, prefer_study_seed=True,
                                     asked=st if isinstance(st, str) else None)
            return study, r
    return study, None


def no_trials(st: Study | str, study: Study, readers: Sequence[TrialReader]) -> str:
    """Why a study cannot be read, with the command that computes it."""
    from .store import Store, run_hint

    asked = st if isinstance(st, str) else study.name
    where = ", ".join(r.describe() for r in readers)
    path = next((r.path for r in readers if isinstance(r, Store)), None)
    return (f"no trials of study {asked!r} in {where}; compute them: "
            f"{run_hint(asked, path)}")
