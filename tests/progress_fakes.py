"""Stand-ins for the progress display's tests: a clock that moves only when told, and a stream
that says it is a terminal."""
import io


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


class Terminal(io.StringIO):
    def isatty(self):
        return True
