"""Country codes given where a language code is asked for (``language=``, ``--language``).

``jp`` is Japan's country code and ``cn`` China's; neither is a language code (Japanese is
``ja``, Chinese ``zh``), so they were read as 'any other language', character bigrams, and a
Japanese user's ``--language jp`` fitted bigrams rather than the Japanese words asked for,
without a word. Only codes that ISO 639-1 leaves unassigned are here: ``tw`` (Twi) and ``kr``
(Kanuri) are languages, and Korean reads bigrams under every code anyway.
"""
from __future__ import annotations

__all__ = ["check_not_a_country"]

_COUNTRIES = {"jp": ("Japan", "Japanese", "ja"), "cn": ("China", "Chinese", "zh"),
              "hk": ("Hong Kong", "Chinese of Hong Kong", "zh-HK")}


def check_not_a_country(language):
    """Raise a ValueError naming the language code meant where ``language``'s primary subtag is
    one of the country codes above (``jp``, ``jp-JP``, ``cn``, ``hk``)."""
    primary = language.lower().split("-")[0].split("_")[0]
    if primary in _COUNTRIES:
        country, name, code = _COUNTRIES[primary]
        raise ValueError(f"language {language!r}: {primary!r} is {country}'s country code, not a language code; "
                         f"{name} is {code!r} (language={code!r}, --language {code})")
