"""Canonical ``name[k=v,...]`` ids, the keys used by registries, the store and CLI filters.

``parse_spec("mlp[h=10]") == ("mlp", {"h": "10"})`` and ``format_spec`` is its inverse with
sorted keys, so one object always has one id.  Values stay strings here; each registry
converts and validates its own parameters.
"""

from __future__ import annotations

import re

from .errors import SimstudyError

_SPEC = re.compile(r"^(?P<name>[^\[\]]+?)(?:\[(?P<params>.*)\])?$")


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``name[k=v,k2=v2]`` into ``(name, {k: v})``.

    Commas inside parentheses belong to the value, so ``gauss[mu1=(1,1)]`` works.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise SimstudyError(f"expected a name like 'name' or 'name[k=v]', got {spec!r}")
    m = _SPEC.match(spec.strip())
    if m is None:
        raise SimstudyError(f"malformed id {spec!r}; expected 'name' or 'name[k=v,...]'")
    name, raw = m.group("name").strip(), m.group("params")
    params: dict[str, str] = {}
    if raw:
        for item in _split_top_level(raw):
            if "=" not in item:
                raise SimstudyError(f"malformed parameter {item!r} in {spec!r}; expected k=v")
            k, v = item.split("=", 1)
            params[k.strip()] = v.strip()
    return name, params


def format_spec(name: str, params: dict[str, object] | None = None) -> str:
    """Inverse of :func:`parse_spec`: ``name`` or ``name[k=v,...]`` with sorted keys."""
    if not params:
        return name
    inner = ",".join(f"{k}={params[k]}" for k in sorted(params))
    return f"{name}[{inner}]"


def _split_top_level(s: str) -> list[str]:
    out, depth, cur = [], 0, []
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if cur:
        out.append("".join(cur))
    return [p for p in (x.strip() for x in out) if p]
