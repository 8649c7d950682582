"""The one writer every ``learnsim reproduce`` experiment reports through.

Results are a tidy list of records ``{experiment, setting, method, measure, value, paper_value}``
(``paper_value`` is null where the paper gives none), which ``pandas.DataFrame(records)`` reads
as is. The same records render the markdown tables of the report, so a figure in the report
can never disagree with the JSON beside it.
"""
from __future__ import annotations

import json
import math
from collections import OrderedDict
from pathlib import Path

FIELDS = ("experiment", "setting", "method", "measure", "value", "paper_value")

MEASURES = ("ap11", "r_precision", "ap", "map", "p@10", "bep", "error_rate", "accuracy", "log_loss",
            "pearson", "spearman", "clustering_precision", "fit_seconds", "fit_cpu_seconds", "svd_seconds",
            "peak_memory_gb", "triplet_accuracy", "validation_accuracy", "input_weight", "tpr", "tnr", "fpr", "fnr", "k",
            "train_accuracy", "nonzero_weights", "silhouette", "silhouette_2d", "objective", "duality_gap",
            "epochs", "speedup", "relative_objective_difference", "C")


def _finite_or_none(x):
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def _cell(record, fmt, with_paper):
    """A table cell: the value, with the paper's in brackets; "-" when there is none."""
    if record is None or record["value"] is None:
        return "-"
    text = fmt.format(record["value"])
    if with_paper and record["paper_value"] is not None:
        text += f" ({fmt.format(record['paper_value'])})"
    return text


class Results:
    """An ordered collection of result records with JSON and markdown output.

    Examples
    --------
    >>> from learnsim.reproduce import Results
    >>> results = Results()
    >>> results.add("20ng", "lsi 5%", "metric", "ap11", 0.61234, paper_value=0.6)
    {'experiment': '20ng', 'setting': 'lsi 5%', 'method': 'metric', 'measure': 'ap11', 'value': 0.61234, 'paper_value': 0.6}
    >>> _ = results.add("20ng", "lsi 5%", "euclid", "ap11", 0.41)
    >>> results.value(experiment="20ng", method="metric", measure="ap11")
    0.61234
    >>> print(results.table("20ng", "ap11"))
    | setting | metric | euclid |
    |---|---|---|
    | lsi 5% | 0.612 (0.600) | 0.410 |
    """

    def __init__(self):
        self.records: list[dict] = []

    def add(self, experiment, setting, method, measure, value, paper_value=None):
        if measure not in MEASURES:
            raise ValueError(f"unknown measure {measure!r}; use one of {', '.join(MEASURES)}")
        rec = {"experiment": str(experiment), "setting": str(setting), "method": str(method),
               "measure": measure, "value": _finite_or_none(value),
               "paper_value": _finite_or_none(paper_value)}
        self.records.append(rec)
        return rec

    def extend(self, other: "Results"):
        self.records.extend(other.records)

    def __len__(self):
        return len(self.records)

    def select(self, **where):
        return [r for r in self.records if all(r[k] == v for k, v in where.items())]

    def value(self, **where):
        rows = self.select(**where)
        if len(rows) != 1:
            raise KeyError(f"{len(rows)} records match {where}")
        return rows[0]["value"]

    def write_json(self, path):
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.records, indent=1) + "\n", encoding="utf-8")
        return path

    @staticmethod
    def read_json(path) -> "Results":
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if not isinstance(data, list) or any(set(r) != set(FIELDS) for r in data):
            raise ValueError(f"{path} is not a learnsim results file (a list of records with keys {FIELDS})")
        res = Results()
        res.records = data
        return res

    def table(self, experiment, measure, methods=None, *, with_paper=True, fmt="{:.3f}",
              ratio_to=None):
        """Markdown table: one row per setting, one column per method (paper values in brackets).

        ``ratio_to`` adds, for every other method, its value divided by that method's value.
        """
        rows = self.select(experiment=experiment, measure=measure)
        settings = list(OrderedDict.fromkeys(r["setting"] for r in rows))
        all_methods = list(OrderedDict.fromkeys(r["method"] for r in rows))
        methods = [m for m in (methods or all_methods) if m in all_methods]
        cell = {(r["setting"], r["method"]): r for r in rows}
        head = ["setting"] + methods
        if ratio_to and ratio_to in methods:
            head += [f"{m}/{ratio_to}" for m in methods if m != ratio_to]
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for s in settings:
            out = [s]
            for m in methods:
                out.append(_cell(cell.get((s, m)), fmt, with_paper))
            if ratio_to and ratio_to in methods:
                base = cell.get((s, ratio_to))
                for m in methods:
                    if m == ratio_to:
                        continue
                    r = cell.get((s, m))
                    ok = base and r and base["value"] and r["value"] is not None
                    out.append(f"{r['value'] / base['value']:.3f}" if ok else "-")
            lines.append("| " + " | ".join(out) + " |")
        return "\n".join(lines)

    def method_table(self, experiment, setting, measures, methods=None, *, with_paper=True, fmt="{:.3f}",
                     formats=None):
        """Markdown table for one setting: one row per method, one column per measure (paper
        values in brackets). ``formats`` maps a measure to its own format string."""
        rows = self.select(experiment=experiment, setting=setting)
        all_methods = list(OrderedDict.fromkeys(r["method"] for r in rows))
        methods = [m for m in (methods or all_methods) if m in all_methods]
        cell = {(r["method"], r["measure"]): r for r in rows}
        formats = formats or {}
        lines = ["| method | " + " | ".join(measures) + " |", "|" + "---|" * (len(measures) + 1)]
        for m in methods:
            out = [f"`{m}`"]
            for measure in measures:
                out.append(_cell(cell.get((m, measure)), formats.get(measure, fmt), with_paper))
            lines.append("| " + " | ".join(out) + " |")
        return "\n".join(lines)


def plots_enabled(out_dir, notes):
    """Whether a reproduction can draw its figures: it needs an output folder and matplotlib
    (the ``plot`` extra); when matplotlib is missing, say so in the report's notes."""
    if out_dir is None:
        return False
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        notes.append("matplotlib is not installed (pip install learnsim[plot]): no figures were drawn.")
        return False
    return True
