"""The check the tokenizer's tests make of spans on random texts: every span, read alone, holds
its term, and a text's spans are its terms, each once."""
import random


def check_random_spans(tok, alphabet, seed, n=1500, longest=20):
    """Read ``n`` random texts of ``alphabet`` (1 to ``longest`` characters, drawn with ``seed``)
    with ``tok`` and assert that each text's spans are its terms and that each span, read alone,
    holds its term; returns how many spans there were (a test asks for enough to mean
    something)."""
    rng = random.Random(seed)
    n_spans = 0
    for _ in range(n):
        doc = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, longest)))
        spans = tok.spans(doc)
        n_spans += len(spans)
        assert not spans or sorted(t for _, _, t in spans) == sorted(tok(doc)), ascii(doc)
        for a, b, term in spans:
            assert term in tok(doc[a:b]), (ascii(doc), a, b, term)
    return n_spans
