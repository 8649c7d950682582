"""Defaults of fitting that the command line's help states, defined here once, in a module that
imports nothing: ``learnsim --help`` and ``learnsim search`` build the parser of ``fit`` at start,
and the modules that use these defaults (learnsim.baseline, learnsim.film.recipe,
learnsim._fit_options) would bring numpy and more, and scikit-learn behind them (0.9 s), into
every command's start. Those modules import them from here; nothing else defines them."""

#: Share of the supervision that ``fit`` keeps back to measure learned against baseline
#: (learnsim.baseline.DEFAULT_HOLDOUT, ``--baseline-holdout``).
DEFAULT_HOLDOUT = 0.2
#: On pairs (and judgements), the share of the queries (or groups of pairs) held out to choose
#: and check the search and matching rules (learnsim.film.recipe, ``--validation-fraction``).
DEFAULT_PAIRS_VALIDATION_FRACTION = 0.2
#: The norm of the term vectors (FitOptions.norm; ``--no-norm`` sets None).
DEFAULT_NORM = "l2"
#: The duplicate rules a FILM fitted on pairs may choose among (learnsim.scoring.choose_matcher;
#: ``--matcher``); "auto" tries them all. Importable from learnsim.fitting too.
MATCHER_CHOICES = ("auto", "threshold", "classifier", "knn")
