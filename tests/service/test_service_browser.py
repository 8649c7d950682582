"""The search page in a real browser: headless Chromium (Debian's chromium and chromium-driver)
driven by selenium opens the page of a running ``learnsim serve``, types a query and checks that
the hits and their marked words render; with the script (search as one types) and without it
(the form); a document holding a script shows as text and never runs.

Skips, saying why, where Chromium, its driver or selenium is absent; ``.ci/run`` installs them."""
from __future__ import annotations

import shutil
import warnings

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")
pytest.importorskip("selenium", reason="the browser test needs selenium (pip install selenium; in the test extra)")

from serve_process import running_server  # noqa: E402
from index_models import corpus, model  # noqa: E402

from learnsim.index import Index  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
if not (CHROMIUM and DRIVER):
    pytest.skip("the browser test needs Debian's chromium and chromium-driver "
                "(apt-get install chromium chromium-driver; .ci/run installs them)", allow_module_level=True)

EVIL = '<script>window.__pwned = 1</script><img src="x" onerror="window.__pwned = 2"> w001 w002 w003'


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("browser") / "idx"
    Index.build(path, model("bm25"), texts + [EVIL], ids + ["evil"], meta + [{"topic": -1}]).close()
    with running_server(path) as base:
        yield base


def _driver(tmp_path, javascript=True):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    # as root in a container, with no network but this machine's: no sandbox, and none of the
    # background connections Chromium makes at start
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
                "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--window-size=1100,1300", f"--user-data-dir={tmp_path / 'profile'}"):
        opts.add_argument(arg)
    if not javascript:
        opts.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    # the driver's path is given: selenium's manager never looks for (or downloads) another
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    driver.set_page_load_timeout(30)
    return driver


def _wait(driver, condition, seconds=15):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds).until(lambda d: condition(d))


def _hits(driver):
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, "ol.hits > li.hit")


@pytest.mark.parametrize("javascript", [True, False], ids=["script", "no-script"])
def test_typing_a_query_shows_hits_with_marked_words(server, tmp_path, javascript):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    texts, _, ids, _ = corpus()
    query = " ".join(texts[21].split()[:6])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        driver = _driver(tmp_path, javascript)
    try:
        driver.get(server + "/")
        assert "learnsim" in driver.title
        assert "documents" in driver.find_element(By.CSS_SELECTOR, ".model").text
        box = driver.find_element(By.ID, "q")
        box.send_keys(query)
        if javascript:
            # the script searches as one types: the hits come without a submit or a new page
            _wait(driver, lambda d: len(_hits(d)) > 0)
            assert "q=" in driver.current_url and driver.find_element(By.ID, "q") == box
        else:
            box.send_keys(Keys.ENTER)   # the form's GET
            _wait(driver, lambda d: len(_hits(d)) > 0)
        hits = _hits(driver)
        assert len(hits) == 10
        assert hits[0].get_attribute("data-id") == ids[21]
        marks = hits[0].find_elements(By.TAG_NAME, "mark")
        assert marks and all(m.is_displayed() for m in marks)
        assert {m.text.lower() for m in marks} <= set(query.lower().split())
        # the marks are drawn: a background unlike the text's
        assert marks[0].value_of_css_property("background-color") not in ("rgba(0, 0, 0, 0)", "transparent")
        assert hits[0].find_element(By.CSS_SELECTOR, ".score").text.replace(".", "").isdigit()
        # the link to similar documents leads to a page of them
        hits[0].find_element(By.CSS_SELECTOR, "a.similar").click()
        _wait(driver, lambda d: "similar=" in d.current_url and len(_hits(d)) > 0)
        assert ids[21] not in [h.get_attribute("data-id") for h in _hits(driver)]
        shot = tmp_path / "page.png"
        assert driver.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
    finally:
        driver.quit()


def test_a_document_holding_a_script_shows_as_text(server, tmp_path):
    from selenium.webdriver.common.by import By

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        driver = _driver(tmp_path)
    try:
        driver.get(server + "/?q=w001+w002+w003&k=50")
        _wait(driver, lambda d: len(_hits(d)) > 0)
        evil = [h for h in _hits(driver) if h.get_attribute("data-id") == "evil"]
        assert evil, "the document with the script is among the hits"
        text = evil[0].find_element(By.CSS_SELECTOR, ".text").text
        assert "<script>window.__pwned = 1</script>" in text and '<img src="x"' in text
        assert driver.execute_script("return window.__pwned === undefined")
        assert not driver.find_elements(By.CSS_SELECTOR, ".text img, .text script")
    finally:
        driver.quit()


