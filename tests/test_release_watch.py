"""scripts/release_watch.py against a fake registry on 127.0.0.1: no test reaches a real registry."""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from conftest import ROOT

from conformance.corpus.loading import Corpus
from conformance.engine.outcomes import CaseResult
from conformance.running.results import results_document, write_results

sys.path.insert(0, str(ROOT / "scripts"))
import columns  # a script of the repository, not a package
import release_watch

# What each registry answers, at the path its client asks.
PAGES: dict[str, bytes] = {
    "/pypi/genkit/json": json.dumps(
        {
            "releases": {
                "0.12.0": [{"yanked": False}],
                "0.13.0": [{"yanked": False}],
                "0.14.0": [{"yanked": True}],
                "0.15.0rc1": [{"yanked": False}],
                "0.16.0": [],
            }
        }
    ).encode(),
    "/@anthropic-ai%2Fsdk": json.dumps({"versions": {"1.10.0": {}, "1.14.0": {}, "2.0.0-beta.1": {}}}).encode(),
    "/ai": json.dumps({"versions": {"5.0.277": {}, "5.0.280": {}, "6.0.400": {}, "7.1.0": {}}}).encode(),
    "/github.com/!burnt!sushi/toml/@v/list": b"v1.2.0\nv1.4.0\nv1.5.0-rc.1\n",
    "/dev/langchain4j/langchain4j/maven-metadata.xml": (
        b"<metadata><versioning><versions><version>1.16.3</version><version>1.17.0</version>"
        b"<version>2.0.0-M1</version></versions></versioning></metadata>"
    ),
    "/ri/g-/rig-core": b'{"name": "rig-core", "vers": "0.44.0", "yanked": false}\n'
    b'{"name": "rig-core", "vers": "0.45.0", "yanked": true}\n'
    b'{"name": "rig-core", "vers": "0.44.2", "yanked": false}\n',
    "/3/s/syn": b'{"name": "syn", "vers": "2.0.1", "yanked": false}\n',
    "/pypi/toolcall-minimal/json": json.dumps({"releases": {"1.0.0": [{}], "1.1.0": [{}]}}).encode(),
}


class _Registry(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        page = PAGES.get(self.path)
        self.send_response(200 if page is not None else 404)
        self.end_headers()
        self.wfile.write(page or b"{}")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def registry() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Registry)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.mark.parametrize(
    ("registry_name", "package", "major", "expected"),
    [
        ("pypi", "genkit", None, "0.13.0"),  # 0.14.0 yanked, 0.15.0rc1 a pre-release, 0.16.0 without files
        ("npm", "@anthropic-ai/sdk", None, "1.14.0"),
        ("npm", "ai", 5, "5.0.280"),  # a column that follows one major version
        ("go", "github.com/BurntSushi/toml", None, "1.4.0"),  # the proxy's case encoding
        ("maven", "dev.langchain4j:langchain4j", None, "1.17.0"),  # a milestone is no release
        ("crates", "rig-core", None, "0.44.2"),  # 0.45.0 yanked
        ("crates", "syn", None, "2.0.1"),  # the index's short-name path
    ],
)
def test_the_newest_release_from_each_registry(
    registry: str, registry_name: str, package: str, major: int | None, expected: str
) -> None:
    assert release_watch.newest(release_watch.published(registry_name, package, registry), major) == expected


def test_a_registry_that_does_not_answer_is_a_located_error(registry: str) -> None:
    with pytest.raises(release_watch.WatchError, match=r"/pypi/no-such-package/json: HTTP Error 404"):
        release_watch.published("pypi", "no-such-package", registry)


def test_moving_a_pin_moves_every_package_of_the_family(tmp_path: Path) -> None:
    (tmp_path / "pins.txt").write_text("genkit==0.12.0\ngenkit-openai==0.12.0\ngenkitx==0.12.0\n", encoding="utf-8")
    pin = release_watch.Pin("pins.txt", r"(?m)^genkit(?:-openai)?==(\S+)$")
    assert pin.read(tmp_path) == "0.12.0"
    pin.move(tmp_path, "0.13.0")
    assert (tmp_path / "pins.txt").read_text() == "genkit==0.13.0\ngenkit-openai==0.13.0\ngenkitx==0.12.0\n"


