"""A FILM fitted on pairs of short English notes of 3 topics (phones, weather, food; duplicates are
small edits of a note): its duplicate rule does not call two notes of different topics duplicates,
given alone or among others, and the fit does not warn about the kNN rule's default k_grid, a
parameter nobody set ("k_grid values [50] exceed the 39 other items ... dropped")."""
import random
import warnings

import pytest

import learnsim

TOPICS = {
    "weather": (["In Boston", "In Denver", "In Miami", "In Seattle", "In Chicago", "In Dallas"],
                ["heavy rain is expected tomorrow, so take an umbrella", "temperatures are dropping, so keep warm",
                 "the sky clears this afternoon, good for a walk", "a storm will reach the coast tonight",
                 "the air quality is poor, so stay indoors", "nights are very cold and days are warm",
                 "the heat wave continues, drink plenty of water", "thunderstorms are likely this evening",
                 "snow is forecast for the weekend", "strong winds are coming, close the windows"]),
    "phone": (["The new phone", "This smartphone", "My old phone", "The budget handset", "The folding phone",
               "This tablet"],
              ["has a battery that dies before lunch", "takes very sharp photos even at night",
               "lags badly since the last update", "has a screen that cracks easily and costs a lot to fix",
               "charges very fast, full in half an hour", "costs a hundred dollars more than the last model",
               "drops the signal all the time", "has too little storage for my apps",
               "unlocks instantly with the fingerprint reader", "gets very hot when playing games"]),
    "food": (["This restaurant", "The noodle bar downstairs", "The school canteen", "The hotpot place on the corner",
              "The new cafe", "Mom's kitchen"],
             ["serves braised pork that is very tasty", "makes dumplings with thin skins and lots of filling",
              "has a spicy broth that is far too hot", "keeps you waiting an hour for a table",
              "brews very good coffee with sweet cakes", "gives portions too big for two people",
              "is clean and the staff are very friendly", "cooks the rice too hard but the soup is good",
              "is famous for its soup dumplings", "delivers quickly and the food arrives hot"]),
}


def _edit(text):
    edited = text.replace("very", "really").replace(",", ";", 1)
    return edited if edited != text else "Honestly, " + text


def _notes(seed=0):
    """60 notes (20 a topic), their 60 duplicate pairs and 60 random other pairs."""
    rng = random.Random(seed)
    notes = []
    for topic, (subjects, predicates) in TOPICS.items():
        combos = [(s, p) for s in subjects for p in predicates]
        rng.shuffle(combos)
        notes += [(topic, f"{s} {p}.") for s, p in combos[:20]]
    pairs = [(1, t, _edit(t)) for _, t in notes]
    pairs += [(0, a[1], b[1]) for a, b in (rng.sample(notes, 2) for _ in range(60))]
    rng.shuffle(pairs)
    texts = sorted({t for _, a, b in pairs for t in (a, b)})
    where = {t: i for i, t in enumerate(texts)}
    return notes, texts, [(where[a], where[b], y) for y, a, b in pairs]


@pytest.fixture(scope="module")
def notes():
    return _notes()


def _fit(texts, pairs, **options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # n_components: the default (100) exceeds the rank of the search check's training texts here
        model = learnsim.fit(texts, pairs=pairs, method="film", n_components=16, random_state=0, **options)
    return model, [str(w.message) for w in caught]


@pytest.mark.parametrize("matcher", ["auto", "knn"])
def test_no_warning_about_a_k_grid_nobody_set(notes, matcher):
    _, texts, pairs = notes
    _, messages = _fit(texts, pairs, matcher=matcher)
    assert not [m for m in messages if "k_grid" in m], messages


def test_the_rule_the_fit_chose_does_not_call_notes_of_other_topics_duplicates(notes):
    rows, texts, pairs = notes
    model, _ = _fit(texts, pairs)
    assert model.parts["match_rule"].matcher != "knn"
    by = {topic: [t for k, t in rows if k == topic] for topic in TOPICS}
    unrelated = [(by["phone"][i], by["weather"][i]) for i in range(3)] + [(by["food"][i], by["phone"][i + 3])
                                                                          for i in range(3)]
    dups = [(t, _edit(t)) for t in by["phone"][:3]]
    for pair in unrelated:                                   # alone: two texts
        got = model.match([pair])[0]
        assert not got["duplicate"] and got["probability"] < 0.5, (pair, got)
    got = model.match(unrelated + dups)                      # among others
    assert [d["duplicate"] for d in got] == [False] * 6 + [True] * 3
    assert max(d["probability"] for d in got[:6]) < 0.5 < min(d["probability"] for d in got[6:])
