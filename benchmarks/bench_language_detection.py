"""Whether ``learnsim.text.detect_language`` recognises the languages it ships stop lists of and
tells the others apart, before and after the check that the winner is recognised
(:mod:`learnsim.text._recognised`), in one process on the same samples.

Samples are real translated text: the gettext catalogues (``.mo``) installed under
``--locale-dir`` (the system's, ``/usr/share/locale`` on Debian and Ubuntu), whose messages each
language's translators wrote. A sample is a collection of a catalogue's messages (placeholders,
markup and accelerators removed; messages left in English dropped) of 20, 50, 100 or 200 words.
Catalogues are split by their package (domain) into a validation half (``--split validation``,
where the check's setting was chosen) and a test half (``--split test``, reported), so that no
message is in both. Beside them, samples of no catalogue: Latin prose, Lorem ipsum and made-up
Latin-letter languages (seeded syllables), written here, half of each in each split.

- **Shipped**: a catalogue of a language of ``STOP_LANGUAGES`` (code -> name below): the share of
  samples detected as that language.
- **Unknown**: a Latin-letter language of no list, with no close kin among the lists: the share
  of samples read as unrecognised (English, the fallback, with the clause said: before, where
  English's stop words were under 5 % of the words; after, ``unrecognised_language``).
- **Kin** (reported apart, counted in neither): languages of no list whose closest kin has one
  (Asturian and Spanish, Occitan and Catalan, Nynorsk and Norwegian, Malay and Indonesian, ...).

    python benchmarks/bench_language_detection.py --split test
    python benchmarks/bench_language_detection.py --split validation --per-language
"""
from __future__ import annotations

import argparse
import gettext
import random
import re
import sys
import zlib
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from learnsim.text import detect_language  # noqa: E402
from learnsim.text._described import unrecognised_language  # noqa: E402
from learnsim.text._languages import _detect  # noqa: E402

SHIPPED = {
    "af": "afrikaans", "ar": "arabic", "be": "belarusian", "bg": "bulgarian", "bn": "bengali", "bs": "serbian",
    "ca": "catalan", "ckb": "sorani", "cs": "czech", "da": "danish", "de": "german", "el": "greek",
    "en_GB": "english", "en_AU": "english", "en_CA": "english", "eo": "esperanto", "es": "spanish",
    "et": "estonian", "eu": "basque", "fa": "persian", "fi": "finnish", "fil": "tagalog", "fr": "french",
    "ga": "irish", "gl": "galician", "ha": "hausa", "he": "hebrew", "hi": "hindi", "hr": "serbian",
    "hu": "hungarian", "hy": "armenian", "id": "indonesian", "it": "italian", "lt": "lithuanian",
    "lv": "latvian", "mk": "macedonian", "mr": "marathi", "nb": "norwegian", "ne": "nepali", "nl": "dutch",
    "pl": "polish", "pt": "portuguese", "pt_BR": "portuguese", "ro": "romanian", "ru": "russian",
    "sk": "slovak", "sl": "slovenian", "sr": "serbian", "sr@latin": "serbian", "sv": "swedish",
    "sw": "swahili", "ta": "tamil", "te": "telugu", "tl": "tagalog", "tr": "turkish", "uk": "ukrainian",
    "ur": "urdu", "vi": "vietnamese",
}
# Latin-letter languages of no list and no close kin among the lists
UNKNOWN = ("cy", "is", "sq", "mt", "xh", "zu", "nso", "az", "uz", "so", "br", "mi", "yo", "haw", "mg", "qu",
           "rw", "lg", "kab", "fo", "gd", "ku", "kmr", "crh", "tk", "gv", "kw", "ak", "ee", "ff", "wo", "ve",
           "ia", "io", "ie")
# languages of no list whose closest kin has one
KIN = ("ast", "oc", "an", "fur", "sc", "frp", "wa", "nn", "ms", "ca@valencia", "fy", "li", "nds", "csb", "bar",
       "pap", "lb")

_PLACEHOLDER = re.compile(r"%(?:\([^)]*\))?[-#0 +']*\d*(?:\.\d+)?[hlLqjzt]*[diouxXeEfFgGcrsaA%]|\{[^{}]*\}"
                          r"|<[^<>]*>|&[a-z]+;|\$\{?\w+\}?|\\[nt]")
_ACCELERATOR = re.compile(r"(?<=\w)_(?=\w)|(?<!\w)_(?=\w)|&(?=\w)|\(_\w\)")