def test_the_api_documentation_page_renders_offline(server, tmp_path):
    # /docs is served by the service (Swagger UI's files from fastapi-offline): it must draw every
    # route of the schema under the page's Content-Security-Policy, with nothing from elsewhere
    from selenium.webdriver.common.by import By

    pytest.importorskip("fastapi_offline", reason="/docs needs fastapi-offline (in the serve and test extras)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        driver = _driver(tmp_path)
    try:
        driver.get(server + "/docs")
        _wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".opblock")) > 0, seconds=30)
        paths = {e.text for e in driver.find_elements(By.CSS_SELECTOR, ".opblock-summary-path")}
        assert {"/v1/search", "/healthz"} <= {p.replace("\u200b", "") for p in paths}
        blocked = [entry["message"] for entry in driver.get_log("browser")
                   if "Content Security Policy" in entry["message"] or "Refused" in entry["message"]]
        assert not blocked, blocked
        assert driver.execute_script("return [...document.scripts].every(s => s.src.startsWith(location.origin))")
    finally:
        driver.quit()


JAPANESE = ["東京の天気は晴れです", "明日の東京の天気は雨", "今日の天気予報を見た", "週末の天気は晴れの予報",
            "カレーライスの作り方", "美味しいカレーの作り方を教えて", "簡単な料理の作り方", "寿司の作り方と材料",
            "東京駅から電車に乗る", "電車が遅れている", "新幹線で大阪駅へ行く", "駅の電車の時刻表",
            # and Chinese, in the same index
            "怎么做红烧肉", "红烧肉的做法", "简单的红烧肉做法", "红烧肉需要的材料"]


@pytest.fixture(scope="module")
def japanese_server(tmp_path_factory):
    import learnsim

    path = tmp_path_factory.mktemp("browser-ja") / "idx"
    model = learnsim.fit(JAPANESE, clusters=[i // 4 for i in range(len(JAPANESE))], baseline_holdout=None)
    Index.build(path, model, JAPANESE, [f"ja{i}" for i in range(len(JAPANESE))]).close()
    with running_server(path) as base:
        yield base


def test_a_japanese_query_typed_in_the_page_finds_and_marks_its_topic(japanese_server, tmp_path):
    # issue 44: UTF-8 from the keyboard to the marks, text without spaces cut into bigrams
    from selenium.webdriver.common.by import By

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        driver = _driver(tmp_path)
    try:
        driver.get(japanese_server + "/")
        driver.find_element(By.ID, "q").send_keys("カレーの作り方")
        _wait(driver, lambda d: len(_hits(d)) > 0)
        hits = _hits(driver)
        assert {h.get_attribute("data-id") for h in hits[:2]} <= {"ja4", "ja5", "ja6", "ja7"}
        first = hits[0]
        text = first.find_element(By.CSS_SELECTOR, ".text").text
        assert text in JAPANESE[4:8]
        marks = [m.text for m in first.find_elements(By.TAG_NAME, "mark")]
        assert marks and all(m and m in text for m in marks)
        assert any("作り方" in m or "カレー" in m for m in marks), marks
        # the title the script writes is the server's: a query that is not ASCII isolated, so
        # that a right-to-left override in one reorders itself alone (the script wrote it bare)
        assert driver.title == "\u2068カレーの作り方\u2069 - learnsim", repr(driver.title)
        # a Chinese query, typed over the Japanese one
        box = driver.find_element(By.ID, "q")
        box.clear()
        box.send_keys("红烧肉做法")
        _wait(driver, lambda d: _hits(d) and _hits(d)[0].get_attribute("data-id") in {"ja12", "ja13", "ja14", "ja15"})
        marks = [m.text for m in _hits(driver)[0].find_elements(By.TAG_NAME, "mark")]
        assert any("红烧肉" in m or "做法" in m for m in marks), marks
    finally:
        driver.quit()
