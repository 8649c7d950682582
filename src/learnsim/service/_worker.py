"""The one thread that runs every call on the service's index, and the bounded queue in front of it.

An :class:`~learnsim.index.Index` is not thread-safe, and a search of a dense index is bound by
memory bandwidth (every row is read once per query): so one thread runs the index's calls in the
order they were queued, and searches with the same options that wait together run as one
``Index.search(list)`` call, which reads the rows once for the whole batch. Under load this is what
keeps latency down; on an idle service a batch is a single request and nothing waits. Under load
(the last batch was large) a search waits a little (``LINGER_S``) for the clients that batch
answered to ask again, so that one batch serves them all rather than two half as large.

The queue is bounded: a request that would make more than ``max_pending`` calls wait is refused at
once (429, the client retries), and one that has not started within ``timeout_s`` (or the
``timeout`` given to :meth:`IndexWorker.call`) is withdrawn and answered 503, never run
afterwards. A call that has started is always waited for: a write the client was not told about
must not happen behind its back.

The queue is first in, first out: the service splits a heavy request into pieces it submits one
after another (each once the one before is done), so a call queued meanwhile runs before the
heavy request's next piece, and waits for at most one piece.

The service runs two of these, one on its search handle and one on its write handle, and the two
threads run side by side. They used to take turns (a search batch waited for the write running,
a write for the batch running), because a batch beside a write of its own process ran two to
three times as long. Since searches got cheaper, the turns cost more than they saved. A batch
that waited for a whole write also waited through its fsyncs, when the write uses no CPU. Beside
the write, it shares the cores and Python's lock only while the write computes.
``bench_serve.py --workers 2 --threads 1 --trace``, with and without the turns alternating, 3 runs
each on one day, 100k documents, 50 clients, 10 documents written every 0.1 s (docs/service.md):

- LearnedBM25: search p99 17.8-18.9 ms against 31.2-39.8 ms. The writes wait longer: p50 40-45
  ms against 26-34 ms, p99 73-77 ms against 45-61 ms.
- FILM exact: p99 1.68-1.93x its floor against 1.91-2.24x.
- FILM approximate (faiss IVF): p99 25.7-28.3 ms against 33.5-35.1 ms.

Where a batch's time off the CPU goes (the trace's ``runq``: its thread runnable, waiting for a
core; the rest of it asleep, for Python's lock or the disk). FILM exact, the same command, 3 runs
on a day the two cores were shared with other work (load 11-15): a batch's CPU 16-17 ms (p50);
waiting for a core 50-70 ms p50, 183-219 ms p99; asleep 0.1 ms p50, 9-21 ms p99 (16-24 ms p99
for the batches beside a write); the slowest 5 % of batches 177-195 ms for a core on average,
-4 to 4 ms asleep. So the tail is a wait for the cores, not a convoy on Python's lock behind the
write thread: a write of 10 documents takes 8-10 ms of CPU in its thread (50-80 ms in all, its
fsyncs), and a reload after it 1.7 ms (p50); the batches after a write are slow because they wait
for a core longer (beside a write 68-87 ms p50 against 15-40 with neither write nor reload).
A lower OS priority for the write thread (nice +10 on its native id, os.setpriority), 3 pairs
interleaved, was worse: search p99 362-600 ms against 319-356, the writes' p50 0.8-1.4 s against
0.14-0.17 s, and the batches beside a write asleep 49-143 ms p99 against 16-24: descheduled, the
niced thread held Python's lock (priority inversion). Not kept.
"""
from __future__ import annotations

import asyncio
import copy
import gc
import threading
import time
from collections import deque
from concurrent.futures import Future

from ..exceptions import FilterError

__all__ = ["IndexWorker", "Busy", "TimedOut", "SearchTrace"]


# How long a search under load waits for the clients the last batch answered to ask again, so
# that they join it (at most half the last batch's time, and only after a batch of
# LINGER_MIN_BATCH requests or more: an idle or lightly used service never waits, nor does one
# client posting lists of queries one after another, whose batch is one request). Without it, 25
# clients a process settle into two alternating batches of about 12; a scan of 100,000 dense rows
# costs about as much for 12 queries as for 25 (the rows are read once a batch), so one batch
# of 25 does the work of two. bench_serve.py --model film --ann exact --workers 2 --threads 1
# (50 clients, 2 cores), two rounds each: without writes p99 65-70 ms at 1,310-1,551 requests/s
# and 1.09-1.30 ms of server CPU a request, against 98-102 ms, 1,123-1,294/s and 1.43-1.66 ms
# without the wait; with writes 1,340-1,441/s against 1,157-1,203/s, p99 74-79 against 68-75 ms
# (the writes' reloads make that tail). 5 ms and 8 ms waits did no better.
LINGER_S = 0.003
LINGER_MIN_BATCH = 4


