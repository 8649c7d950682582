"""What the service answers while its model loads in the background (``create_app(background=True)``:
scikit-learn's import and the model file, seconds on a large model).

``/``, ``/openapi.json`` and ``/v1/info`` read the pipeline (its method, whether it has a duplicate
rule, its repr), whose property holds a lock while the loader thread loads it: they waited for the
whole load, ``/openapi.json`` in the event loop itself, and the page and ``/v1/info`` in the
reads' thread, holding up every search queued behind them. None of them needs the model: the
method is in the index's manifest, and whether the model has a duplicate rule (which decides
whether the schema lists ``POST /v1/match``) in the model file's own manifest, read without
building anything; ``/v1/info`` says ``"model": "loading"`` (and ``"pipeline": null``) until the
model is there.
"""
from __future__ import annotations

__all__ = ["model_loading", "can_match"]


def model_loading(app):
    """Whether the model of ``app``'s index is being loaded in the background (not done yet)."""
    load = getattr(app.state, "model_load", None)
    return load is not None and not load.done()


def can_match(index, loading):
    """Whether the model ``index`` serves has a duplicate rule: the loaded pipeline's answer, or,
    while it loads (``loading``) and is not there yet, its file's manifest's (a part named
    "matcher", as :meth:`learnsim.pipeline.Pipeline.parts` saves it)."""
    if not loading or index._pipeline is not None:
        return index.pipeline.matcher is not None
    from ..index._versions import model_file
    from ..persistence import read_manifest

    try:
        manifest = read_manifest(model_file(index.path, index.manifest))
    except (OSError, ValueError):
        # a file that cannot be read: what its load says (the damage, named as the load names it)
        return index.pipeline.matcher is not None
    objects = manifest.get("objects")
    return manifest.get("saved_as") == "dict" and isinstance(objects, dict) and "matcher" in objects
