"""One registry idiom for every kind of named thing: designs, studies, sources, learners, tests.

A :class:`Registry` maps names (or name templates such as ``{r}x{k}cv``) to factories.
Registering is one decorator::

    DESIGNS = Registry("design")

    @DESIGNS.register("b5x2", description="balanced 5x2 cv (Wang, Li & Li 2016)")
    def _b5x2(spec, params):
        ...

``get("name[k=v,...]")`` parses the spec with :func:`simstudy.spec.parse_spec` (the one
parser of canonical ids), finds the entry (exact names first, then templates in
registration order) and calls ``factory(spec, params, **groups)`` where ``params`` are the
spec's ``k=v`` strings and ``groups`` the template's named parts.  Unknown names get one
error shape everywhere: ``unknown <kind> 'x'; valid choices: ...``.  ``describe()`` gives
``(name, one-line description)`` pairs, which ``python -m simstudy list`` prints.

Modelled on timm's ``register_model``/``create_model``/``list_models`` and benchopt's
"a component is a small named thing with parameters".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from .errors import SimstudyError, unknown
from .spec import parse_spec

T = TypeVar("T")


@dataclass(frozen=True)
class Entry:
    """One registered name (or template) with its factory and a one-line description."""

    name: str
    factory: Callable[..., Any]
    description: str = ""
    pattern: re.Pattern[str] | None = None
    matcher: Callable[[str], dict[str, str] | None] | None = None  # names no template spells
    choices: tuple[str, ...] = ()  # how the valid choices spell it (default: the name)

    def match(self, name: str) -> dict[str, str] | None:
        if self.matcher is not None:
            return self.matcher(name)
        if self.pattern is None:
            return {} if name == self.name else None
        m = self.pattern.fullmatch(name)
        return None if m is None else m.groupdict()


def _template_regex(template: str) -> re.Pattern[str]:
    """``{r}x{k}cv`` -> ``(?P<r>\\d+)x(?P<k>\\d+)cv`` (placeholders stand for integers)."""
    parts = re.split(r"\{(\w+)\}", template)
    rx = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>\\d+)" for i, p in enumerate(parts))
    return re.compile(rx)


class Registry(Generic[T]):
    """Named factories of one kind (``kind`` is used in messages: 'design', 'study', ...)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, Entry] = {}

    def register(self, name: str, factory: Callable[..., T] | None = None, *,
                 description: str | None = None,
                 match: Callable[[str], dict[str, str] | None] | None = None,
                 choices: tuple[str, ...] = ()) -> Any:
        """Register ``factory`` under ``name``; without ``factory``, a decorator.

        ``name`` may be a template with ``{placeholders}`` for integers (``{r}x2``).  The
        description defaults to the first line of the factory's docstring.  ``match(name)``
        (groups or None) claims names no template spells, e.g. file paths (``PATH``); such
        entries are the fallbacks: tried after the exact names and the templates, in
        registration order.  ``choices`` spell the entry in the valid choices an unknown
        name is told (:meth:`choices`), e.g. ``ban[src=1]`` .. ``ban[src=4]`` for ``ban``.
        """
        if not isinstance(name, str) or not name.strip() or "[" in name:
            raise SimstudyError(f"{self.kind} name must be a plain non-empty string, got {name!r}")

        def add(f: Callable[..., T]) -> Callable[..., T]:
            if not callable(f):
                raise SimstudyError(f"{self.kind} factory for {name!r} must be callable, got {f!r}")
            desc = description
            if desc is None:
                doc = (getattr(f, "__doc__", None) or "").strip()
                desc = doc.splitlines()[0] if doc else ""
            pattern = _template_regex(name) if "{" in name and match is None else None
            self._entries[name] = Entry(name, f, desc, pattern, match, tuple(choices))
            return f

        return add if factory is None else add(factory)

    # --- looking up --------------------------------------------------------------------
    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.find(name) is not None

    def __iter__(self) -> Iterator[Entry]:
        return iter(self._entries.values())

    def names(self) -> list[str]:
        """Registered names and templates, in registration order."""
        return list(self._entries)

    def choices(self) -> list[str]:
        """Every entry as the valid choices spell it, in registration order."""
        return [c for e in self._entries.values() for c in (e.choices or (e.name,))]

    def describe(self) -> list[tuple[str, str]]:
        return [(e.name, e.description) for e in self._entries.values()]

    def find(self, name: str) -> tuple[Entry, dict[str, str]] | None:
        """The entry for a bare name (exact first, then templates, then ``match=`` entries)
        and its template groups."""
        e = self._entries.get(name)
        if e is not None and e.pattern is None and e.matcher is None:
            return e, {}
        for e in [x for x in self._entries.values() if x.pattern is not None] + [
                x for x in self._entries.values() if x.matcher is not None]:
            groups = e.match(name)
            if groups is not None:
                return e, groups
        return None

    def unknown(self, value: object) -> SimstudyError:
        return unknown(self.kind, value, self.names())

    def get(self, spec: str, **kwargs: Any) -> T:
        """Build the thing named by ``spec`` (``name`` or ``name[k=v,...]``)."""
        name, params = parse_spec(spec)
        hit = self.find(name)
        if hit is None:
            raise self.unknown(spec)
        entry, groups = hit
        return entry.factory(spec, params, **groups, **kwargs)

    def check_params(self, spec: str, params: dict[str, str], allowed: set[str]) -> None:
        """One message shape for a parameter the entry does not take."""
        bad = sorted(set(params) - allowed)
        if bad:
            valid = ", ".join(sorted(allowed)) or "none"
            raise SimstudyError(f"bad parameters for {self.kind} {spec!r}: unknown parameter "
                                f"{bad[0]!r}; valid parameters: {valid}")

    def unregister(self, name: str) -> Entry | None:
        """Remove ``name`` (a plug-in's or a test's entry); the removed entry, or None."""
        return self._entries.pop(name, None)

    def copy(self) -> Registry[T]:
        """A registry with the same entries (e.g. to add one for a test and drop it after)."""
        new: Registry[T] = Registry(self.kind)
        new._entries = dict(self._entries)
        return new


def study_files(name: str) -> list[Path]:
    """Every file called ``name`` in the folders of the study packages (``simstudy.studies``),
    in path order: what the plugins declare as data.  A study declares data the library
    reads generically (the ``truth.csv``
    of :mod:`simstudy.truth`, the named sources of :mod:`simstudy.sources.gaussian`) in its
    own folder, where the library finds it without naming the study.  The package is
    located, not run: declarations are read before any study is asked for.

    >>> [p.parent.name for p in study_files("truth.csv")][:1]
    ['ban']
    """
    import importlib.util

    spec = importlib.util.find_spec("simstudy.studies")
    folders = spec.submodule_search_locations if spec else None
    return sorted(p for folder in folders or () for p in Path(folder).rglob(name))