class Busy(Exception):
    """More than ``max_pending`` calls would wait (the service answers 429)."""


class TimedOut(Exception):
    """A call did not start within ``timeout_s`` and was withdrawn (the service answers 503)."""


class Labelled(list):
    """A list of answers with the ``label`` of the index state that produced them (the model
    version and its score names): a batched search's label reaches every request's share."""

    def __init__(self, items, label):
        super().__init__(items)
        self.label = label


class _Call:
    __slots__ = ("fn", "key", "queries", "future", "times")

    def __init__(self, fn, key, queries, traced=False):
        self.fn, self.key, self.queries, self.future = fn, key, queries, Future()
        # (queued, started, finished, queries and requests of its batch, and the seconds of its
        # batch spent reloading, beside the other worker's calls, in the garbage collector, on
        # the CPU in the worker's thread and waiting for a core), where traced
        self.times = [time.monotonic(), 0.0, 0.0, 0, 0, 0.0, 0.0, 0.0, 0.0, 0.0] if traced else None


class SearchTrace:
    """Each search's times in the worker, appended to ``path`` (tab-separated, a header line
    first), for finding where a served search's time goes under load: ``queued started finished
    resumed batch_queries batch_requests reload beside gc cpu``; the first four seconds of
    ``time.monotonic`` (one clock for every process of the machine), ``resumed`` when the
    coroutine that waited for it ran again; the last four the seconds of its batch that the
    index handle spent loading what other handles wrote (``Index.reload_seconds``), that the
    worker named ``next_to`` it (the service's writes) spent running a call, that this
    process's garbage collector ran, and that the worker's thread ran on a CPU (a batch much
    longer than its CPU waited for the cores or for Python's lock). Rows are written ROWS at a time and at
    :meth:`IndexWorker.close`; the service writes one when ``LEARNSIM_TRACE_SEARCHES`` names a
    directory (``searches-PID.tsv`` there). Creating it writes the header line: an OSError when
    ``path`` cannot be written."""

    ROWS = 1000
    HEAD = "queued\tstarted\tfinished\tresumed\tbatch_queries\tbatch_requests\treload\tbeside\tgc\tcpu\trunq\n"

    def __init__(self, path):
        self.path, self.rows, self.lock = path, [], threading.Lock()
        with open(path, "w", encoding="ascii") as fh:
            fh.write(self.HEAD)
        # the collector's seconds in this process (a tuple replaced whole: read from any thread)
        self._gc, self._gc_started = (0.0,), None
        gc.callbacks.append(self._collected)

    def _collected(self, phase, info):
        if phase == "start":
            self._gc_started = time.monotonic()
        elif self._gc_started is not None:
            self._gc = (self._gc[0] + time.monotonic() - self._gc_started,)
            self._gc_started = None

    def gc_seconds(self):
        return self._gc[0]

    def add(self, times, resumed):
        q, s, f, nq, nr, reload, beside, collected, cpu, runq = times
        with self.lock:
            self.rows.append(f"{q:.6f}\t{s:.6f}\t{f:.6f}\t{resumed:.6f}\t{nq}\t{nr}\t{reload:.6f}\t{beside:.6f}"
                             f"\t{collected:.6f}\t{cpu:.6f}\t{runq:.6f}\n")
            if len(self.rows) < self.ROWS:
                return
            rows, self.rows = self.rows, []
        self._write(rows)

    def flush(self):
        with self.lock:
            rows, self.rows = self.rows, []
        self._write(rows)

    def close(self):
        self.flush()
        if self._collected in gc.callbacks:
            gc.callbacks.remove(self._collected)

    def _write(self, rows):
        if rows:
            with open(self.path, "a", encoding="ascii") as fh:
                fh.write("".join(rows))


