"""The search trace's parts of a batch (``LEARNSIM_TRACE_SEARCHES``, ``bench_serve.py --trace``):
the seconds a batch spent reloading what other handles wrote, beside a call of the write worker
next to it, in the garbage collector, on the CPU and waiting for a core, so that a slow batch can be told apart from a slow scan."""
import asyncio
import gc
import threading
import time

from learnsim.service._worker import IndexWorker, SearchTrace


class _Handle:
    """A stand-in index: ``reload_seconds`` grows by ``reload`` at each search, as a handle's does
    when it loads what another handle wrote before its read; ``collect`` runs the collector."""

    reload_seconds = 0.0

    def __init__(self):
        self.reload, self.collect = 0.0, False

    def search(self, index, queries):
        self.reload_seconds += self.reload
        if self.collect:
            gc.collect()
        time.sleep(0.02)
        return [[q] for q in queries]


def _rows(path):
    lines = path.read_text(encoding="ascii").splitlines()
    head = lines[0].split("\t")
    return head, [dict(zip(head, map(float, line.split("\t")))) for line in lines[1:]]


def test_a_traced_batch_records_its_reload_the_write_beside_it_and_the_collector(tmp_path):
    handle = _Handle()
    path = tmp_path / "searches.tsv"
    trace = SearchTrace(path)
    worker = IndexWorker(handle, max_pending=100, timeout_s=30, trace=trace)
    writer = IndexWorker(None, max_pending=100, timeout_s=30, next_to=worker)
    writing = threading.Event()

    def write(index):
        writing.set()
        time.sleep(1.0)   # far longer than the batch beside it, on a busy machine too

    async def run():
        await worker.call(handle.search, key="k", queries=["alone"])
        handle.reload = 0.005
        await worker.call(handle.search, key="k", queries=["reloading"])
        handle.reload = 0.0
        written = writer.submit(write)
        writing.wait(10)
        await worker.call(handle.search, key="k", queries=["beside"])
        written.result(10)
        handle.collect = True
        await worker.call(handle.search, key="k", queries=["collecting"])

    try:
        asyncio.run(run())
    finally:
        writer.close()
        worker.close()
    head, rows = _rows(path)
    assert head == ["queued", "started", "finished", "resumed", "batch_queries", "batch_requests",
                    "reload", "beside", "gc", "cpu", "runq"]
    alone, reloading, beside, collecting = rows
    took = [r["finished"] - r["started"] for r in rows]
    assert alone["reload"] == 0 and alone["beside"] == 0
    assert abs(reloading["reload"] - 0.005) < 1e-5 and reloading["beside"] == 0
    # the whole batch ran while the write slept: beside it all along (to the trace's 1 us)
    assert beside["reload"] == 0 and abs(beside["beside"] - took[2]) < 1e-5 and beside["beside"] > 0.015
    assert 0 < collecting["gc"] <= took[3] and collecting["beside"] == 0
    # the batches slept: little of their time was on the CPU; the collection was
    assert all(0 <= r["cpu"] <= t + 1e-3 for r, t in zip(rows, took)) and alone["cpu"] < 0.5 * took[0]
    assert collecting["cpu"] > 0
    # the wait for a core is a part of the batch's time off the CPU: never less than nothing, and
    # with the CPU never more than the batch took (both read inside the batch's clock readings)
    assert all(r["runq"] >= 0 and r["cpu"] + r["runq"] <= t + 1e-4 for r, t in zip(rows, took))
    # the trace's collector hook goes with it
    assert trace._collected not in gc.callbacks


def test_an_index_handle_counts_the_seconds_it_reloads_before_its_reads(tmp_path):
    """Index.reload_seconds grows when a read first loads what another handle wrote, not otherwise."""
    import warnings

    import learnsim
    from learnsim.index import Index

    texts = ["how do I reset my password", "forgot my password", "I was charged twice",
             "refund for a double charge", "app crashes on start", "crash after the update"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = learnsim.fit(texts, clusters=[0, 0, 1, 1, 2, 2])
    Index.build(tmp_path / "idx", model, texts).close()
    reader, writer = Index.open(tmp_path / "idx"), Index.open(tmp_path / "idx", _pipeline=model)
    try:
        reader.search("password")
        assert reader.reload_seconds == 0.0
        writer.add(["password reset link expired"])
        reader.search("password")
        seen = reader.reload_seconds
        assert seen > 0
        reader.search("password")
        assert reader.reload_seconds == seen
    finally:
        reader.close()
        writer.close()
