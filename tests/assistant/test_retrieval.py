"""Retrieval that honours the question: reranked by its rare words and names, boosted for the
rounds, organisations and document kind it asks for, deduplicated. Small inline passages."""

from __future__ import annotations

from assistant.answer import Passage
from assistant.retrieval import Want, dedupe, rerank


def _p(i: int, text: str, **kw) -> Passage:
    return Passage(id=f"doc:d{i}.md:0", text=text, title=kw.pop("title", f"Doc {i}"), **kw)


def test_a_rare_word_of_the_question_lifts_the_passage_that_has_it():
    passages = [_p(0, "MLPerf Inference results were published this week."),
                _p(1, "Results across the suite."),
                _p(2, "The co-chair said the suite saw its biggest revision ever.")]
    ranked = rerank("who called it the biggest revision", passages, Want())
    assert ranked[0].id == "doc:d2.md:0"


def test_the_named_organisation_and_round_are_boosted():
    passages = [_p(0, "A result.", rounds=["v5.1"]), _p(1, "A result.", rounds=["v6.0"], title="AMD blog"),
                _p(2, "A result.", rounds=["v6.0"])]
    ranked = rerank("a result", passages, Want(rounds=("v6.0",), names=("AMD",)))
    assert [p.id for p in ranked] == ["doc:d1.md:0", "doc:d2.md:0", "doc:d0.md:0"]


def test_a_definition_prefers_the_guide_in_the_question_language():
    passages = [_p(0, "Offline was used by many.", doc_kind="news"),
                _p(1, "Offline is the scenario where all queries arrive at once.", doc_kind="guide", language="en"),
                _p(2, "Offline är scenariot där alla frågor kommer på en gång.", doc_kind="guide", language="sv")]
    assert rerank("vad betyder Offline?", passages, Want(guide=True, language="sv"))[0].id == "doc:d2.md:0"
    assert rerank("what does Offline mean?", passages, Want(guide=True, language="en"))[0].id == "doc:d1.md:0"


def test_repeated_text_is_kept_once():
    passages = [_p(0, "Same  text here."), _p(1, "same text here."), _p(2, "Other text.")]
    assert [p.id for p in dedupe(passages)] == ["doc:d0.md:0", "doc:d2.md:0"]


def test_the_publisher_named_and_the_document_type_asked_come_first():
    passages = [Passage(id="doc:v6.0_pubgpclite_amd-news.md:0", text="MI355X bandwidth.", title="MI355X news"),
                Passage(id="doc:v6.0_amd_vendor-blog.md:0", text="MI355X bandwidth.", title="MI355X submission")]
    ranked = rerank("according to amd's own blog, the mi355x bandwidth?", passages, Want(names=("amd",)))
    assert ranked[0].id == "doc:v6.0_amd_vendor-blog.md:0"


def test_in_a_named_document_the_section_headed_by_the_organisation_asked_comes_first():
    doc = "v4.1_mlcommons_supplemental-discussion.pdf"
    passages = [Passage(id=f"doc:{doc}:33", text="Red Hat\n\nOur results ran on Dell servers.", title="Discussion"),
                Passage(id=f"doc:{doc}:9", text="Dell Technologies\n\nWith 130 submissions, Dell ...",
                        title="Discussion")]
    ranked = rerank("how many results did dell submit", passages, Want(names=("Dell",), documents=(doc,)))
    assert ranked[0].id == f"doc:{doc}:9"


def test_a_guide_chunk_and_its_translation_come_back_once_in_the_question_language():
    from assistant.retrieval import one_language

    en = Passage(id="doc:scenarios.md:0", text="Offline is ...", doc_kind="guide", language="en")
    sv = Passage(id="doc:scenarios.sv.md:0", text="Offline är ...", doc_kind="guide", language="sv",
                 translation_of="scenarios.md")
    other = Passage(id="doc:divisions.md:0", text="Closed ...", doc_kind="guide", language="en")
    news = Passage(id="doc:v6.0_news.md:0", text="News", doc_kind="news", language="en")
    assert [p.id for p in one_language([en, sv, other, news], "sv")] == [sv.id, other.id, news.id]
    assert [p.id for p in one_language([en, sv, other, news], "en")] == [en.id, other.id, news.id]
    assert [p.id for p in one_language([en, other], "sv")] == [en.id, other.id]  # no translation came back


