"""Constructor parameters checked from one declaration per estimator (issue 31, part 4).

scikit-learn's idea (``_parameter_constraints``), in our own few lines: an estimator class lists,
for each parameter of its ``__init__``, the constraints of which a valid value satisfies at least
one, and its ``fit`` (or ``_check_params``) calls :func:`validate_params` once instead of a
hand-written check per parameter::

    class FILM(BaseEstimator):
        _parameter_constraints = {
            "n_components": [Interval(Integral, 1, None)],
            "svd_rank": [Interval(Integral, 1, None), None],
            "margin": [Options({"auto"}), Interval(Real, 0, None)],
            "random_state": ["random_state"],
        }

A constraint is one of

* :class:`Interval` ``(Integral or Real, low, high, closed=...)``: a number in a range (never a
  bool; a real one finite);
* :class:`Options` ``(values)``: one of a few values (strings, mostly);
* ``"boolean"``: a bool (numpy's too);
* ``"random_state"``: None, an int, a numpy ``Generator`` or ``RandomState``;
* ``"callable"``: anything callable;
* ``"no_validation"``: anything (a parameter used for its truth value, or checked where it is
  used);
* ``None``: the value None;
* a class: an instance of it;
* :class:`Checked` ``(function)``: the parameter is checked by ``function(value)``, which raises
  its own error (a check that several places share, or whose message is documented); it is the
  parameter's only constraint.

A value that satisfies none raises :class:`~learnsim.exceptions.ParameterTypeError` (a TypeError
and, as learnsim 0.1 raised for these, a ValueError) when its type is one that no constraint is
about, and ValueError when it has the right type but is out of range or not an option. The
message names the parameter, what is allowed and the value: ``"tol must be a finite number >= 0;
got -1"``.

Checks that involve the data (``n_components <= n_features``) stay in ``fit``.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..exceptions import ParameterTypeError

__all__ = ["Interval", "Options", "Checked", "validate_params", "validate_param", "describe",
           "ParameterTypeError"]

Integral, Real = numbers.Integral, numbers.Real
_CLOSED = ("both", "left", "right", "neither")


def _is_bool(value):
    return isinstance(value, (bool, np.bool_))


class _Constraint:
    """A constraint: ``accepts_type(value)`` (its type is one this constraint is about: a value
    that fails is out of range, a ValueError) and ``is_satisfied_by(value)``; ``str()`` says what
    it allows."""


class Interval(_Constraint):
    """A number of ``type`` (:class:`numbers.Integral` or :class:`numbers.Real`) between ``low``
    and ``high`` (``None``: unbounded); ``closed`` says which ends belong to it. A bool is never
    a number here, and a real one must be finite.

    ``description`` replaces the generated one (``"a finite number >= 0"``) in messages.
    """

    def __init__(self, type, low, high, *, closed="both", description=None):
        if type not in (Integral, Real, int, float):
            raise TypeError(f"Interval type must be numbers.Integral or numbers.Real; got {type!r}")
        if closed not in _CLOSED:
            raise ValueError(f"closed must be one of {_CLOSED}; got {closed!r}")
        if low is not None and high is not None and low > high:
            raise ValueError(f"Interval low={low!r} is above high={high!r}")
        self.type = Integral if type in (Integral, int) else Real
        self.low, self.high, self.closed = low, high, closed
        self.description = description

    def accepts_type(self, value):
        return isinstance(value, self.type) and not _is_bool(value)

    def is_satisfied_by(self, value):
        if not self.accepts_type(value):
            return False
        if self.type is Real and not math.isfinite(value):
            return False
        if self.low is not None:
            if value < self.low or (value == self.low and self.closed in ("right", "neither")):
                return False
        if self.high is not None:
            if value > self.high or (value == self.high and self.closed in ("left", "neither")):
                return False
        return True

    def __str__(self):
        if self.description is not None:
            return self.description
        integer = self.type is Integral
        low_in = self.closed in ("both", "left")
        high_in = self.closed in ("both", "right")
        if self.low is not None and self.high is not None:
            what = "an integer" if integer else "a number"
            return f"{what} in {'[' if low_in else '('}{self.low:g}, {self.high:g}{']' if high_in else ')'}"
        if self.low is not None:
            if integer and ((self.low == 1 and low_in) or (self.low == 0 and not low_in)):
                return "a positive integer"
            if not integer and self.low == 0 and not low_in:
                return "a positive finite number"
            return f"{'an integer' if integer else 'a finite number'} {'>=' if low_in else '>'} {self.low:g}"
        if self.high is not None:
            return f"{'an integer' if integer else 'a finite number'} {'<=' if high_in else '<'} {self.high:g}"
        return "an integer" if integer else "a finite number"

    def __repr__(self):
        return (f"Interval({self.type.__name__}, {self.low!r}, {self.high!r}, closed={self.closed!r})")


class Options(_Constraint):
    """One of ``values`` (compared with ``==``, and of the same type: ``True`` is not ``1``)."""

    def __init__(self, values):
        self.values = tuple(values)
        if not self.values:
            raise ValueError("Options needs at least one value")
        self._types = tuple({type(v) for v in self.values})

    def accepts_type(self, value):
        return isinstance(value, self._types) and not (_is_bool(value) and bool not in self._types)

    def is_satisfied_by(self, value):
        return self.accepts_type(value) and any(value == v for v in self.values)

    def __str__(self):
        shown = [repr(v) for v in self.values]
        return shown[0] if len(shown) == 1 else "one of " + ", ".join(shown)

    def __repr__(self):
        return f"Options({list(self.values)!r})"


class Checked(_Constraint):
    """The parameter is checked by ``function(value)``, which raises its own error (TypeError or
    ValueError, its message naming the parameter). It must be the parameter's only constraint."""

    def __init__(self, function):
        if not callable(function):
            raise TypeError(f"Checked needs a function; got {function!r}")
        self.function = function

    def __repr__(self):
        return f"Checked({getattr(self.function, '__name__', self.function)!r})"