def _results(path: Path, version: str, outcomes: dict[str, str], corpus: Corpus) -> Path:
    cases = [CaseResult(case_id, corpus.scenarios[case_id].api, outcome) for case_id, outcome in outcomes.items()]
    adapter = {"name": "anthropic-sdk-js", "version": version, "connector": "harness", "language": "javascript"}
    write_results(path, results_document(cases, adapter=adapter, corpus_revision=corpus.revision(), profile="default"))
    return path


def test_the_body_lists_the_cases_whose_outcome_changed(tmp_path: Path, corpus: Corpus) -> None:
    ids = sorted(i for i, s in corpus.scenarios.items() if s.api == "anthropic-messages")[:3]
    pinned = _results(tmp_path / "a.json", "1.10.0", {ids[0]: "pass", ids[1]: "fail", ids[2]: "pass"}, corpus)
    new = _results(tmp_path / "b.json", "1.14.0", {ids[0]: "pass", ids[1]: "pass", ids[2]: "error"}, corpus)
    view, cols = release_watch.changes(pinned, new)
    manifest = columns.load()
    text = release_watch.body(release_watch.release_of(manifest, "anthropic-sdk-js"), "1.10.0", "1.14.0", view, cols)
    assert text.startswith("# anthropic-sdk-js: 1.10.0 to 1.14.0\n")
    assert "The outcome of 2 of 3 cases changes:" in text
    assert f"| `{ids[1]}` | anthropic-messages | fail | pass |" in text
    assert f"| `{ids[2]}` | anthropic-messages | pass | error |" in text
    assert f"`{ids[0]}`" not in text


def _manifest(tmp_path: Path) -> Path:
    """A column of the minimal Python harness (seconds to run, no build), pinned in a file of the checkout."""
    manifest = {
        "groups": {"minimal": {"toolchain": "node", "build": "true", "lockfiles": []}},
        "columns": {
            "minimal-python": {
                "group": "minimal",
                "harness": f"{sys.executable} harnesses/minimal-python/harness.py",
                "release": {
                    "registry": "pypi",
                    "package": "toolcall-minimal",
                    "pin": ["pyproject.toml", r'(?m)^version = "(\S+)"'],
                },
            }
        },
    }
    path = tmp_path / "columns.json"
    path.write_text(json.dumps(manifest), encoding="utf-8")
    return path


def test_an_up_to_date_pin_proposes_nothing(registry: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = tmp_path / "body.md"
    args = ["genkit-python", "--registry", f"pypi={registry}", "--body", str(body)]
    PAGES["/pypi/genkit/json"], saved = json.dumps({"releases": {"0.12.0": [{}]}}).encode(), PAGES["/pypi/genkit/json"]
    try:
        assert release_watch.main(args) == 0
    finally:
        PAGES["/pypi/genkit/json"] = saved
    assert "the pin is the newest release; nothing to propose" in capsys.readouterr().out
    assert not body.exists()


def test_a_newer_release_is_run_beside_the_pin_and_proposed(
    registry: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = tmp_path / "body.md"
    args = [
        "minimal-python",
        "--registry",
        f"pypi={registry}",
        "--body",
        str(body),
        "--manifest",
        str(_manifest(tmp_path)),
    ]
    before = dict(os.environ)
    assert release_watch.main([*args, "--keep", str(tmp_path / "work")]) == 0
    assert dict(os.environ) == before  # the copy's build directories were the watch's only
    text = body.read_text(encoding="utf-8")
    assert text.startswith("# minimal-python: 0.1.0 to 1.1.0\n")
    assert "No case changes its outcome (" in text  # the pin moved is not one the harness reads
    assert 'version = "1.1.0"' in (tmp_path / "work" / "checkout" / "pyproject.toml").read_text()
    assert 'version = "0.1.0"' in (ROOT / "pyproject.toml").read_text()  # the checkout untouched without --apply


def test_a_column_without_a_release_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert release_watch.main(["rig-deepseek"]) == 2
    assert "column rig-deepseek names no release to watch" in capsys.readouterr().err