class _Store:
    """Records the filter a search asks for; returns nothing."""

    def __init__(self):
        self.wheres = []

    def search(self, query, k, where=None):
        self.wheres.append(where)
        return []


def test_a_search_asks_for_the_guide_in_the_question_language_and_the_original_only():
    from assistant.retrieval import search

    store = _Store()
    search(store, "vad betyder Offline", 5, want=Want(language="sv"))
    search(store, "what does Offline mean", 5, want=Want(language="en"))
    search(store, "a solved question", 5, kind="verified")
    guide_clause = [c for c in store.wheres[0]["$and"] if "$or" in c][0]["$or"]
    assert {"language": {"$in": ["en", "sv"]}} in guide_clause and {"doc_kind": {"$ne": "guide"}} in guide_clause
    assert {"language": {"$in": ["en"]}} in [c for c in store.wheres[1]["$and"] if "$or" in c][0]["$or"]
    assert store.wheres[2] == {"kind": "verified"}  # solved questions have no language variants


def test_with_no_document_named_the_section_headed_by_the_submitter_asked_comes_first():
    """"lambda in 5.1, according to them": Lambda's own statement, wherever it is."""
    doc = "v5.1_mlcommons_supplemental-discussion.pdf"
    passages = [Passage(id="doc:v5.1_news.md:0", text="Throughput rose 15% this round.", title="News"),
                Passage(id=f"doc:{doc}:21", text="Lambda\n\nThroughput rose 15% over the previous round.",
                        title="Discussion")]
    asked = rerank("how much higher throughput, according to them", passages,
                   Want(names=("lambda",), organisations=("Lambda",)))
    assert asked[0].id == f"doc:{doc}:21"
    plain = rerank("how much higher throughput, according to them", passages, Want(names=("lambda",)))
    assert plain[0].id == "doc:v5.1_news.md:0"  # the boost is the submitter's, not the word's


class _Found(_Store):
    def search(self, query, k, where=None):
        super().search(query, k, where)
        self.queries = getattr(self, "queries", []) + [query]
        return []


def test_a_submitter_asked_is_also_searched_by_name():
    from assistant.retrieval import search

    store = _Found()
    search(store, "how much higher throughput, according to them", 5, want=Want(organisations=("Lambda",)))
    assert store.queries == ["how much higher throughput, according to them", "Lambda"]


def test_a_chip_vendor_that_submits_is_an_organisation_asked():
    """"what did NVIDIA say": NVIDIA names a chip vendor and a submitter, so its own statement in a
    supplemental discussion is searched and boosted; a vendor that never submits has no statement."""
    from assistant.catalog import Catalog
    from assistant.offline import _want
    from assistant.parse import parse
    from tests.helpers.tables import small_table

    catalog = Catalog.from_table(small_table([
        ("v6.0", 600, "llama2-70b-99.9", "Offline", "Tokens/s", "NVIDIA", "B200", "NVIDIA"),
        ("v6.0", 600, "resnet", "Offline", "Samples/s", "HPE", "Cloud AI 100", "Qualcomm")]))
    said = _want(parse("by how much did nvidia say dynamo raised llama2-70b throughput in v6.0?", catalog),
                 ["v6.0"], catalog)
    assert said.organisations == ("NVIDIA",)
    other = _want(parse("by how much did qualcomm say its resnet throughput rose in v6.0?", catalog), ["v6.0"],
                  catalog)
    assert other.organisations == () and "Qualcomm" in other.names


