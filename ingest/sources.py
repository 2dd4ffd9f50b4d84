"""The sources file (data/sources.toml) and getting each listed file onto local disk.

A mirror root is either a local folder or an http(s) URL. Either way the pipeline gets back
`LocalFile`s: a real path it can read plus the content hash that decides whether anything
changed since the last ingest. Downloads go to the `cache` folder and are reused when the
server says the file is unchanged (ETag / Last-Modified) or when the pinned sha256 still
matches, so a warm ingest over HTTP does not re-download megabytes.

Only the standard library is imported at top level (the `status` command and the warm
"unchanged" path must stay fast); tqdm is imported when a download actually starts.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import tomllib
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from ingest.errors import SourceError
from ingest.settings import PROJECT_ROOT

KINDS = ("results", "commentary", "guide", "verified")
DOCUMENT_KINDS = ("commentary", "guide")  # a folder of documents, chunked and embedded
ROOTS = ("mirror", "clone")  # what a source's `path` is relative to
CLONE_ROOT = PROJECT_ROOT  # this clone of the repository, whatever its folder is called
_CHUNK = 1 << 20


@dataclass(frozen=True)
class Source:
    """One [[source]] entry: an MLPerf round (one file) or a folder of documents (commentary, guide)."""

    name: str
    kind: str
    path: str
    url: str = ""
    round: str = ""
    sha256: str | None = None  # results: pin of the one file
    rows: int | None = None
    pattern: str | None = None
    exclude: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    urls: dict[str, str] = field(default_factory=dict)
    sha256s: dict[str, str] = field(default_factory=dict)
    publisher: str = ""  # documents: default `source` of documents whose front matter names none
    language: str = ""  # documents: default `language` likewise
    root: str = "mirror"  # "clone": `path` is inside this repository, read locally whatever the mirror
    dataset: str = ""  # documents about a dataset card's table (its id); "" = the default table's

    def pin(self, rel: str) -> str | None:
        """The expected sha256 of a file of this source, if the sources file pins it."""
        if self.kind == "results":
            return self.sha256
        return self.sha256s.get(Path(rel).name)

    def public_url(self, rel: str) -> str:
        return self.urls.get(Path(rel).name, self.url)


@dataclass(frozen=True)
class LocalFile:
    """A source file on local disk (in the mirror or in the download cache) and its content hash."""

    source: Source
    rel: str  # path relative to the mirror root, e.g. "mlperf/raw/v6.1/summary.csv"
    path: Path
    sha256: str
    size: int
    downloaded: bool = False
    origin: str = ""  # the URL a downloaded file came from (named in errors instead of the cache path)

    @property
    def public_url(self) -> str:
        return self.source.public_url(self.rel)


def load_sources(path: str | os.PathLike) -> list[Source]:
    """Parse and check the sources file; a mistake in it is a SourceError naming the file."""
    path = Path(path)
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise SourceError(path, "sources file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise SourceError(path, f"not valid TOML ({exc})") from None
    entries = data.get("source")
    if not isinstance(entries, list) or not entries:
        raise SourceError(path, "no [[source]] entries")
    sources: list[Source] = []
    seen: set[str] = set()
    for i, entry in enumerate(entries, 1):
        where = f"[[source]] #{i}"
        for key in ("name", "kind", "path"):
            if not isinstance(entry.get(key), str) or not entry[key]:
                raise SourceError(path, f"{where} needs a `{key}`")
        if entry["kind"] not in KINDS:
            raise SourceError(path, f"{where} ({entry['name']}): kind must be one of {', '.join(KINDS)}")
        if entry["name"] in seen:
            raise SourceError(path, f"{where}: duplicate name {entry['name']!r}")
        seen.add(entry["name"])
        root = entry.get("root", "mirror")
        if root not in ROOTS:
            raise SourceError(path, f"{where} ({entry['name']}): root must be one of {', '.join(ROOTS)}")
        if Path(entry["path"]).is_absolute() or ".." in Path(entry["path"]).parts:
            raise SourceError(path, f"{where} ({entry['name']}): path must be relative to the {root} root")
        pin = entry.get("sha256")
        sources.append(Source(
            name=entry["name"], kind=entry["kind"], path=entry["path"], url=entry.get("url", ""),
            round=entry.get("round", ""), sha256=pin if isinstance(pin, str) else None,
            rows=entry.get("rows"), pattern=entry.get("pattern"), exclude=tuple(entry.get("exclude", ())),
            files=tuple(entry.get("files", ())), urls=dict(entry.get("urls", {})),
            sha256s=dict(pin) if isinstance(pin, dict) else {},
            publisher=entry.get("publisher", ""), language=entry.get("language", ""), root=root,
            dataset=entry.get("dataset", ""),
        ))
    return sources


def is_url(root: str) -> bool:
    return urllib.parse.urlparse(str(root)).scheme in ("http", "https")


def resolve_root(settings, source: str | None = None) -> str:
    """The mirror root: `--source` wins over the `data` setting (which RESULTSQA_DATA sets)."""
    root = source or settings.data
    return str(root) if is_url(str(root)) else str(Path(root).expanduser().resolve())


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _check_size(where: object, size: int, max_mb: int) -> None:
    if size == 0:
        raise SourceError(where, "empty file")
    if size > max_mb * 1024 * 1024:
        raise SourceError(where, f"file is {size / 1024 / 1024:.0f} MB, over the limit of {max_mb} MB "
                                 "(setting max_source_mb)")


def _verify(where: object, source: Source, rel: str, digest: str) -> None:
    pin = source.pin(rel)
    if pin and pin.lower() != digest:
        raise SourceError(where, f"sha256 mismatch (expected {pin[:12]}…, got {digest[:12]}…): "
                                 "the file differs from the one pinned in the sources file")


def _check_inside(path: Path, root: Path, label: str = "mirror") -> None:
    """Refuse a path that leaves its root (the mirror's or the clone's) once symbolic links are followed.

    Only what the mirror holds may be indexed and quoted: a link to a system file or to another
    folder would publish whatever it points at.
    """
    real = path.resolve()
    if not real.is_relative_to(root.resolve()):
        raise SourceError(path, f"symbolic link resolves outside the {label} root (to {real}); refused")


def _local_rels(source: Source, root: Path) -> list[str]:
    """The files a source names inside a local mirror."""
    if source.kind == "results":
        return [source.path]
    folder = root / source.path
    if not folder.is_dir():
        raise SourceError(folder, f"{source.kind} folder of source {source.name!r} not found")
    _check_inside(folder, root, source.root)
    if source.pattern:
        names = sorted(p.name for p in folder.glob(source.pattern) if p.is_file() and p.name not in source.exclude)
    else:
        names = list(source.files)
    return [f"{source.path}/{name}" for name in names]


def _url_rels(source: Source) -> list[str]:
    if source.kind == "results":
        return [source.path]
    if not source.files:
        raise SourceError(source.name, f"a {source.kind} collection fetched over http(s) needs a `files` list")
    return [f"{source.path}/{name}" for name in source.files]


def local_files(sources: list[Source], root: Path, max_mb: int) -> list[LocalFile]:
    """Every file of every source in a local mirror (or, for `root = "clone"`, in this clone),
    size-checked, hashed and verified against pins."""
    out: list[LocalFile] = []
    for source in sources:
        base = CLONE_ROOT if source.root == "clone" else root
        for rel in _local_rels(source, base):
            path = base / rel
            _check_inside(path, base, source.root)
            if not path.is_file():
                raise SourceError(path, f"file of source {source.name!r} not found")
            size = path.stat().st_size
            _check_size(path, size, max_mb)  # before hashing: a huge file is refused without reading it
            digest = sha256_file(path)
            _verify(path, source, rel, digest)
            out.append(LocalFile(source, rel, path, digest, size))
    return out


def cache_folder(cache: str | os.PathLike, root_url: str) -> Path:
    """One cache folder per mirror URL, so two mirrors never overwrite each other's files."""
    key = hashlib.sha256(root_url.rstrip("/").encode()).hexdigest()[:16]
    return Path(cache) / key


