"""A stand-in for an index segment of sparse rows, as the search kernels and the scan see one:
the rows' posting lists (CSC of the rows), no dense part, nothing to check."""
import numpy as np
import scipy.sparse as sp


class SparseSegment:
    dense = None

    def __init__(self, W):
        csc = sp.csc_matrix(W)
        csc.sort_indices()
        self.n = W.shape[0]
        self.indptr = csc.indptr.astype(np.int64)
        self.indices = csc.indices.astype(np.int32)
        self.data = csc.data.astype(np.float32)

    def check(self):
        pass