class _Pages(_Store):
    """A store whose search finds one half of a statement; `chunks` returns what its metadata filter
    selects, as Chroma's `get` does."""

    CHUNKS = [
        {"id": "doc:v6.0_disc.pdf:1", "text": "AMD\n\nAMD is pleased to share new results.",
         "metadata": {"doc_id": "v6.0_disc.pdf", "page": 2, "kind": "doc", "doc_kind": "commentary"}},
        {"id": "doc:v6.0_disc.pdf:2", "text": "Nine OEMs submitted results on AMD Instinct platforms.",
         "metadata": {"doc_id": "v6.0_disc.pdf", "page": 2, "kind": "doc", "doc_kind": "commentary"}},
        {"id": "doc:v6.0_disc.pdf:3", "text": "Cisco\n\nCisco is another company on another page.",
         "metadata": {"doc_id": "v6.0_disc.pdf", "page": 3, "kind": "doc", "doc_kind": "commentary"}},
    ]

    def search(self, query, k, where=None):
        super().search(query, k, where)
        return [dict(self.CHUNKS[0], score=0.9)]

    def chunks(self, where):
        if "doc_id" not in where["$and"][0]:  # every chunk, for the word match: this test is about pages
            return []
        doc, page = where["$and"][0]["doc_id"], where["$and"][1]["page"]
        return [c for c in self.CHUNKS if c["metadata"]["doc_id"] == doc and c["metadata"]["page"] == page]


def test_the_rest_of_a_found_page_follows_the_top_passages():
    """Small-to-big: the half of AMD's statement the question's words did not reach comes after the
    top k, so the sentence with the figure can be quoted; another page of the document does not."""
    from assistant.retrieval import search

    found = search(_Pages(), "how many OEMs submitted on amd instinct in v6.0 according to amd", 1)
    assert [p.id for p in found] == ["doc:v6.0_disc.pdf:1", "doc:v6.0_disc.pdf:2"]
    assert search(_Store(), "a store without chunks", 1) == []  # a store that cannot list chunks: as before


def test_a_swedish_questions_words_rank_english_passages_through_the_glossary():
    """"vilket universitet var den första akademiska institutionen": the English statement that says
    "first academic institution" and "university" comes before one that shares none of it."""
    other = _p(1, "The cluster scheduler kept every run reproducible.")
    said = _p(2, "The University of Florida was the first academic institution to submit results.")
    ranked = rerank("vilket universitet var den första akademiska institutionen?", [other, said], Want(language="sv"))
    assert ranked[0] is said
    assert rerank("vilket universitet var först?", [other, said], Want(language="en"))[0] is other  # English: no glossary


class _GuideFirst(_Store):
    def search(self, query, k, where=None):
        super().search(query, k, where)
        return [{"id": "doc:scenarios.md:0", "text": "Offline is a scenario.", "score": 0.9,
                 "metadata": {"doc_kind": "guide", "kind": "doc", "language": "en"}},
                {"id": "doc:v6.0_news.md:0", "text": "NVIDIA claimed a record on Offline.", "score": 0.8,
                 "metadata": {"doc_kind": "commentary", "kind": "doc", "language": "en"}}]


def test_a_question_about_a_claim_gets_the_documents_before_our_guide():
    from assistant.retrieval import search

    claimed = search(_GuideFirst(), "what did nvidia claim about offline", 2, want=Want(claims=True))
    assert [p.id for p in claimed] == ["doc:v6.0_news.md:0", "doc:scenarios.md:0"]  # the guide only fills up
    plain = search(_GuideFirst(), "what is offline", 2, want=Want())
    assert plain[0].id == "doc:scenarios.md:0"


def test_a_source_asked_marks_the_search_as_one_for_claims():
    from assistant.offline import _want
    from assistant.parse import parse
    from tests.assistant.test_parse import _table
    from assistant.catalog import Catalog

    catalog = Catalog.from_table(_table())
    assert _want(parse("what did nvidia claim about the b300 in v6.1?", catalog), None, catalog).claims
    assert not _want(parse("why can't i compare offline with server?", catalog), None, catalog).claims