class _Boolean(_Constraint):
    def accepts_type(self, value):
        return _is_bool(value)

    is_satisfied_by = accepts_type

    def __str__(self):
        return "True or False"


class _RandomState(_Constraint):
    def accepts_type(self, value):
        return (value is None or (isinstance(value, Integral) and not _is_bool(value))
                or isinstance(value, (np.random.Generator, np.random.RandomState)))

    def is_satisfied_by(self, value):
        # a negative seed has the right type and a bad value: numpy's seeding refuses it later,
        # deep in fit, as "expected non-negative integer", naming no parameter
        return self.accepts_type(value) and not (isinstance(value, Integral) and value < 0)

    def __str__(self):
        return "None, an int >= 0 or a numpy Generator"


class _Callable(_Constraint):
    def accepts_type(self, value):
        return callable(value)

    is_satisfied_by = accepts_type

    def __str__(self):
        return "a callable"


class _NoneConstraint(_Constraint):
    def accepts_type(self, value):
        return value is None

    is_satisfied_by = accepts_type

    def __str__(self):
        return "None"


class _InstanceOf(_Constraint):
    def __init__(self, cls):
        self.cls = cls

    def accepts_type(self, value):
        return isinstance(value, self.cls)

    is_satisfied_by = accepts_type

    def __str__(self):
        return f"a {self.cls.__module__}.{self.cls.__qualname__}" if self.cls.__module__ != "builtins" \
            else f"a {self.cls.__name__}"


class _Anything(_Constraint):
    def accepts_type(self, value):
        return True

    is_satisfied_by = accepts_type

    def __str__(self):
        return "anything"


_NAMED = {"boolean": _Boolean(), "random_state": _RandomState(), "callable": _Callable(),
          "no_validation": _Anything()}


def _as_constraint(c):
    if c is None:
        return _NoneConstraint()
    if isinstance(c, str):
        try:
            return _NAMED[c]
        except KeyError:
            raise ValueError(f"unknown constraint {c!r}; expected one of {sorted(_NAMED)}") from None
    if isinstance(c, type):
        return _InstanceOf(c)
    if isinstance(c, _Constraint):
        return c
    raise TypeError(f"not a parameter constraint: {c!r}")


def describe(constraints):
    """What the ``constraints`` allow, in words: ``"a positive integer or None"``."""
    parts = [str(_as_constraint(c)) for c in constraints]
    # None last: "a positive integer or None" reads better than "None or a positive integer"
    parts.sort(key=lambda p: p == "None")
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]


def validate_param(name, value, constraints):
    """Check one parameter ``value`` against its list of ``constraints`` (see the module
    docstring); return ``value``."""
    constraints = [_as_constraint(c) for c in constraints]
    if any(isinstance(c, Checked) for c in constraints):
        if len(constraints) != 1:
            raise ValueError(f"the constraints of {name}: Checked must be the only one")
        constraints[0].function(value)
        return value
    if any(c.is_satisfied_by(value) for c in constraints):
        return value
    message = f"{name} must be {describe(constraints)}; got {value!r}"
    if any(c.accepts_type(value) for c in constraints):
        raise ValueError(message)
    raise ParameterTypeError(message)


def validate_params(estimator, constraints=None):
    """Check every parameter of ``estimator`` that ``type(estimator)._parameter_constraints``
    (or ``constraints``) declares, in the order declared; return its ``get_params(deep=False)``.

    Raises
    ------
    ParameterTypeError
        (a TypeError and a ValueError) if a value's type is not one that its constraints allow.
    ValueError
        If a value has an allowed type but is out of range or not one of the options.
    """
    if constraints is None:
        constraints = type(estimator)._parameter_constraints
    params = estimator.get_params(deep=False)
    for name, allowed in constraints.items():
        validate_param(name, params[name], allowed)
    return params
