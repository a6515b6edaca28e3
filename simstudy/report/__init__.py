"""Rendering: tables (Markdown, CSV, LaTeX) and figures."""

from .tables import to_latex, to_markdown, write_table

__all__ = ["to_markdown", "to_latex", "write_table"]