class _FarVectors(_Store):
    """A vector index whose nearest chunks miss the statement; `chunks` lists every chunk."""

    NEAR = [{"id": f"doc:v5.1_news.md:{i}", "text": f"Results were published this autumn, part {i}.", "score": 0.9,
             "metadata": {"kind": "doc", "doc_kind": "commentary", "rounds": "v5.1"}} for i in range(8)]
    STATEMENT = {"id": "doc:v5.1_disc.pdf:45", "text": "Amitash Nanda\n\nAs a UC San Diego Ph.D. student he ran "
                 "the benchmark on an Apple MacBook Pro with the M1 Pro chip.",
                 "metadata": {"kind": "doc", "doc_kind": "commentary", "rounds": "v5.1"}}

    def search(self, query, k, where=None):
        super().search(query, k, where)
        return list(self.NEAR)

    def chunks(self, where):
        if "doc_id" in str(where):  # a found page's other chunks: none here
            return []
        return self.NEAR + [self.STATEMENT]


def test_a_chunk_the_vectors_miss_is_found_by_its_rare_words():
    """Hybrid retrieval: a word match over every chunk adds the statement that shares the question's
    rare words ("phd" for "Ph.D.", "laptop" for "MacBook") to the vector index's candidates."""
    from assistant.retrieval import search

    found = search(_FarVectors(), "a phd student ran v5.1 on a laptop, what machine was it", 3)
    assert "doc:v5.1_disc.pdf:45" in [p.id for p in found], [p.id for p in found]
    assert search(_Store(), "a store that cannot list its chunks", 3) == []


def test_a_document_named_by_its_language_is_searched_and_comes_first():
    """"enligt den svenska artikeln": the Swedish document is searched for (it may rank below the
    cut-off) and boosted, and "MLCommons" beside it is what the article is about, not its publisher."""
    from assistant.catalog import Catalog
    from assistant.offline import _want
    from assistant.parse import parse
    from assistant.retrieval import search
    from tests.assistant.test_parse import _table

    catalog = Catalog.from_table(_table())
    catalog.add_publishers(["v5.0_mlcommons_press-release.md", "v6.1_studio-global_analysis-sv.md"])
    for question in ("Vad heter den nya inriktning som MLCommons har förhandsvisat, enligt den svenska artikeln?",
                     "what new direction did MLCommons preview, according to the swedish article?"):
        want = _want(parse(question, catalog), None, catalog)
        assert want.written == "sv" and want.documents == (), want
    passages = [_p(0, "MLCommons previewed new tests.", language="en"),
                _p(1, "MLCommons har förhandsvisat MLPerf Endpoints.", language="sv"),
                _p(2, "Vår guide: MLCommons driver MLPerf.", language="sv", doc_kind="guide")]
    assert rerank("mlcommons förhandsvisat", passages, Want(written="sv", language="sv"))[0].id == "doc:d1.md:0"
    store = _Store()
    search(store, "vad förhandsvisade mlcommons", 5, want=Want(written="sv", language="sv"))
    assert any({"language": "sv"} in w["$and"] for w in store.wheres[1:]), store.wheres


def test_a_statement_headed_by_another_spelling_of_the_submitter_comes_first():
    """"thestage ai - whats their optimizer tool called": the table's submitter is "The_Stage", and its
    statement is headed "TheStage AI"; the heading is the submitter's all the same."""
    doc = "v5.1_mlcommons_supplemental-discussion.pdf"
    passages = [Passage(id=f"doc:{doc}:19", text="KRAI\n\nKRAI, like TheStage AI, sells optimizer tools.",
                        title="Discussion"),
                Passage(id=f"doc:{doc}:40", text="TheStage AI\n\nWe build tools that make networks run faster.",
                        title="Discussion")]
    ranked = rerank("thestage ai - whats their optimizer tool called", passages,
                    Want(names=("thestage ai", "The_Stage"), organisations=("The_Stage",)))
    assert ranked[0].id == f"doc:{doc}:40"