def _download(url: str, target: Path, source: Source, rel: str, max_mb: int, progress: bool) -> LocalFile:
    """Fetch one file (conditional on the cached copy), verify it, and move it into the cache."""
    meta_path = target.with_name(target.name + ".meta.json")
    meta = json.loads(meta_path.read_text()) if meta_path.is_file() and target.is_file() else {}
    pin = source.pin(rel)
    if meta and pin and meta.get("sha256") == pin.lower():
        return LocalFile(source, rel, target, meta["sha256"], meta["size"], downloaded=True, origin=url)
    request = urllib.request.Request(url, headers={"User-Agent": "resultsqa-ingest"})
    if meta.get("etag"):
        request.add_header("If-None-Match", meta["etag"])
    if meta.get("last_modified"):
        request.add_header("If-Modified-Since", meta["last_modified"])
    try:
        response = urllib.request.urlopen(request, timeout=60)
    except urllib.error.HTTPError as exc:
        if exc.code == 304 and meta:
            return LocalFile(source, rel, target, meta["sha256"], meta["size"], downloaded=True, origin=url)
        raise SourceError(url, f"download failed: HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise SourceError(url, f"download failed: {getattr(exc, 'reason', exc)}") from None
    with response:
        length = response.headers.get("Content-Length")
        if length is not None:
            _check_size(url, int(length), max_mb)
        target.parent.mkdir(parents=True, exist_ok=True)
        part = target.with_name(target.name + f".part-{os.getpid()}")
        digest = hashlib.sha256()
        size = 0
        from tqdm import tqdm

        try:
            with part.open("wb") as out, tqdm(total=int(length) if length else None, unit="B", unit_scale=True,
                                              desc=Path(rel).name, disable=not progress, leave=False) as bar:
                while block := response.read(_CHUNK):
                    size += len(block)
                    if size > max_mb * 1024 * 1024:
                        _check_size(url, size, max_mb)
                    digest.update(block)
                    out.write(block)
                    bar.update(len(block))
            _check_size(url, size, max_mb)
            _verify(url, source, rel, digest.hexdigest())
            os.replace(part, target)
        except (OSError, http.client.HTTPException) as exc:
            raise SourceError(url, f"download interrupted after {size} bytes ({exc.__class__.__name__})") from None
        finally:
            part.unlink(missing_ok=True)
        meta = {"url": url, "sha256": digest.hexdigest(), "size": size,
                "etag": response.headers.get("ETag"), "last_modified": response.headers.get("Last-Modified")}
    tmp_meta = meta_path.with_name(meta_path.name + f".tmp-{os.getpid()}")
    tmp_meta.write_text(json.dumps(meta))
    os.replace(tmp_meta, meta_path)
    return LocalFile(source, rel, target, meta["sha256"], size, downloaded=True, origin=url)


def url_files(sources: list[Source], root_url: str, cache: str | os.PathLike, max_mb: int,
              progress: bool = True) -> list[LocalFile]:
    """Every file of every source fetched from a mirror URL into the cache (reused when unchanged)."""
    folder = cache_folder(cache, root_url)
    base = root_url.rstrip("/") + "/"
    out: list[LocalFile] = []
    for source in sources:
        for rel in _url_rels(source):
            url = base + urllib.parse.quote(rel)
            out.append(_download(url, folder / rel, source, rel, max_mb, progress))
    return out


def evict(file: LocalFile, error: SourceError) -> SourceError:
    """Forget a downloaded file that failed to parse (the next ingest fetches it again).

    Returns the error to raise: for a download it names the URL, not the cache path.
    """
    if not file.downloaded:
        return error
    file.path.unlink(missing_ok=True)
    file.path.with_name(file.path.name + ".meta.json").unlink(missing_ok=True)
    return SourceError(file.origin or file.path, error.problem)


def gather(settings, source: str | None = None, progress: bool = True) -> tuple[str, list[Source], list[LocalFile]]:
    """Resolve the root, read the sources file and return every source file on local disk."""
    sources = load_sources(settings.sources)
    root = resolve_root(settings, source)
    mirrored = [s for s in sources if s.root == "mirror"]
    if is_url(root):
        files = url_files(mirrored, root, settings.cache, settings.max_source_mb, progress)
    else:
        if not Path(root).is_dir():
            raise SourceError(root, "mirror root not found (setting `data`, RESULTSQA_DATA or --source)")
        files = local_files(mirrored, Path(root), settings.max_source_mb)
    files += local_files([s for s in sources if s.root == "clone"], CLONE_ROOT, settings.max_source_mb)
    return root, sources, files
