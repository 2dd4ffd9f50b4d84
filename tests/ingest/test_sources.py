"""The sources file, the mirror root, local hashing/verification and the HTTP download path."""

from __future__ import annotations

import hashlib
import re
import http.server
import threading
from functools import partial
from pathlib import Path

import pytest

from ingest import settings as settings_mod
from ingest import sources
from ingest.errors import SourceError

PROJECT = Path(__file__).resolve().parents[2]


def test_default_sources_file_lists_four_rounds_and_the_commentary_collections():
    entries = sources.load_sources(PROJECT / "data" / "sources.toml")
    results = [s for s in entries if s.kind == "results"]
    assert sorted(s.round for s in results) == ["v4.1", "v5.1", "v6.0", "v6.1"]
    # mlperf/README.md: 937 + 1448 + 520 + 492 = 3397
    assert {s.round: s.rows for s in results} == {"v4.1": 937, "v5.1": 1448, "v6.0": 520, "v6.1": 492}
    assert all(s.url.startswith("https://github.com/mlcommons/inference_results_") for s in results)
    commentary = [s for s in entries if s.kind == "commentary"]
    assert len(commentary) == 3  # digests, Inference PDFs, and the Training PDF for its card's table only
    assert [s.dataset for s in commentary] == ["", "", "mlperf-training"]


def test_http_file_lists_match_what_the_default_mirror_holds(shared_data):
    """`files` (used over HTTP) and `pattern` (used on disk) must name the same documents."""
    for source in sources.load_sources(PROJECT / "data" / "sources.toml"):
        if source.kind == "commentary":
            local = [rel.split("/")[-1] for rel in sources._local_rels(source, Path(shared_data))]
            assert sorted(source.files) == local


def test_default_mirror_files_match_their_pins(shared_data):
    files = sources.local_files(sources.load_sources(PROJECT / "data" / "sources.toml"), Path(shared_data), 100)
    guide = len(list((PROJECT / "data" / "guide").glob("*.md"))) + len(list((PROJECT / "data" / "guide" / "sv").glob(
        "*.sv.md")))  # read from the clone, not the mirror, in English and Swedish
    guide += len(list((PROJECT / "data" / "verified").glob("*.jsonl")))  # and the verified questions
    assert len(files) == 4 + 27 + 3 + 1 + guide  # rounds, digests, Inference PDFs, the Training PDF
    assert all(len(f.sha256) == 64 and f.size > 0 for f in files)


@pytest.mark.parametrize("text,problem", [
    ("[[source]\nname = 1", "TOML"),
    ("title = 'no sources'", "no [[source]]"),
    ("[[source]]\nname = 'a'\nkind = 'results'", "needs a `path`"),
    ("[[source]]\nname = 'a'\nkind = 'video'\npath = 'x'", "kind must be"),
    ("[[source]]\nname = 'a'\nkind = 'results'\npath = '../etc/passwd'", "relative"),
    ("[[source]]\nname = 'a'\nkind = 'results'\npath = 'x'\n[[source]]\nname = 'a'\nkind = 'results'\npath = 'y'",
     "duplicate"),
])
def test_mistakes_in_the_sources_file_name_the_file(tmp_path, text, problem):
    path = tmp_path / "sources.toml"
    path.write_text(text)
    with pytest.raises(SourceError, match=re.escape(problem)) as info:
        sources.load_sources(path)
    assert str(path) in str(info.value)


def test_source_flag_beats_the_data_setting_which_the_environment_sets(tmp_path, monkeypatch):
    monkeypatch.setenv("RESULTSQA_DATA", str(tmp_path / "from-env"))
    settings = settings_mod.load()
    assert sources.resolve_root(settings) == str((tmp_path / "from-env").resolve())
    assert sources.resolve_root(settings, str(tmp_path / "flag")) == str((tmp_path / "flag").resolve())
    assert sources.resolve_root(settings, "http://127.0.0.1:9/mirror") == "http://127.0.0.1:9/mirror"


def _mirror(tmp_path: Path) -> tuple[Path, Path]:
    """A mirror with one results file and a two-file commentary collection, and its sources file."""
    root = tmp_path / "mirror"
    (root / "raw").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "raw" / "summary.csv").write_text("a,b\n1,2\n")
    (root / "docs" / "one.md").write_text("# One\n\nfirst\n")
    (root / "docs" / "two words.md").write_text("# Two\n\nsecond\n")
    (root / "docs" / "README.md").write_text("not a document\n")
    digest = hashlib.sha256(b"a,b\n1,2\n").hexdigest()
    toml = tmp_path / "sources.toml"
    toml.write_text(f"""
[[source]]
name = "r"
kind = "results"
path = "raw/summary.csv"
sha256 = "{digest}"

[[source]]
name = "d"
kind = "commentary"
path = "docs"
pattern = "*.md"
exclude = ["README.md"]
files = ["one.md", "two words.md"]
""")
    return root, toml


def test_local_mirror_hashes_files_and_refuses_a_pin_mismatch(tmp_path):
    root, toml = _mirror(tmp_path)
    entries = sources.load_sources(toml)
    files = sources.local_files(entries, root, 100)
    assert [f.rel for f in files] == ["raw/summary.csv", "docs/one.md", "docs/two words.md"]
    assert files[0].sha256 == hashlib.sha256(b"a,b\n1,2\n").hexdigest()
    (root / "raw" / "summary.csv").write_text("a,b\n1,3\n")
    with pytest.raises(SourceError, match="sha256 mismatch") as info:
        sources.local_files(entries, root, 100)
    assert "summary.csv" in str(info.value)


