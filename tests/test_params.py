"""Parameter constraints declared once per estimator (learnsim._utils.params, issue 31 part 4)."""
import importlib
import inspect
from numbers import Integral, Real

import numpy as np
import pytest

from learnsim._utils.params import Checked, Interval, Options, describe, validate_param, validate_params
from learnsim.exceptions import ParameterTypeError


# ------------------------------------------------------------------------ each kind of constraint
@pytest.mark.parametrize("constraint,good,bad_value,bad_type", [
    (Interval(Integral, 1, None), [1, 7, np.int64(3)], [0, -2], [1.0, "1", True, None]),
    (Interval(Integral, 0, 10, closed="left"), [0, 9], [10, -1], [2.5]),
    (Interval(Real, 0, 1), [0, 0.5, 1, np.float32(0.2)], [-0.1, 1.5, float("nan"), float("inf")], ["0.5", False]),
    (Interval(Real, 0, 1, closed="neither"), [0.5], [0.0, 1.0], [None]),
    (Interval(Real, 0, None, closed="right"), [1e-9, 1e9], [0, -1], [[1.0]]),
    (Options({"auto", "x"}), ["auto", "x"], ["y", ""], [1, None, b"auto"]),
    ("boolean", [True, False, np.bool_(True)], [], [0, 1, "yes", None]),
    ("random_state", [None, 0, np.int32(3), np.random.default_rng(0), np.random.RandomState(0)], [-1, np.int64(-5)],
     ["0", 1.5, True]),
    ("callable", [len, lambda x: x], [], [1, "f"]),
    (None, [None], [], [0, "None"]),
    (dict, [{}, {"a": 1}], [], [[], None]),
    ("no_validation", [None, 0, "x", object()], [], []),
])
def test_each_constraint_accepts_and_refuses(constraint, good, bad_value, bad_type):
    for value in good:
        assert validate_param("p", value, [constraint]) is value
    for value in bad_value:
        with pytest.raises(ValueError, match=r"^p must be .*; got ") as info:
            validate_param("p", value, [constraint])
        assert not isinstance(info.value, TypeError)           # right type, wrong value: a plain ValueError
    for value in bad_type:
        with pytest.raises(TypeError, match=r"^p must be .*; got ") as info:
            validate_param("p", value, [constraint])
        assert isinstance(info.value, ParameterTypeError) and isinstance(info.value, ValueError)


def test_several_constraints_accept_what_any_accepts():
    allowed = [Options({"auto"}), Interval(Real, 0, None), None]
    for value in ("auto", 0.0, 3, None):
        validate_param("margin", value, allowed)
    with pytest.raises(ValueError, match=r"margin must be 'auto', a finite number >= 0 or None; got -1"):
        validate_param("margin", -1, allowed)
    with pytest.raises(TypeError, match=r"got \[1\]"):
        validate_param("margin", [1], allowed)


def test_messages_name_the_parameter_what_is_allowed_and_the_value():
    with pytest.raises(ValueError) as info:
        validate_param("n_components", 0, [Interval(Integral, 1, None), None])
    assert str(info.value) == "n_components must be a positive integer or None; got 0"
    with pytest.raises(ValueError) as info:
        validate_param("tol", 1.0, [Interval(Real, 0, 1, closed="left")])
    assert str(info.value) == "tol must be a number in [0, 1); got 1.0"
    with pytest.raises(ValueError) as info:
        validate_param("kind", "z", [Options(("a", "b"))])
    assert str(info.value) == "kind must be one of 'a', 'b'; got 'z'"
    with pytest.raises(TypeError) as info:
        validate_param("verbose", "yes", ["boolean"])
    assert str(info.value) == "verbose must be True or False; got 'yes'"


@pytest.mark.parametrize("constraint,words", [
    (Interval(Integral, 2, None), "an integer >= 2"),
    (Interval(Integral, 0, None), "an integer >= 0"),
    (Interval(Real, 0, None, closed="neither"), "a positive finite number"),
    (Interval(Real, None, 5, closed="left"), "a finite number < 5"),
    (Interval(Real, 0, None, description=">= 0 (a weight)"), ">= 0 (a weight)"),
    (Options({"only"}), "'only'"),
    ("random_state", "None, an int >= 0 or a numpy Generator"),
    ("callable", "a callable"),
])
def test_descriptions(constraint, words):
    assert describe([constraint]) == words