def _messages(path):
    """The translated messages of the catalogue ``path`` (placeholders, markup and accelerators
    removed), those of 3 words or more that differ from their English original."""
    try:
        with open(path, "rb") as f:
            catalog = gettext.GNUTranslations(f)._catalog
    except Exception:
        return []
    out = []
    for key, text in catalog.items():
        msgid = key[0] if isinstance(key, tuple) else key
        if not msgid or not isinstance(text, str) or text == msgid:
            continue
        text = _ACCELERATOR.sub("", _PLACEHOLDER.sub(" ", text))
        text = " ".join(text.split())
        if len(text.split()) >= 3:
            out.append(text)
    return sorted(set(out))


def _split_of(domain):
    return "validation" if zlib.crc32(domain.encode()) % 2 == 0 else "test"


def catalogue_messages(locale_dir, codes, split):
    """{code: [messages]} of the catalogues of ``split`` (package names and ISO code lists out)."""
    out = {}
    for code in codes:
        messages = []
        for path in sorted((Path(locale_dir) / code / "LC_MESSAGES").glob("*.mo")):
            domain = path.stem
            if domain.startswith("iso_") or _split_of(domain) != split:
                continue
            messages.extend(_messages(path))
        if messages:
            out[code] = messages
    return out


def draw(messages, words, n, seed):
    """``n`` samples of ``words`` words: each a list of messages drawn without repetition, the
    last one cut."""
    rng = random.Random(seed)
    samples = []
    for _ in range(n):
        order = rng.sample(messages, len(messages))
        sample, count = [], 0
        for message in order:
            taken = message.split()[:words - count]
            sample.append(" ".join(taken))
            count += len(taken)
            if count >= words:
                break
        if count >= words:
            samples.append(sample)
    return samples


_LATIN = {
    "validation": [
        "Gallia est omnis divisa in partes tres, quarum unam incolunt Belgae, aliam Aquitani, tertiam qui ipsorum "
        "lingua Celtae, nostra Galli appellantur. Hi omnes lingua, institutis, legibus inter se differunt. Gallos ab "
        "Aquitanis Garumna flumen, a Belgis Matrona et Sequana dividit. Horum omnium fortissimi sunt Belgae, propterea "
        "quod a cultu atque humanitate provinciae longissime absunt, minimeque ad eos mercatores saepe commeant atque "
        "ea quae ad effeminandos animos pertinent important, proximique sunt Germanis, qui trans Rhenum incolunt, "
        "quibuscum continenter bellum gerunt.",
        "In principio creavit Deus caelum et terram. Terra autem erat inanis et vacua, et tenebrae super faciem abyssi, "
        "et spiritus Dei ferebatur super aquas. Dixitque Deus: Fiat lux. Et facta est lux. Et vidit Deus lucem quod "
        "esset bona, et divisit lucem a tenebris. Appellavitque lucem Diem, et tenebras Noctem: factumque est vespere "
        "et mane, dies unus. Dixit quoque Deus: Fiat firmamentum in medio aquarum, et dividat aquas ab aquis.",
    ],
    "test": [
        "Quo usque tandem abutere, Catilina, patientia nostra? Quam diu etiam furor iste tuus nos eludet? Quem ad finem "
        "sese effrenata iactabit audacia? Nihilne te nocturnum praesidium Palati, nihil urbis vigiliae, nihil timor "
        "populi, nihil concursus bonorum omnium, nihil hic munitissimus habendi senatus locus, nihil horum ora "
        "voltusque moverunt? Patere tua consilia non sentis, constrictam iam horum omnium scientia teneri coniurationem "
        "tuam non vides? Quid proxima, quid superiore nocte egeris, ubi fueris, quos convocaveris, quid consilii "
        "ceperis, quem nostrum ignorare arbitraris?",
        "Arma virumque cano, Troiae qui primus ab oris Italiam, fato profugus, Laviniaque venit litora, multum ille et "
        "terris iactatus et alto vi superum saevae memorem Iunonis ob iram; multa quoque et bello passus, dum conderet "
        "urbem, inferretque deos Latio, genus unde Latinum, Albanique patres, atque altae moenia Romae. Musa, mihi "
        "causas memora, quo numine laeso, quidve dolens, regina deum tot volvere casus insignem pietate virum, tot "
        "adire labores impulerit. Tantaene animis caelestibus irae?",
    ],
}
_LOREM = ("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore "
          "magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea commodo "
          "consequat duis aute irure in reprehenderit voluptate velit esse cillum eu fugiat nulla pariatur excepteur "
          "sint occaecat cupidatat non proident sunt culpa qui officia deserunt mollit anim id est laborum").split()


def _sentences(words, rng, size):
    out, count = [], 0
    while count < size:
        n = min(rng.randint(5, 12), size - count)
        out.append(" ".join(rng.choice(words) for _ in range(n)).capitalize() + ".")
        count += n
    return out


