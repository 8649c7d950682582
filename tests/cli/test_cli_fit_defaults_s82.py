"""learnsim fit's help stated the held-out shares as the literal "default: 0.2" (twice, and
"(0.2)" in its description) and the CLI built FitOptions with norm="l2" written out, while the
defaults are defined in the library: a change there left the help, or the command line, saying
another value than the library uses. Each is now read from its one definition
(learnsim._defaults, a module that imports nothing, so that ``learnsim --help`` and
``learnsim search`` start no slower)."""
from __future__ import annotations

import subprocess
import sys
import textwrap


def _run(code):
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_help_and_the_options_follow_the_one_definition():
    # the definitions changed before anything reads them: every reader must see the change
    out = _run(r"""
        import contextlib, io, re, sys
        import learnsim._defaults as d
        d.DEFAULT_HOLDOUT, d.DEFAULT_PAIRS_VALIDATION_FRACTION, d.DEFAULT_NORM = 0.35, 0.15, "l1"
        import learnsim.cli
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            try:
                learnsim.cli.main(["fit", "--help"])
            except SystemExit:
                pass
        light = not any(m in sys.modules for m in ("sklearn", "learnsim.baseline", "learnsim.film"))
        flat = " ".join(buf.getvalue().split())
        from learnsim.baseline import DEFAULT_HOLDOUT
        from learnsim.film.recipe import DEFAULT_PAIRS_VALIDATION_FRACTION
        from learnsim.fitting import FitOptions
        from learnsim.cli import build_parser
        from learnsim.cli._fit_text import fit_options
        argv = ["fit", "--input", "x.tsv", "--model", "m.npz"]
        norm = fit_options(build_parser(argv).parse_args(argv)).norm
        no_norm = fit_options(build_parser(argv + ["--no-norm"]).parse_args(argv + ["--no-norm"])).norm
        print(light, "default: 0.35;" in flat, "calibration; default: 0.15)" in flat,
              "--validation-fraction (0.15) of the queries" in flat, re.search(r"0\.2(?![0-9])", flat) is not None,
              DEFAULT_HOLDOUT, DEFAULT_PAIRS_VALIDATION_FRACTION, FitOptions().norm, norm, no_norm)
    """)
    assert out.split() == ["True", "True", "True", "True", "False", "0.35", "0.15", "l1", "l1", "None"], out


def test_the_defaults_as_documented():
    out = _run("""
        import contextlib, io
        import learnsim.cli
        from learnsim.baseline import DEFAULT_HOLDOUT
        from learnsim.film.recipe import DEFAULT_PAIRS_VALIDATION_FRACTION
        from learnsim.fitting import FitOptions
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            try:
                learnsim.cli.main(["fit", "--help"])
            except SystemExit:
                pass
        flat = " ".join(buf.getvalue().split())
        print(DEFAULT_HOLDOUT, DEFAULT_PAIRS_VALIDATION_FRACTION, FitOptions().norm, flat.count("default: 0.2;"),
              flat.count("calibration; default: 0.2)"), flat.count("--validation-fraction (0.2) of the queries"))
    """)
    assert out.split() == ["0.2", "0.2", "l2", "1", "1", "1"], out
