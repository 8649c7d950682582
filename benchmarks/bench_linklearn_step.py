"""LinkLearn's training step against an earlier version of it, in the same process, on the same
data (issue 16, part 3).

A LinkLearn fit draws a fixed number of documents (``max_iter``) and, for each, scores every
document that shares a term with it (``_batch_gradient``, eq. 4 and 5): the step is the bulk of
the fit and its cost sets how the fit grows with n. This script loads ``linklearn.py`` of a git
revision (``--before``, default the parent of the commit that changed the step) as a second module
beside the current one (``git show``: the work tree is not touched; the rest of the package is
shared), builds ``bench_growth``'s linked corpus of n documents (``linked_data``: its term counts
and topic links), and times the two steps on the same drawn documents and parameters (one document a step, as
a fit with ``batch_size=1`` takes them), alternately,
``--repeats`` times (median of CPU seconds). It checks that both give the same loss and gradient
(largest relative difference) and reports ms per drawn document and the ratio before / now.

Usage::

    python benchmarks/bench_linklearn_step.py                         # 30k, 100k, 300k documents
    python benchmarks/bench_linklearn_step.py --sizes 1000000 --docs 100
    python benchmarks/bench_linklearn_step.py --wikispeedia --sizes 30000   # long documents too
    python benchmarks/bench_linklearn_step.py --wikispeedia --sizes --hidden 160 320 320
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
DEFAULT_BEFORE = "f687a6e~1"
DEFAULT_SIZES = (30_000, 100_000, 300_000)


def load_before(rev):
    """``learnsim/linklearn.py`` of ``rev`` as the module ``learnsim._linklearn_before`` (its
    relative imports resolve in the current package)."""
    import learnsim

    source = subprocess.run(["git", "-C", str(REPO), "show", f"{rev}:src/learnsim/linklearn.py"],
                            capture_output=True, text=True, check=True).stdout
    name = "learnsim._linklearn_before"
    spec = importlib.util.spec_from_loader(name, loader=None, origin=f"{rev}:src/learnsim/linklearn.py")
    module = importlib.util.module_from_spec(spec)
    module.__package__ = learnsim.__name__
    sys.modules[name] = module
    exec(compile(source, spec.origin, "exec"), module.__dict__)
    return module


def step_setup(module, counts, adjacency, n_docs, seed, hidden=None):
    """A model, its codes, MLPs and parameters, and ``n_docs`` drawn anchors (seeded)."""
    model = module.LinkLearn(*(hidden or ()), learning_rate=0.03, random_state=0)
    hidden = model._check_params()
    codes = module._Codes(counts)
    scaling = [(float(np.mean(v)), float(np.std(v))) for v in
               (counts.data, codes.idf[counts.indices], codes.lengths)]
    mlps = model._mlps(hidden, scaling)
    rng = np.random.default_rng(seed)
    theta = np.concatenate([m.init(rng) for m in mlps])
    anchors = np.flatnonzero(np.diff(adjacency.indptr) > 0)
    docs = anchors[rng.integers(0, anchors.size, n_docs)]
    codes.postings                                            # built once, outside the timing
    return model, codes, mlps, theta, docs


def wikispeedia_training_third(seed):
    """The training third of ``learnsim reproduce linklearn`` (Porter-stemmed counts with its df
    cut, articles with a term): few documents, each long (hundreds of distinct terms)."""
    from learnsim.datasets import load_wikispeedia
    from learnsim.reproduce import linklearn as repro
    from learnsim.supervision import Links

    wiki = load_wikispeedia()
    C, _ = repro._drop_rare_terms(repro._counts(list(wiki.texts)))
    (tr, L_tr), _, _ = repro.split_links(wiki.links, random_state=repro.SEED)
    X = C[tr]
    keep = np.flatnonzero(np.diff(X.indptr) > 0)
    return X[keep], Links(L_tr.adjacency[keep][:, keep])


def measure(n, before, now, args):
    import bench_growth

    if n == "wikispeedia":
        counts, links = wikispeedia_training_third(args.seed)
    else:
        data = bench_growth.linked_data(n, args.seed)
        counts, links = data["counts"], data["links"]
    adjacency = links.symmetric().adjacency
    setups = {label: step_setup(module, counts, adjacency, args.docs, args.seed, args.hidden)
              for label, module in (("before", before), ("now", now))}
    seconds = {label: [] for label in setups}
    results = {}
    for _ in range(args.repeats):
        for label, (model, codes, mlps, theta, docs) in setups.items():
            t0 = time.process_time()
            # one document a step, as a fit with LinkLearn's default batch_size=1 takes them
            # (the MLPs are evaluated at every step)
            steps = [model._batch_gradient(theta, mlps, codes, adjacency, docs[i:i + 1]) for i in range(docs.size)]
            seconds[label].append(time.process_time() - t0)
            results[label] = (sum(loss for loss, _ in steps), sum(grad for _, grad in steps))
    (loss_b, grad_b), (loss_n, grad_n) = results["before"], results["now"]
    diff = max(abs(loss_n - loss_b) / abs(loss_b),
               float(np.max(np.abs(grad_n - grad_b)) / np.max(np.abs(grad_b))))
    ms = {label: 1e3 * float(np.median(s)) / args.docs for label, s in seconds.items()}
    postings = codes_postings_per_doc(setups["now"][1], counts, setups["now"][4])
    return {"n": n, "documents": int(counts.shape[0]), "ms_before": ms["before"], "ms_now": ms["now"], "ratio": ms["before"] / ms["now"],
            "relative_difference": diff, "postings_per_doc": postings}


def codes_postings_per_doc(codes, counts, docs):
    col_len = codes.postings[1]
    return float(np.mean([col_len[counts.indices[counts.indptr[d]:counts.indptr[d + 1]]].sum() for d in docs]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="*", default=list(DEFAULT_SIZES),
                        help=f"numbers of documents (default {' '.join(map(str, DEFAULT_SIZES))})")
    parser.add_argument("--before", default=DEFAULT_BEFORE, metavar="REV",
                        help=f"the earlier revision of linklearn.py (default {DEFAULT_BEFORE})")
    parser.add_argument("--hidden", type=int, nargs=3, metavar=("TF", "IDF", "LENGTH"),
                        help="hidden units of the three MLPs (default LinkLearn's 5 10 10)")
    parser.add_argument("--docs", type=int, default=200, help="drawn documents a timing (default 200)")
    parser.add_argument("--repeats", type=int, default=3, help="timings of each version (default 3; median)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--wikispeedia", action="store_true",
                        help="also the training third of learnsim reproduce linklearn (needs the corpus)")
    parser.add_argument("--json", metavar="PATH", help="write the rows here as JSON")
    args = parser.parse_args(argv)
    if (args.sizes and min(args.sizes) < 200) or args.docs < 1 or args.repeats < 1:
        parser.error("sizes must be >= 200, --docs and --repeats >= 1")

    from threadpoolctl import threadpool_limits

    import learnsim.linklearn._linklearn as now

    before = load_before(args.before)
    print(f"LinkLearn training step, {args.before} against the work tree; hidden units "
          f"{' / '.join(map(str, args.hidden or (5, 10, 10)))}; {args.docs} drawn documents, "
          f"median of {args.repeats} CPU timings\n")
    print(f"{'n':>9} {'postings/doc':>12} {'ms before':>10} {'ms now':>8} {'before/now':>10} {'rel. diff':>9}")
    rows = []
    with threadpool_limits(limits=1):
        for n in (["wikispeedia"] if args.wikispeedia else []) + list(args.sizes):
            row = measure(n, before, now, args)
            rows.append(row)
            label = f"{n:,}" if isinstance(n, int) else f"{n} ({row['documents']:,})"
            print(f"{label:>9} {row['postings_per_doc']:>12,.0f} {row['ms_before']:>10.2f} {row['ms_now']:>8.2f} "
                  f"{row['ratio']:>9.2f}x {row['relative_difference']:>9.1e}", flush=True)
    sized = [r for r in rows if isinstance(r["n"], int)]
    if len(sized) > 1:
        x = np.log([r["n"] for r in sized])
        for key in ("ms_before", "ms_now"):
            slope = float(np.polyfit(x, np.log([r[key] for r in sized]), 1)[0])
            print(f"log-log slope of {key[3:]}: {slope:.2f}")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"before": args.before, "hidden": args.hidden, "docs": args.docs, "repeats": args.repeats,
                                               "seed": args.seed, "rows": rows}, indent=1))
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