def test_checked_runs_the_function_and_keeps_its_error():
    def check(value):
        if value != 3:
            raise ValueError(f"x must be three; got {value!r}")

    assert validate_param("x", 3, [Checked(check)]) == 3
    with pytest.raises(ValueError, match="x must be three; got 4"):
        validate_param("x", 4, [Checked(check)])
    with pytest.raises(ValueError, match="only one"):
        validate_param("x", 3, [Checked(check), None])


def test_bad_declarations_are_refused():
    with pytest.raises(TypeError):
        Interval(str, 0, 1)
    with pytest.raises(ValueError):
        Interval(Real, 0, 1, closed="sometimes")
    with pytest.raises(ValueError):
        Interval(Real, 2, 1)
    with pytest.raises(ValueError):
        Options([])
    with pytest.raises(ValueError, match="unknown constraint"):
        validate_param("p", 1, ["integer"])
    with pytest.raises(TypeError, match="not a parameter constraint"):
        validate_param("p", 1, [3])


def test_validate_params_checks_every_declared_parameter_of_an_estimator():
    from sklearn.base import BaseEstimator

    class Toy(BaseEstimator):
        _parameter_constraints = {"k": [Interval(Integral, 1, None)], "how": [Options({"a", "b"})]}

        def __init__(self, k=1, how="a"):
            self.k, self.how = k, how

    assert validate_params(Toy()) == {"k": 1, "how": "a"}
    with pytest.raises(ValueError, match="k must be a positive integer; got 0"):
        validate_params(Toy(k=0))
    with pytest.raises(ValueError, match="how must be one of"):
        validate_params(Toy(how="c"))


# ----------------------------------------------------------------- the estimators that declare them
ESTIMATOR_MODULES = [
    "learnsim.mcd._mcd", "learnsim.film._film", "learnsim.film.hybrid", "learnsim.linklearn._linklearn",
    "learnsim.linklearn._weighting", "learnsim.relative._relative", "learnsim.text._vectorizer",
    "learnsim.text.bm25", "learnsim.matching._matchers", "learnsim.matching.pair_classifier",
]


# a default that stands for "give one" (fit refuses it, as before the constraints)
PLACEHOLDER_DEFAULTS = {"learnsim.film.hybrid.HybridEmbedding": "transformer"}


def _declaring_classes():
    found = {}
    for name in ESTIMATOR_MODULES:
        module = importlib.import_module(name)
        for obj in vars(module).values():
            if inspect.isclass(obj) and obj.__module__ == name and "_parameter_constraints" in vars(obj):
                found[f"{name}.{obj.__qualname__}"] = obj
    return found


def test_some_estimators_declare_constraints():
    assert len(_declaring_classes()) >= 1


@pytest.mark.parametrize("path", sorted(_declaring_classes()))
def test_every_parameter_of_init_is_declared(path):
    cls = _declaring_classes()[path]
    params = {p.name for p in inspect.signature(cls.__init__).parameters.values()
              if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    assert set(cls._parameter_constraints) == params


@pytest.mark.parametrize("path", sorted(_declaring_classes()))
def test_the_defaults_satisfy_the_constraints(path):
    cls = _declaring_classes()[path]
    sig = inspect.signature(cls.__init__)
    required = [p.name for p in sig.parameters.values() if p.name != "self" and p.default is p.empty]
    if required:
        pytest.skip(f"{path} has required parameters {required}")
    if path in PLACEHOLDER_DEFAULTS:
        pytest.skip(f"{path}: the default {PLACEHOLDER_DEFAULTS[path]}=None is a placeholder that fit refuses")
    validate_params(cls())


@pytest.mark.parametrize("path", ["learnsim.film:FILM", "learnsim.mcd:MinimumClusterDistortion",
                                  "learnsim.relative:RelativeComparisonMetric", "learnsim.text:TextVectorizer"])
def test_a_negative_random_state_is_refused_by_name(path):
    # numpy's seeding refused it deep in fit as "expected non-negative integer", naming nothing
    from learnsim.supervision import clusters_to_triplets

    module, name = path.split(":")
    cls = getattr(importlib.import_module(module), name)
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(4), 6)
    X = rng.normal(size=(24, 5)) + y[:, None]
    if name == "TextVectorizer":
        est, args = cls(n_components=2, random_state=-1), (["ab bc cd", "bc cd de", "cd de ef", "de ef fg"],)
    elif name == "MinimumClusterDistortion":
        est, args = cls(random_state=-1), (X, y)
    else:
        est, args = cls(random_state=-1), (X, clusters_to_triplets(y, 60, random_state=0))
    if name == "FILM":
        est.set_params(n_components=2)
    with pytest.raises(ValueError, match=r"random_state must be None, an int >= 0 or a numpy Generator; got -1"):
        est.fit(*args)