def test_empty_and_oversized_files_are_refused_before_reading(tmp_path):
    root, toml = _mirror(tmp_path)
    entries = sources.load_sources(toml)
    (root / "docs" / "one.md").write_bytes(b"")
    with pytest.raises(SourceError, match="one.md: empty file"):
        sources.local_files(entries, root, 100)
    (root / "docs" / "one.md").write_text("# One\n")
    with open(root / "docs" / "two words.md", "wb") as fh:
        fh.truncate(200 * 1024 * 1024)  # sparse: 200 MB on paper, nothing on disk
    with pytest.raises(SourceError, match=r"two words.md: file is 200 MB, over the limit of 100 MB"):
        sources.local_files(entries, root, 100)


def test_symlinks_that_resolve_outside_the_mirror_root_are_refused(tmp_path):
    root, toml = _mirror(tmp_path)
    entries = sources.load_sources(toml)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nnot part of the mirror\n")
    (root / "docs" / "inside.md").symlink_to(root / "docs" / "one.md")  # a link within the mirror is fine
    assert [f.rel for f in sources.local_files(entries, root, 100)][-1] == "docs/two words.md"
    for link, target in [("system.md", Path("/etc/passwd")), ("leak.md", outside / "secret.md"),
                         ("relative.md", Path("../../outside/secret.md"))]:
        (root / "docs" / link).symlink_to(target)
        with pytest.raises(SourceError) as info:
            sources.local_files(entries, root, 100)
        message = str(info.value)
        assert link in message and "outside the mirror root" in message and "\n" not in message
        (root / "docs" / link).unlink()
    (root / "raw" / "summary.csv").rename(outside / "summary.csv")
    (root / "raw" / "summary.csv").symlink_to(outside / "summary.csv")  # a results file
    with pytest.raises(SourceError, match=r"summary.csv: .*outside the mirror root"):
        sources.local_files(entries, root, 100)
    (root / "raw" / "summary.csv").unlink()
    (outside / "summary.csv").rename(root / "raw" / "summary.csv")
    (root / "docs").rename(outside / "docs")
    (root / "docs").symlink_to(outside / "docs")  # the collection's folder itself
    with pytest.raises(SourceError, match=r"docs: .*outside the mirror root"):
        sources.local_files(entries, root, 100)


class _Server:
    """The mirror served by http.server on loopback, counting full downloads (200s)."""

    def __init__(self, folder: Path):
        self.downloads: list[str] = []
        outer = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def send_response(self, code, message=None):
                if code == 200:
                    outer.downloads.append(self.path)
                super().send_response(code, message)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=str(folder)))
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def served(tmp_path):
    root, toml = _mirror(tmp_path)
    server = _Server(root)
    yield root, toml, server
    server.close()


def test_url_mirror_downloads_into_the_cache_and_reuses_it(tmp_path, served):
    root, toml, server = served
    entries = sources.load_sources(toml)
    cache = tmp_path / "cache"
    files = sources.url_files(entries, server.url, cache, 100, progress=False)
    assert len(server.downloads) == 3
    assert [f.path.read_bytes() for f in files] == [(root / f.rel).read_bytes() for f in files]
    assert all(cache in f.path.parents and f.downloaded for f in files)
    assert files[2].rel == "docs/two words.md"  # spaces are quoted in the URL, kept on disk

    again = sources.url_files(entries, server.url, cache, 100, progress=False)
    assert len(server.downloads) == 3  # pinned file: no request; others: 304 Not Modified
    assert [f.sha256 for f in again] == [f.sha256 for f in files]

    import os
    import time
    later = time.time() + 5
    (root / "docs" / "one.md").write_text("# One\n\nchanged\n")
    os.utime(root / "docs" / "one.md", (later, later))
    changed = sources.url_files(entries, server.url, cache, 100, progress=False)
    assert server.downloads[3:] == ["/docs/one.md"]
    assert changed[1].path.read_text() == "# One\n\nchanged\n" and changed[1].sha256 != files[1].sha256


def test_url_mirror_errors_name_the_url(tmp_path, served):
    root, toml, server = served
    entries = sources.load_sources(toml)
    (root / "docs" / "one.md").unlink()
    with pytest.raises(SourceError, match=r"/docs/one.md: download failed: HTTP 404") as info:
        sources.url_files(entries, server.url, tmp_path / "cache", 100, progress=False)
    assert server.url in str(info.value)
    (root / "docs" / "one.md").write_bytes(b"")
    with pytest.raises(SourceError, match="one.md: empty file"):
        sources.url_files(entries, server.url, tmp_path / "cache", 100, progress=False)
    (root / "raw" / "summary.csv").write_text("tampered\n")
    with pytest.raises(SourceError, match="summary.csv: sha256 mismatch"):
        sources.url_files(entries, server.url, tmp_path / "cache2", 100, progress=False)
    assert not list((tmp_path / "cache2").rglob("summary.csv*"))  # nothing unverified left in the cache


def test_commentary_over_http_needs_a_file_list(tmp_path):
    toml = tmp_path / "sources.toml"
    toml.write_text("[[source]]\nname = 'd'\nkind = 'commentary'\npath = 'docs'\npattern = '*.md'\n")
    with pytest.raises(SourceError, match="needs a `files` list"):
        sources.url_files(sources.load_sources(toml), "http://127.0.0.1:9", tmp_path / "c", 100, progress=False)
