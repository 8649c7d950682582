"""Approximate nearest-neighbour (ANN) search over dense vectors: the ``ann`` extra.

Every backend is an :class:`ApproximateIndex`, a :class:`learnsim.search.NeighborIndex` with
ids, incremental :meth:`~ApproximateIndex.add`, :meth:`~ApproximateIndex.remove`, search
parameters that trade recall for speed without a rebuild, and :meth:`~ApproximateIndex.save`
to a directory that :func:`load_ann` checks before use::

    from learnsim.ann import make_ann, load_ann
    ann = make_ann("faiss-hnsw", metric="cosine", ef_search=64).fit(X, ids=doc_ids)
    ids, scores = ann.search(Q, 10)        # best first; -1 / -inf pad missing results
    ann.add(X_new)                          # ids continue after the largest so far
    ann.remove([3, 17])                     # never returned again
    ann.save("vectors.ann"); ann = load_ann("vectors.ann")

Backends (:data:`ANN_BACKENDS`):

``"faiss-flat"``
    Exact brute force in faiss [1]_; the reference for the others.
``"faiss-hnsw"``
    faiss's HNSW graph [2]_; removal by tombstones (an id selector keeps them out of the
    results, and the graph is rebuilt once they outnumber the live items).
``"faiss-ivf"``
    faiss's inverted file over k-means lists [3]_; native removal.
``"usearch"``
    usearch's HNSW graph [4]_; native removal.

Install them with ``pip install learnsim[ann]`` (faiss-cpu and usearch; hnswlib has no wheel
for every platform we support, so usearch is the second HNSW implementation). The packages are
imported only when a backend is used, so ``import learnsim.ann`` works without them;
:func:`available_backends` lists those that import here.

Metrics: ``"inner_product"``, ``"cosine"`` (rows L2-normalised, all-zero rows score 0),
``"sqeuclidean"`` and ``"euclidean"``, with the score conventions of :mod:`learnsim.search`
(similarities descend, distances ascend, equal scores by ascending id).

References
----------
.. [1] J. Johnson, M. Douze and H. Jégou, "Billion-scale similarity search with GPUs",
   IEEE Transactions on Big Data 7(3), 2019 (arXiv:1702.08734).
.. [2] Y. A. Malkov and D. A. Yashunin, "Efficient and robust approximate nearest neighbor search
   using Hierarchical Navigable Small World graphs", IEEE TPAMI 42(4), 2018 (arXiv:1603.09320).
.. [3] H. Jégou, M. Douze and C. Schmid, "Product quantization for nearest neighbor search",
   IEEE TPAMI 33(1), 2011.
.. [4] A. Vardanian, "USearch", https://github.com/unum-cloud/usearch (2023).
"""
from ._base import FORMAT_NAME, FORMAT_VERSION, ANNFormatError, ApproximateIndex, UnknownIdError
from ._faiss import FaissIndex
from ._registry import ANN_BACKENDS, available_backends, load_ann, make_ann
from ._usearch import USearchIndex

__all__ = ["ANN_BACKENDS", "ANNFormatError", "ApproximateIndex", "FaissIndex", "FORMAT_NAME",
           "FORMAT_VERSION", "USearchIndex", "UnknownIdError", "available_backends", "load_ann",
           "make_ann"]