def _made_up_words(rng, n=60):
    """A vocabulary of ``n`` words of a made-up language: consonant-vowel syllables."""
    consonants, vowels = rng.sample("bcdfghjklmnprstvz", 10), rng.sample("aeiouy", 4)
    words = set()
    while len(words) < n:
        words.add("".join(rng.choice(consonants) + rng.choice(vowels) for _ in range(rng.choice((1, 2, 2, 3)))))
    # a made-up language has its own short function words, written often
    return sorted(words)


def written_samples(split, sizes, per_size):
    """{kind: [samples]} of Latin, Lorem ipsum and made-up languages (seeded by ``split``)."""
    seed = 0 if split == "validation" else 1
    out = defaultdict(list)
    for size in sizes:
        for k in range(per_size):
            rng = random.Random(f"{seed}-{size}-{k}")
            text = " ".join(_LATIN[split]).split()
            start = rng.randrange(max(1, len(text) - size))
            out["latin"].append([" ".join(text[start:start + size])])
            out["lorem"].append(_sentences(_LOREM, rng, size))
            vocabulary = _made_up_words(rng)
            # Zipf-like use: a few short words make most of the text, as a language's function words do
            weighted = [w for i, w in enumerate(vocabulary) for _ in range(max(1, 12 // (i + 1)))]
            out["made-up"].append(_sentences(weighted, rng, size))
    return out


def answers(sample):
    """(before, after) for one sample: the language detected by the lists alone (``_detect``) and by
    ``detect_language``, each as the unrecognised reading where English is its fallback."""
    before = _detect(sample)[0]
    after = detect_language(sample)
    if after == "english" and unrecognised_language(sample) is not None:
        after = "unrecognised"
    if before == "english" and _english_unread(sample):
        before = "unrecognised"
    return before, after


def _english_unread(sample):
    # the reading the clause called not recognised before: English's stop words under 5 %
    from learnsim.text._languages import _WORD, MIN_STOP_SHARE, stop_list

    words = [w for text in sample for w in _WORD.findall(text[:1000].lower())]
    english = stop_list("english")
    return not words or sum(w in english for w in words) < MIN_STOP_SHARE * len(words)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("validation", "test"), default="test")
    parser.add_argument("--locale-dir", default="/usr/share/locale")
    parser.add_argument("--sizes", default="20,50,100,200")
    parser.add_argument("--per-size", type=int, default=5, help="samples per language and size")
    parser.add_argument("--per-language", action="store_true", help="a line per language too")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = defaultdict(lambda: [0, 0, 0])   # (group, size) -> [samples, right before, right after]
    per_language = defaultdict(lambda: [0, 0, 0, defaultdict(int), defaultdict(int)])

    def count(group, label, size, sample, expected):
        before, after = answers(sample)
        for key in ((group, size), (group, "all")):
            rows[key][0] += 1
            rows[key][1] += before in expected
            rows[key][2] += after in expected
        line = per_language[(group, label)]
        line[0] += 1
        line[1] += before in expected
        line[2] += after in expected
        line[3][before] += 1
        line[4][after] += 1

    catalogues = catalogue_messages(args.locale_dir, list(SHIPPED) + list(UNKNOWN) + list(KIN), args.split)
    if not catalogues:
        sys.exit(f"no gettext catalogue under {args.locale_dir}: give --locale-dir")
    for code, messages in sorted(catalogues.items()):
        group = "shipped" if code in SHIPPED else "unknown" if code in UNKNOWN else "kin"
        for size in sizes:
            for sample in draw(messages, size, args.per_size, f"{code}-{size}-{args.split}"):
                expected = {SHIPPED[code]} if group == "shipped" else {"unrecognised"}
                count(group, code, size, sample, expected)
    per = args.per_size
    for kind, samples in written_samples(args.split, sizes, per).items():
        for i, sample in enumerate(samples):
            count("unknown", kind, sizes[i // per], sample, {"unrecognised"})

    print(f"split {args.split}: {len(catalogues)} catalogue languages, sizes {sizes} words, "
          f"{args.per_size} samples per language and size")
    print("group    words  samples  before  after   (shipped: detected as its language; "
          "unknown/kin: read as unrecognised)")
    for group in ("shipped", "unknown", "kin"):
        for size in sizes + ["all"]:
            n, before, after = rows[(group, size)]
            if n:
                print(f"{group:8} {size!s:>5} {n:8d}  {before / n:6.3f}  {after / n:6.3f}")
    if args.per_language:
        for (group, label), (n, before, after, was, now) in sorted(per_language.items()):
            top_was = ", ".join(f"{k} {v}" for k, v in sorted(was.items(), key=lambda kv: -kv[1])[:3])
            top_now = ", ".join(f"{k} {v}" for k, v in sorted(now.items(), key=lambda kv: -kv[1])[:3])
            print(f"  {group:8} {label:12} {n:4d} {before / n:6.3f} {after / n:6.3f}  before: {top_was}  "
                  f"after: {top_now}")


if __name__ == "__main__":
    main()