class IndexWorker:
    """Runs calls on ``index`` in one thread; searches with the same options run batched.

    Parameters
    ----------
    index : learnsim.index.Index
    max_pending : int
        Calls allowed to wait (not counting the one running); one more raises :class:`Busy`.
    timeout_s : float
        How long :meth:`call` waits for its call to start before withdrawing it.
    max_batch : int, default=64
        Most queries searched in one batch.
    linger_s : float, default=LINGER_S
        Under load (the last batch held ``LINGER_MIN_BATCH`` requests or more), how long a search
        waits for more to join its batch: at most this, at most half the last batch's time, and
        no longer than it takes the last batch's number of queries to be queued again.
    trace : SearchTrace, optional
        Where each search's times are written; None: nowhere.
    next_to : IndexWorker, optional
        The worker whose traced searches record how long this one ran calls during each of
        their batches (the service's write worker names its search worker).

    Attributes
    ----------
    lock : threading.Lock
        Held while a call runs: whoever holds it keeps the index busy (the tests do).
    waiting : int
        Calls queued and not started.
    """

    def __init__(self, index, max_pending, timeout_s, max_batch=64, linger_s=LINGER_S, trace=None, next_to=None):
        self.index, self.max_pending, self.timeout_s, self.max_batch = index, max_pending, timeout_s, max_batch
        self.linger_s = linger_s
        self._trace = trace
        # (seconds spent running calls before the one running, when that one started or None):
        # replaced whole, so that the worker next to this one reads it without a lock
        self._busy = (0.0, None)
        self.beside = None
        if next_to is not None:
            next_to.beside = self
        self.lock = threading.Lock()
        self._cv = threading.Condition()
        self._queue = deque()
        self._taken = 0      # taken off the queue by the thread, not yet started (waiting for lock)
        self._running = False
        self._closed = False
        self._last_calls, self._last_batch, self._last_seconds = 0, 0, 0.0
        self.batches = 0     # searches run, and the queries they held: how much batching happened
        self.batched_queries = 0
        self._thread = threading.Thread(target=self._run, name="learnsim-index", daemon=True)
        self._thread.start()

    @property
    def waiting(self):
        return len(self._queue) + self._taken

    # ------------------------------------------------------------------ submitting
    def submit(self, fn, *, key=None, queries=None):
        """Queue ``fn(index)``; or, with ``key``, a search of ``queries`` (a list of str) whose
        options ``key`` (the service's: k and the filter) it shares with the calls it may be
        batched with. Returns a :class:`concurrent.futures.Future` (a search's result: one list of
        hits per query).
        Raises :class:`Busy` when the queue is full."""
        return self._queued(fn, key, queries).future

    def _queued(self, fn, key, queries):
        call = _Call(fn, key, queries, traced=self._trace is not None and key is not None)
        with self._cv:
            if self._closed:
                raise RuntimeError("the service is shutting down")
            # an idle worker takes a call even with max_pending=0: nothing would wait
            if self.waiting >= self.max_pending and (self.waiting or self._running):
                raise Busy(self.waiting)
            self._queue.append(call)
            self._cv.notify()
        return call

    async def call(self, fn, *, key=None, queries=None, timeout=None):
        """Run ``fn(index)`` (or a search: see :meth:`submit`) and return its result, from a
        coroutine; raises what it raised, :class:`Busy`, or :class:`TimedOut` when it did not
        start within ``timeout`` seconds (default: ``timeout_s``)."""
        timeout = self.timeout_s if timeout is None else timeout
        queued = self._queued(fn, key, queries)
        future, times = queued.future, queued.times
        # one asyncio future woken from the thread and one timer: asyncio.wait_for over a shielded
        # wrap_future made four futures, a task and their callbacks a request, on the event loop
        # every request waits on
        if not await _done_within(future, timeout):
            if future.cancel():   # it had not started: withdrawn, it will never run
                raise TimedOut(timeout)
            await _done_within(future, None)   # it is running: its effect must be reported, however late
        if times is not None and times[2]:
            self._trace.add(times, time.monotonic())
        return future.result()

    # ------------------------------------------------------------------ the thread
    def _next(self):
        """The next call, and the searches to run with it (same options), off the queue."""
        with self._cv:
            while not self._queue and not self._closed:
                self._cv.wait()
            if not self._queue:
                return None
            if self.linger_s > 0 and self._queue[0].key is not None and self._last_calls >= LINGER_MIN_BATCH:
                self._linger(self._queue[0].key)
            first = self._queue.popleft()
            calls = [first]
            if first.key is not None:
                n = len(first.queries)
                kept = deque()
                while self._queue:
                    c = self._queue.popleft()
                    if c.key == first.key and n + len(c.queries) <= self.max_batch:
                        calls.append(c)
                        n += len(c.queries)
                    else:
                        kept.append(c)
                self._queue = kept
            self._taken = len(calls)
            return calls

    def _linger(self, key):
        """Under load (the last batch held many requests): wait, the condition's lock held, until the
        searches queued with ``key`` number the last batch's queries more than when called (its
        clients asked again), or LINGER_S (at most half the last batch's time) has passed."""
        def queued():
            return sum(len(c.queries) for c in self._queue if c.key == key)

        target = min(self.max_batch, self._last_batch + queued())
        deadline = time.monotonic() + min(self.linger_s, 0.5 * self._last_seconds)
        while not self._closed and queued() < target:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self._cv.wait(left)

    def _run(self):
        while True:
            calls = self._next()
            if calls is None:
                return
            with self.lock:
                with self._cv:
                    self._taken = 0
                    calls = [c for c in calls if c.future.set_running_or_notify_cancel()]
                    self._running = bool(calls)
                started = time.monotonic()
                self._busy = (self._busy[0], started)
                try:
                    if calls:
                        self._execute(calls)
                finally:
                    self._busy = (self._busy[0] + time.monotonic() - started, None)
                    with self._cv:
                        self._running = False

    def busy_seconds(self, now=None):
        """Seconds this worker has spent running calls, up to ``now`` (time.monotonic)."""
        total, since = self._busy
        if since is None:
            return total
        return total + max(0.0, (time.monotonic() if now is None else now) - since)

    def _counters(self, now=None):
        """(reload, beside, gc, cpu, runq) seconds so far: what a traced batch records the growth of;
        the write worker's up to ``now`` (None: the clock, read after this thread's CPU and wait
        for a core, so that a wait between the readings counts in the batch's time, never in its
        parts alone, which would make its time asleep less than nothing)."""
        cpu, runq = time.thread_time(), _run_queue_seconds()
        now = time.monotonic() if now is None else now
        beside = self.beside.busy_seconds(now) if self.beside is not None else 0.0
        return now, (getattr(self.index, "reload_seconds", 0.0), beside, self._trace.gc_seconds(), cpu, runq)

    def _execute(self, calls):
        first = calls[0]
        if first.key is None:
            _settle(first.future, lambda: first.fn(self.index))
            return
        queries = [q for c in calls for q in c.queries]
        started = time.monotonic()
        if first.times is not None:
            _, before = self._counters(started)
            for c in calls:
                c.times[1], c.times[3], c.times[4] = started, len(queries), len(calls)
        try:
            results = first.fn(self.index, queries)
        except BaseException as exc:
            if len(calls) == 1:    # its own error: running it again would pay its reads twice
                first.future.set_exception(exc)
                return
            if isinstance(exc, FilterError):
                # the filter is the batch's key, every request's own (a refusal of what the
                # documents hold, 'Topic' for 'topic'): each is given the error of the one run, a
                # copy without its traceback (one object raised by several coroutines would grow
                # it), not run again at the cost of its reads
                for c in calls:
                    c.future.set_exception(copy.copy(exc).with_traceback(None))
                return
            # one of them is to blame (or all): each gets its own answer
            for c in calls:
                _settle(c.future, lambda c=c: c.fn(self.index, c.queries))
            return
        self.batches += 1
        self.batched_queries += len(queries)
        finished, after = self._counters() if first.times is not None else (time.monotonic(), None)
        self._last_calls, self._last_batch, self._last_seconds = len(calls), len(queries), finished - started
        if first.times is not None:
            grown = [b - a for a, b in zip(before, after)]
            for c in calls:
                c.times[2] = finished
                c.times[5:10] = grown
        label = getattr(results, "label", None)
        start = 0
        for c in calls:
            part = results[start:start + len(c.queries)]
            c.future.set_result(part if label is None else Labelled(part, label))
            start += len(c.queries)

    def close(self):
        """Run what is queued, then stop the thread (and write the trace's last rows)."""
        with self._cv:
            self._closed = True
            self._cv.notify_all()
        self._thread.join()
        if self._trace is not None:
            self._trace.close()


