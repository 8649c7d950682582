"""What a reader pays to see another handle's add (issue 30): ``Index._see_changes`` after each of
``--adds`` one-document adds by a second handle, with the check of the manifest against SQLite
counting only the added documents (the default) and counting every live document (as at open).

Usage::

    python benchmarks/bench_index_reload.py --index DIR     # any index; it works on a copy

(``bench_serve.py --workdir W`` leaves a 100,000-document FILM index in ``W/idx``.)
"""
from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--index", required=True)
    ap.add_argument("--adds", type=int, default=20)
    args = ap.parse_args(argv)
    import learnsim.index.core as core
    from learnsim.index import Index

    work = Path(tempfile.mkdtemp(prefix="bench-reload-"))
    try:
        shutil.copytree(args.index, work / "idx")
        reader, writer = Index.open(work / "idx"), Index.open(work / "idx")
        reader.search("warm", k=1)
        writer.pipeline
        incremental = core.checked_up_to
        for mode in ("incremental", "full", "incremental", "full"):
            core.checked_up_to = incremental if mode == "incremental" else (lambda old, m: None)
            times = []
            for i in range(args.adds):
                writer.add([f"reload test document {i}"])
                start = time.perf_counter()
                reader._see_changes()
                times.append(time.perf_counter() - start)
            times.sort()
            print(f"{mode:12s} reload after an add: median {1e3 * times[len(times) // 2]:.2f} ms "
                  f"({len(reader)} documents)")
        core.checked_up_to = incremental
        reader.close()
        writer.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
