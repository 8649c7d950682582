"""Peak memory of building and fitting against the input's size (stop 84).

Cases, each run as a user runs it, one child process a run (peak RSS and user CPU from the
child's rusage, wall seconds), on seeded synthetic text (a Zipf vocabulary of 20,000 pseudo-words):

- ``line``: ``learnsim index build --corpus`` of one document that is a single line of ``--mb`` MB
  (a book, a log file, a dump brought as one document), under a BM25 model fitted once;
- ``cjk-line``: ``learnsim index build --corpus`` of one single line of ``--cjk-mb`` MB of
  Japanese (generated sentences of kanji and kana pseudo-words, each ending in 。, a Latin word
  now and then), read by the default analyser's character bigrams (stop 85);
- ``short-index``: ``learnsim index build`` of ``--short`` short documents (8-30 words);
- ``short-fit``: ``learnsim fit --input`` of those documents labelled (200 labels);
- ``short-fit-pairs``: ``learnsim.fit(texts, pairs=...)`` on them (pairs of documents of one label).

With several ``--tree NAME=SRC`` (a tree's ``src`` put first on PYTHONPATH) the trees alternate
within each round, and the indexes the trees built are compared file by file (the segments'
arrays and document copies, the statistics, the plan: byte for byte).

    python benchmarks/bench_build_memory.py --tree old=/tmp/old/src --tree new=src --rounds 2
    python benchmarks/bench_build_memory.py --tree old=/tmp/old/src --tree new=src --cases line --quote-every 10000
    python benchmarks/bench_build_memory.py --tree old=/tmp/old/src --tree new=src --cases cjk-line --cjk-mb 20
"""
from __future__ import annotations

import argparse
import filecmp
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

CASES = ("line", "cjk-line", "short-index", "short-fit", "short-fit-pairs")

_PAIRS_FIT = """
import sys, learnsim
texts, labels = [], []
for line in list(open(sys.argv[1], encoding="utf-8"))[1:]:
    label, text = line.rstrip("\\n").split("\\t", 1)
    labels.append(label); texts.append(text)
first = {}
pairs = []
for i, label in enumerate(labels):
    if label in first and len(pairs) < len(texts) // 2:
        pairs.append((first[label], i, 1))          # a duplicate: the same label
        if labels[i - 1] != label:
            pairs.append((i - 1, i, 0))             # and a neighbour of another label
    first.setdefault(label, i)
learnsim.fit(texts, pairs=pairs)
"""


def make_cjk_line(path, mb, seed=0):
    """One line of about ``mb`` MB (UTF-8) of seeded Japanese: sentences of 5-30 pseudo-words of
    1-4 kanji and kana (a Zipf vocabulary of 20,000), each ended by 。, a Latin word every 50th."""
    rng = np.random.default_rng(seed)
    chars = np.array([chr(c) for c in range(0x4E00, 0x4E00 + 1500)] + [chr(c) for c in range(0x3041, 0x3094)]
                     + [chr(c) for c in range(0x30A1, 0x30F7)])
    vocab = np.array(sorted({"".join(rng.choice(chars, rng.integers(1, 5))) for _ in range(20_000)}))
    p = 1.0 / np.arange(1, len(vocab) + 1)
    p /= p.sum()
    size, parts, written = int(mb * 1_000_000), [], 0
    while written < size:
        words = rng.choice(vocab, 200_000, p=p)
        cuts = np.cumsum(rng.integers(5, 31, 20_000))
        sentences = ["".join(words[a:b]) for a, b in zip(cuts[:-1], cuts[1:]) if b <= len(words)]
        block = "。".join(s if i % 50 else s + " latin" for i, s in enumerate(sentences)) + "。"
        parts.append(block)
        written += len(block.encode("utf-8"))
    text = "".join(parts).encode("utf-8")[:size].decode("utf-8", "ignore")
    path.write_text(text + "\n", encoding="utf-8")