def _run_queue_seconds():
    """Seconds the calling thread has waited runnable for a core (the second field of Linux's
    /proc/thread-self/schedstat, in ns); 0.0 where there is none to read."""
    try:
        with open("/proc/thread-self/schedstat", "rb") as fh:
            return int(fh.read().split()[1]) * 1e-9
    except (OSError, ValueError, IndexError):
        return 0.0


def _wake(waiter):
    if not waiter.done():
        waiter.set_result(None)


async def _done_within(future, timeout):
    """Wait, in the running event loop, until the concurrent ``future`` is done (True) or
    ``timeout`` seconds (None: no limit) have passed (False). A cancelled wait leaves the future
    as it is (it runs, or stays queued, as a shielded one did)."""
    if future.done():
        return True
    loop = asyncio.get_running_loop()
    waiter = loop.create_future()

    def done(_):   # in the worker's thread (or here, when it is done already)
        try:
            loop.call_soon_threadsafe(_wake, waiter)
        except RuntimeError:   # the loop is closed: nobody waits any more
            pass

    future.add_done_callback(done)
    timer = None if timeout is None else loop.call_later(max(0.0, timeout), _wake, waiter)
    try:
        await waiter
    finally:
        if timer is not None:
            timer.cancel()
    return future.done()


def _settle(future, thunk):
    try:
        future.set_result(thunk())
    except BaseException as exc:   # the caller gets the exception, the thread goes on
        future.set_exception(exc)
