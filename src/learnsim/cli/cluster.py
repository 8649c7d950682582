"""``learnsim cluster``: group an indexed collection under its learned metric."""
from __future__ import annotations

import math
import sys
import textwrap
from collections import Counter

from ._common import (_check_output_file, _examples, _formatter, _note, _positive_int, _print_json, _seed, _table,
                      UsageError, is_stdout)


def register(commands):
    """Add the command's parser to ``commands``."""
    cluster = commands.add_parser(
        "cluster", formatter_class=_formatter, help="group an indexed collection under the learned metric",
        description=textwrap.dedent("""\
            Group the documents of an index: K-means into --k clusters in the space where the
            model's similarity is Euclidean (minimum cluster distortion's Figure 4), or, with
            --distance-threshold, average-link agglomerative clustering that joins groups
            closer than the threshold (at most 20,000 documents). --out writes
              cluster<TAB>id
            per document."""),
        epilog=_examples("learnsim cluster --index idx/ --k 20 --out clusters.tsv",
                         "learnsim cluster --index idx/ --distance-threshold 0.8 --json"))
    cluster.add_argument("--index", required=True, metavar="DIR", help="an index built by 'learnsim index build'")
    how = cluster.add_mutually_exclusive_group(required=True)
    how.add_argument("--k", type=_positive_int, metavar="K", help="number of K-means clusters")
    how.add_argument("--distance-threshold", type=float, metavar="T",
                     help="agglomerative clustering: join groups closer than T")
    cluster.add_argument("--out", metavar="FILE", help="write cluster<TAB>id per document")
    cluster.add_argument("--seed", type=_seed, default=0, help="K-means seed (default: 0)")
    cluster.add_argument("--json", action="store_true", help="print {id: cluster} as JSON on stdout")
    cluster.set_defaults(handler=run)
    return cluster


def run(args):
    from .dedupe import write_table
    from .index import open_index

    out = _check_output_file(args.out, "--out", inputs=[args.index], example="clusters.tsv") if args.out else None
    index = open_index(args.index)
    if args.distance_threshold is not None and not 0 < args.distance_threshold < math.inf:   # NaN too
        raise UsageError(f"--distance-threshold must be a positive finite number; got {args.distance_threshold}")
    if args.k is not None and args.k > len(index):
        raise UsageError(f"--k {args.k} is more than the {len(index)} documents of the index")
    labels = index.cluster(args.k, distance_threshold=args.distance_threshold, random_state=args.seed)
    if out is not None:
        write_table(out, ["cluster", "id"], [[c, i] for i, c in labels.items()], exact=(1,))
    if args.json:
        _print_json(labels)
        return 0
    sizes = Counter(labels.values())
    if args.distance_threshold is not None and len(labels) > 1 and len(sizes) in (1, len(labels)):
        # the scale of a distance is the model's: a threshold of another scale (cluster --help's
        # 0.8 on a livedoor model, whose articles lie about 1.3 apart) joined nothing, and said not
        if len(sizes) == len(labels):
            _note(f"no two documents are closer than --distance-threshold {args.distance_threshold:g} in this model's "
                  "space: each is a cluster of its own; try a larger threshold")
        else:
            _note(f"--distance-threshold {args.distance_threshold:g} joined every document into one cluster: try a "
                  "smaller threshold")
    # --out /dev/stdout: the table is stdout, and the summary after it was read as its last rows
    report = sys.stderr if out is not None and is_stdout(out) else sys.stdout
    print(f"{len(sizes)} cluster(s) of the {len(labels)} documents" + (f"; written to {out}" if out else "") + ".",
          file=report)
    print(_table(["cluster", "documents"], [[c, n] for c, n in sorted(sizes.items())]), file=report)
    return 0
