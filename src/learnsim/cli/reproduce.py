"""``learnsim reproduce``: run a paper's experiments."""
from __future__ import annotations

import importlib
import textwrap
from pathlib import Path

from ._common import _check_output_dir, _check_output_file, UsageError, _formatter, _examples
_FALLBACK_EXPERIMENTS = ("mochihashi",)


def _experiments():
    """Names accepted by ``learnsim reproduce``: learnsim.reproduce.EXPERIMENTS when it exists."""
    try:
        module = importlib.import_module("learnsim.reproduce")
    except ImportError:
        return _FALLBACK_EXPERIMENTS
    names = getattr(module, "EXPERIMENTS", None)
    return tuple(names) if names else _FALLBACK_EXPERIMENTS


def register(commands):
    """Add the command's parser to ``commands``."""
    names = _experiments()
    reproduce = commands.add_parser(
        "reproduce", formatter_class=_formatter, help="reproduce a paper's experiments",
        description=textwrap.dedent(f"""\
            Run the experiments of a paper on the real corpora and write a markdown report, the
            JSON records and plots into OUT. Experiments: {', '.join(names)}. Corpora are read
            from --data-dir, else from the LEARNSIM_DATA environment variable, else from
            ../shared/data."""),
        epilog=_examples("learnsim reproduce mochihashi --quick",
                         "learnsim reproduce mochihashi --out report/ --json report/records.json",
                         "LEARNSIM_DATA=/data/corpora learnsim reproduce mochihashi"))
    reproduce.add_argument("name", metavar="NAME", choices=names, help=f"the experiment: {', '.join(names)}")
    reproduce.add_argument("--quick", action="store_true", help="a smaller, faster version of every experiment")
    reproduce.add_argument("--out", metavar="DIR", default=None, help="output folder (default: ./learnsim-reproduce-NAME)")
    reproduce.add_argument("--json", metavar="PATH", default=None, dest="json_path",
                           help="also write the result records to this JSON file")
    reproduce.add_argument("--data-dir", metavar="DIR", default=None,
                           help="folder holding the corpora (default: $LEARNSIM_DATA, else ../shared/data)")
    reproduce.add_argument("--encoder", metavar="MODEL_DIR", default=None,
                           help="film only: a local sentence-transformers model folder; adds the dense-encoder "
                                "rows (the paper's FILM-BERT). Needs pip install learnsim[dense]")
    reproduce.set_defaults(handler=run)
    return reproduce


def run(args):
    from ..datasets import find_data_dir

    if args.data_dir is not None:
        data = find_data_dir(args.data_dir)  # a wrong --data-dir fails now, not after an hour
    else:
        try:
            data = find_data_dir()
        except FileNotFoundError:
            data = None     # (the experiments say which corpus they miss, as before)
    reproduce = importlib.import_module("learnsim.reproduce")
    run = getattr(reproduce, "run", None)
    if run is None:
        raise UsageError("this installation of learnsim has no reproduction runner (learnsim.reproduce.run)")
    if args.out is None:
        # learnsim.reproduce.run's default, named here so that it is checked before the experiments
        # run and said at the end (the last line named no folder)
        args.out = f"learnsim-reproduce-{args.name}"
    _check_output_dir(args.out, "--out")
    _outside_data(args.out, "--out", data)
    if args.json_path is not None:
        _check_output_file(args.json_path, "--json", example="records.json")
        # the corpora are the command's input: --json DATA/README.md replaced it
        _outside_data(args.json_path, "--json", data)
    options = {}
    if args.encoder is not None:
        if args.name != "film":
            raise UsageError(f"--encoder is an option of 'reproduce film', not of {args.name!r}")
        if not Path(args.encoder).is_dir():
            raise UsageError(f"--encoder {args.encoder}: not a folder; give the local folder of a "
                             "sentence-transformers model (nothing is downloaded)")
        options["encoder"] = args.encoder
    results = run(args.name, quick=args.quick, out_dir=args.out, json_path=args.json_path,
                  data_dir=args.data_dir, **options)
    n = len(results) if hasattr(results, "__len__") else None
    print(f"learnsim reproduce {args.name}: done" + (f", {n} result records" if n is not None else "")
          + f" in {args.out}.")
    return 0


def _outside_data(out, option, data):
    """Refuse an output that would write over or among the corpora the command reads: the data
    folder itself, a file or folder that exists in it, or a new name inside one of its corpus
    folders (a reader of a folder's files would take it for a document). A new name directly in
    the data folder harms nothing."""
    import os

    if data is None:
        return
    target, source = Path(out).resolve(), Path(data).resolve()
    if target != source and source not in target.parents:
        return
    nearest = target
    while not os.path.lexists(nearest) and nearest != nearest.parent:
        nearest = nearest.parent
    if target == source or os.path.lexists(target) or nearest != source:
        raise UsageError(f"{option} {out} is inside the data folder {data}, which the command reads: writing there "
                         "could overwrite or add to a corpus; give a path outside it")
