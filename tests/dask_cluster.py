"""What the tests of learnsim.distributed share: a two-worker LocalCluster on this machine, and bags
with empty partitions among their partitions. Import it after ``pytest.importorskip("distributed")``."""
import uuid
import warnings


def local_client():
    """A ``distributed.Client`` of ``LocalCluster(n_workers=2, threads_per_worker=1)`` bound to
    127.0.0.1, closed after the module: use as ``client = pytest.fixture(scope="module")(local_client)``."""
    from distributed import Client, LocalCluster

    with warnings.catch_warnings():
        # the scheduler's HTTP routes (not the dashboard) move to a free port when 8787 is taken
        warnings.filterwarnings("ignore", message="Port .* is already in use")
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                               host="127.0.0.1")
    c = Client(cluster)
    yield c
    c.close()
    cluster.close()


def bag_of(items, sizes):
    """A dask bag of ``items`` in partitions of ``sizes`` (zeros give empty partitions), the rest
    in a last partition."""
    import dask
    import dask.bag as db

    parts, start = [], 0
    for n in sizes:
        parts.append(items[start:start + n])
        start += n
    parts.append(items[start:])
    # a key of its own for every partition of every bag: two bags of equal lists would otherwise
    # share keys with different tasks (dask/dask#9888)
    return db.from_delayed([dask.delayed(list)(p, dask_key_name=f"part-{uuid.uuid4().hex}") for p in parts])