def make_data(folder, mb, n_short, seed=0, quote_every=0, cjk_mb=0):
    """The model's training file, the long line (a curly quote every ``quote_every`` characters
    where > 0: a text that is not ASCII, as a book's) and the short documents (label<TAB>text)."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    vocab = np.array(sorted({"".join(rng.choice(letters, rng.integers(3, 9))) for _ in range(20_000)}))
    p = 1.0 / np.arange(1, len(vocab) + 1)
    p /= p.sum()
    line = f"line{mb}.txt" if not quote_every else f"line{mb}-q{quote_every}.txt"
    files = {"train": folder / "train.tsv", "line": folder / line, "short": folder / f"short{n_short}.tsv",
             "cjk": folder / f"cjk{cjk_mb}.txt"}
    if not files["train"].exists():
        with open(files["train"], "w", encoding="utf-8") as fh:
            for i in range(2000):
                words = rng.choice(vocab, 30, p=p)
                words[:5] = vocab[100 + (i % 40) * 5:105 + (i % 40) * 5]
                fh.write(f"t{i % 40}\t{' '.join(words)}\n")
    if not files["line"].exists():
        size = int(mb * 1_000_000)
        text = " ".join(rng.choice(vocab, size // 5 + 1000, p=p))[:size].rstrip()
        if quote_every:
            text = "\u201c".join(text[i:i + quote_every] for i in range(0, len(text), quote_every))[:size]
        files["line"].write_text(text + "\n", encoding="utf-8")
    if cjk_mb and not files["cjk"].exists():
        make_cjk_line(files["cjk"], cjk_mb, seed)
    if not files["short"].exists():
        with open(files["short"], "w", encoding="utf-8") as fh:
            fh.write("label\ttext\n")         # read so by fit --input and index build alike
            for i in range(n_short):
                words = rng.choice(vocab, int(rng.integers(8, 31)), p=p)
                words[:2] = vocab[200 + (i % 200) * 2:202 + (i % 200) * 2]
                fh.write(f"l{i % 200}\t{' '.join(words)}\n")
    return files


def run_child(argv, src, timeout):
    """(wall s, return code, the end of stderr) of one child process."""
    env = dict(os.environ, PYTHONPATH=str(Path(src).resolve()), OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise
    wall = time.perf_counter() - t0
    return wall, proc.returncode, err.decode("utf-8", "replace")[-500:]


def measured(argv, src, timeout):
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, rc, err = run_child(argv, src, timeout)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if rc != 0:
        raise RuntimeError(f"{' '.join(map(str, argv))} failed ({rc}): {err}")
    # ru_maxrss of RUSAGE_CHILDREN is the largest child's so far: each case runs in a fresh
    # measuring process (see main), so that it is this child's
    return {"user_s": after.ru_utime - before.ru_utime, "sys_s": after.ru_stime - before.ru_stime,
            "wall_s": wall, "peak_mb": after.ru_maxrss / 1024.0}


def case_argv(case, files, work, tree):
    py = sys.executable
    if case == "line":
        return [py, "-m", "learnsim", "index", "build", "--model", str(work / f"model-{tree}.npz"),
                "--corpus", str(files["line"]), "--out", str(work / f"ix-line-{tree}"), "--overwrite"]
    if case == "cjk-line":
        return [py, "-m", "learnsim", "index", "build", "--model", str(work / f"model-{tree}.npz"),
                "--corpus", str(files["cjk"]), "--out", str(work / f"ix-cjk-{tree}"), "--overwrite"]
    if case == "short-index":
        return [py, "-m", "learnsim", "index", "build", "--model", str(work / f"model-{tree}.npz"),
                "--corpus", str(files["short"]), "--out", str(work / f"ix-short-{tree}"), "--overwrite"]
    if case == "short-fit":
        return [py, "-m", "learnsim", "fit", "--input", str(files["short"]), "--model", str(work / f"fit-{tree}.npz")]
    return [py, "-c", _PAIRS_FIT, str(files["short"])]


def one_run(case, files, work, tree, src, timeout):
    """Measure one run in a fresh measuring process (its RUSAGE_CHILDREN peak is this child's)."""
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); import bench_build_memory as b; "
            "print(json.dumps(b.measured(json.loads(sys.argv[2]), sys.argv[3], float(sys.argv[4]))))")
    argv = case_argv(case, files, work, tree)
    out = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent), json.dumps(argv), src,
                          str(timeout)], capture_output=True, text=True, timeout=timeout + 60)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-1500:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def same_files(a, b):
    """Relative paths whose bytes differ between two indexes (the manifest and the model, which
    carry times and paths, left out)."""
    differ = []
    for path in sorted(Path(a).rglob("*")):
        rel = path.relative_to(a)
        if path.is_dir() or rel.name in ("manifest.json", "model.npz", "docs.sqlite", "segment.json") \
                or rel.parts[0] == "versions" or "lock" in rel.name:
            continue
        other = Path(b) / rel
        if not other.exists() or not filecmp.cmp(path, other, shallow=False):
            differ.append(str(rel))
    return differ


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", default=[], metavar="NAME=SRC",
                    help="a tree to measure (its src folder); repeat to alternate (default: new=src)")
    ap.add_argument("--mb", type=float, default=60.0, help="size of the one-line document (MB)")
    ap.add_argument("--quote-every", type=int, default=0, metavar="N",
                    help="a curly quote every N characters of the line (its text not ASCII); 0: none")
    ap.add_argument("--cjk-mb", type=float, default=20.0, help="size of the cjk-line case's Japanese line (MB)")
    ap.add_argument("--short", type=int, default=100_000, help="number of short documents")
    ap.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES))
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--work", type=Path, default=None, help="folder of the data and indexes (default: a temporary one)")
    ap.add_argument("--timeout", type=float, default=1200.0)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    trees = dict(t.split("=", 1) for t in args.tree) or {"new": str(Path(__file__).resolve().parents[1] / "src")}
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-build-memory-"))
    files = make_data(work / "data", args.mb, args.short, quote_every=args.quote_every,
                      cjk_mb=args.cjk_mb if "cjk-line" in args.cases else 0)
    sizes = {name: files[name].stat().st_size for name in files if files[name].exists()}
    for name, src in trees.items():
        if not (work / f"model-{name}.npz").exists():
            measured([sys.executable, "-m", "learnsim", "fit", "--input", str(files["train"]),
                      "--model", str(work / f"model-{name}.npz")], src, args.timeout)
    results = []
    for r in range(args.rounds):
        for case in args.cases:
            for name, src in trees.items():
                row = dict(one_run(case, files, work, name, src, args.timeout), case=case, tree=name, round=r)
                size = sizes[{"line": "line", "cjk-line": "cjk"}.get(case, "short")]
                row["input_mb"] = size / 1e6
                row["peak_over_input"] = row["peak_mb"] * 1024 * 1024 / size
                results.append(row)
                print(f"{case:16s} {name:6s} round {r}: peak {row['peak_mb']:7.1f} MB ({row['peak_over_input']:5.1f}x "
                      f"the input's {size / 1e6:.1f} MB), user {row['user_s']:6.2f} s, wall {row['wall_s']:6.2f} s",
                      flush=True)
    compared = {}
    names = list(trees)
    for case in ("line", "cjk", "short"):
        for other in names[1:]:
            a, b = work / f"ix-{case}-{names[0]}", work / f"ix-{case}-{other}"
            if a.exists() and b.exists():
                compared[f"{case}: {names[0]} vs {other}"] = same_files(a, b)
                print(f"index files differing ({case}, {names[0]} vs {other}):", compared[f"{case}: {names[0]} vs {other}"]
                      or "none")
    if args.json:
        args.json.write_text(json.dumps({"results": results, "differing_files": compared, "trees": trees}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
