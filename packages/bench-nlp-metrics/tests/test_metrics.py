"""Metrics against the libraries' published examples and SQuAD's normalisation cases."""

from __future__ import annotations

import json

import pytest

from bench import BenchError
from bench.testing import run_evaluator, run_suite, write_suite
from bench_nlp_metrics import squad

# sacrebleu's README example: BLEU = 48.53, chrF2 = 59.73 on these three sentences.
SYSTEM = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]
REFERENCES = [
    ["The dog bit the man.", "The dog had bit the man."],
    ["It was not unexpected.", "No one was surprised."],
    ["The man bit him first.", "The man had bitten the dog."],
]


def test_corpus_bleu_and_chrf_equal_sacrebleus_published_example(tmp_path):
    rows = "\n".join(
        f"  - {{id: s{i}, response: {json.dumps(h)}, evaluate: [{{name: bleu, type: bleu, reference: {json.dumps(r)}}}, "
        f"{{name: chrf, type: chrf, reference: {json.dumps(r)}}}]}}"
        for i, (h, r) in enumerate(zip(SYSTEM, REFERENCES, strict=True))
    )
    report = run_suite(write_suite(tmp_path, f"tasks:\n{rows}\n")).report
    aggregates = report.extra["aggregates"]
    assert aggregates["bleu"]["corpus_bleu"] == pytest.approx(48.53, abs=0.005)
    assert aggregates["chrf"]["corpus_chrf"] == pytest.approx(59.73, abs=0.005)
    assert aggregates["bleu"]["samples"] == 3


def test_sentence_bleu_is_on_0_to_1_with_the_native_value_in_the_details():
    outcome = run_evaluator({"type": "bleu", "reference": ["The dog bit the man."]}, "The dog bit the man.")
    assert (outcome.score, outcome.details["bleu"]) == (1.0, 100.0)
    assert not run_evaluator(
        {"type": "bleu_score", "reference": "a b c d", "threshold": 0.5}, "w x y z"
    ).passed


def test_rouge_equals_rouge_scores_readme_example():
    # rouge-score README: rouge1 P=0.75 R=0.6667 F=0.7059, rougeL F=0.5882 (stemming on).
    hypothesis, reference = (
        "The quick brown dog jumps on the log.",
        "The quick brown fox jumps over the lazy dog",
    )
    rouge1 = run_evaluator({"type": "rouge", "reference": reference, "rouge_type": "rouge1"}, hypothesis)
    assert rouge1.score == pytest.approx(0.7058823529411765)
    assert rouge1.details["rouge1"]["precision"] == 0.75
    rouge_l = run_evaluator(
        {"type": "rouge_score", "reference": reference, "rouge_type": "rougeL"}, hypothesis
    )
    assert rouge_l.score == pytest.approx(0.5882352941176471)
    recall = run_evaluator(
        {"type": "rouge", "reference": reference, "rouge_type": "rouge1", "measure": "recall"}, hypothesis
    )
    assert recall.score == pytest.approx(2 / 3)


def test_ter_lower_is_better():
    same = run_evaluator({"type": "ter", "reference": "The dog bit the man."}, "The dog bit the man.")
    assert (same.score, same.details["ter"]) == (1.0, 0.0)
    other = run_evaluator({"type": "ter", "reference": "The dog bit the man."}, "A cat bit the man.")
    assert other.details["ter"] == pytest.approx(40.0)  # 2 edits over 5 reference words
    assert other.score == pytest.approx(0.6)


@pytest.mark.parametrize(
    ("text", "normalized"),
    [
        ("The Cat", "cat"),
        ("An apple, a pear!", "apple pear"),
        ("  Hello,   World.  ", "hello world"),
        ("the theory", "theory"),  # articles go only as whole words
    ],
)
def test_squad_normalisation(text, normalized):
    assert squad.normalize_answer(text) == normalized


@pytest.mark.parametrize(
    ("prediction", "reference", "f1"),
    [
        ("the Eiffel Tower", "Eiffel Tower", 1.0),
        ("a big dog", "the dog barked", 0.5),  # common {dog}: precision 1/2, recall 1/2
        ("Paris, France", "Paris", 2 / 3),  # precision 1/2, recall 1: F1 2/3
        ("London", "Paris", 0.0),
    ],
)
def test_token_f1_classic_cases(prediction, reference, f1):
    assert squad.token_f1(prediction, reference) == pytest.approx(f1)
    assert run_evaluator({"type": "token_f1", "reference": reference}, prediction).score == pytest.approx(f1)


def test_squad_exact_match_and_multiple_references():
    assert run_evaluator(
        {"type": "squad_exact_match", "reference": "Eiffel Tower"}, "the Eiffel Tower!"
    ).passed
    assert not run_evaluator({"type": "squad_em", "reference": "Eiffel Tower"}, "Eiffel").passed
    best = run_evaluator({"type": "token_f1", "reference": ["Paris", "Eiffel Tower"]}, "Eiffel Tower")
    assert best.score == 1.0


def test_a_reference_is_required_and_can_come_from_evidence():
    with pytest.raises(BenchError, match=r"set reference \(or expected_from"):
        run_evaluator({"type": "bleu"}, "x")
    from bench import Task

    task = Task(id="t", prompt="q", expectations={"answer": "Eiffel Tower"})
    outcome = run_evaluator(
        {"type": "token_f1", "expected_from": "case.expectations.answer"}, "Eiffel Tower", task=task
    )
    assert outcome.score == 1.0


def test_similarity_with_api_embeddings_through_the_llm_client(bench_fake_llm):
    # The fake server's embeddings are derived from a hash of the text: equal texts, equal vectors.
    settings = {"type": "similarity", "provider": "litellm", "model": "openai/text-embedding-3-small"}
    same = run_evaluator(
        {**settings, "reference": "The capital of France is Paris."}, "The capital of France is Paris."
    )
    assert same.error is None, same.error
    assert same.score == pytest.approx(1.0)
    embeddings = [r for r in bench_fake_llm.requests if r.path.endswith("/embeddings")]
    assert embeddings[-1].body["input"] == [
        "The capital of France is Paris.",
        "The capital of France is Paris.",
    ]


def test_d11_an_empty_similarity_response_scores_zero_not_nan_without_a_model(tmp_path):
    # No model is loaded for an empty response, so this runs where sentence-transformers is absent.
    rows = "".join(
        f"  - {{id: t{i}, response: {json.dumps(text)}, evaluate: {{type: similarity, reference: 'Paris.'}}}}\n"
        for i, text in enumerate(["", "   \n\t"])
    )
    outcome = run_suite(write_suite(tmp_path, f"tasks:\n{rows}"))
    lines = (outcome.folder / "results.jsonl").read_text().splitlines()
    assert "NaN" not in "".join(lines)
    for line in lines:
        (evaluator,) = json.loads(line)["evaluators"]
        assert evaluator["error"] is None
        assert (evaluator["score"], evaluator["details"]["empty"]) == (0.0, True)


def _truncate(folder, lines: int) -> None:  # type: ignore[no-untyped-def]
    results = folder / "results.jsonl"
    results.write_text("".join(results.read_text().splitlines(keepends=True)[:lines]))


def test_mean_figures_after_resume_cover_every_task_of_the_run(tmp_path):
    rows = "".join(
        f"  - {{id: t{i:02d}, response: {json.dumps(' '.join(['Louvre'] + ['Paris'] * i))}, "
        "evaluate: [{type: token_f1, reference: 'the Louvre in Paris'}, "
        "{type: rouge, reference: 'the Louvre in Paris', rouge_type: rouge1}]}\n"
        for i in range(20)
    )
    path = write_suite(tmp_path, f"tasks:\n{rows}")
    full = run_suite(path)
    figures = full.report.extra["aggregates"]
    assert (figures["token_f1"]["samples"], figures["rouge"]["samples"]) == (20, 20)
    _truncate(full.folder, 10)

    resumed = run_suite(path, resume=full.folder.name)

    assert resumed.to_run == 10
    assert resumed.report.extra["aggregates"] == figures


def test_the_mean_similarity_is_over_every_task_stored(bench_fake_llm, tmp_path):
    settings = (
        "{type: similarity, provider: litellm, model: openai/text-embedding-3-small, reference: 'Paris.'}"
    )
    texts = ["Paris.", "Lyon.", "Paris is in France.", "bananas"]
    rows = "".join(
        f"  - {{id: t{i}, response: {json.dumps(t)}, evaluate: {settings}}}\n" for i, t in enumerate(texts)
    )
    path = write_suite(tmp_path, f"tasks:\n{rows}")
    full = run_suite(path)
    scores = [json.loads(line)["evaluators"][0]["score"] for line in (full.folder / "results.jsonl").open()]
    expected = {"type": "similarity", "samples": 4, "mean": round(sum(scores) / 4, 6)}
    assert full.report.extra["aggregates"]["similarity"] == expected
    _truncate(full.folder, 2)

    resumed = run_suite(path, resume=full.folder.name)

    assert resumed.to_run == 2
    assert resumed.report.extra["aggregates"]["similarity"] == expected


#: 20 translations with two references each; a few share no word with either.
HYPOTHESES = [
    f"{subject} {verb} the {thing} {when}."
    for subject, verb, thing, when in zip(
        ["The dog", "A cat", "The man", "She", "They"] * 4,
        ["bit", "saw", "found", "took", "left"] * 4,
        ["man", "ball", "key", "book", "car", "bag", "pen", "cup", "hat", "map"] * 2,
        ["today", "yesterday", "at noon", "again"] * 5,
        strict=True,
    )
]
TWO_REFERENCES = [[h.replace("the", "a"), h.replace(".", " there.")] for h in HYPOTHESES]


def _bleu_suite(tmp_path, hypotheses, references):  # type: ignore[no-untyped-def]
    rows = "".join(
        f"  - {{id: t{i:02d}, response: {json.dumps(h)}, evaluate: ["
        f"{{name: bleu, type: bleu, reference: {json.dumps(r)}}}, "
        f"{{name: chrf, type: chrf, word_order: 2, reference: {json.dumps(r)}}}, "
        f"{{name: ter, type: ter, reference: {json.dumps(r)}}}]}}\n"
        for i, (h, r) in enumerate(zip(hypotheses, references, strict=True))
    )
    return write_suite(tmp_path, f"tasks:\n{rows}")


@pytest.mark.parametrize(("hypotheses", "refs"), [(SYSTEM, REFERENCES), (HYPOTHESES, TWO_REFERENCES)])
def test_corpus_figures_from_stored_statistics_equal_sacrebleus_corpus_score(tmp_path, hypotheses, refs):
    import sacrebleu

    figures = run_suite(_bleu_suite(tmp_path, hypotheses, refs)).report.extra["aggregates"]
    streams = [list(s) for s in zip(*refs, strict=True)]
    bleu = sacrebleu.corpus_bleu(hypotheses, streams)
    chrf = sacrebleu.corpus_chrf(hypotheses, streams, word_order=2)
    ter = sacrebleu.corpus_ter(hypotheses, streams)
    assert (figures["bleu"]["corpus_bleu"], figures["bleu"]["corpus"]) == (round(bleu.score, 4), str(bleu))
    assert (figures["chrf"]["corpus_chrf"], figures["chrf"]["corpus"]) == (round(chrf.score, 4), str(chrf))
    assert (figures["ter"]["corpus_ter"], figures["ter"]["corpus"]) == (round(ter.score, 4), str(ter))
    assert figures["bleu"]["samples"] == len(hypotheses)


def test_corpus_bleu_after_resume_covers_every_task_of_the_run(tmp_path):
    path = _bleu_suite(tmp_path, HYPOTHESES, TWO_REFERENCES)
    full = run_suite(path)
    figures = full.report.extra["aggregates"]
    assert figures["bleu"]["samples"] == 20
    _truncate(full.folder, 10)

    resumed = run_suite(path, resume=full.folder.name)

    assert resumed.to_run == 10
    assert resumed.report.extra["aggregates"] == figures


def test_each_result_keeps_the_sentence_statistics_sacrebleu_sums_for_the_corpus():
    from sacrebleu.metrics import BLEU

    hypothesis, refs = SYSTEM[1], REFERENCES[1]
    outcome = run_evaluator({"type": "bleu", "reference": refs}, hypothesis)
    (expected,) = BLEU()._extract_corpus_statistics([hypothesis], [[r] for r in refs])
    assert outcome.details["corpus_stats"] == list(expected)


def test_a_resumed_run_kept_from_an_older_bench_reports_why_it_has_no_corpus_figures(tmp_path):
    path = _bleu_suite(tmp_path, HYPOTHESES, TWO_REFERENCES)
    full = run_suite(path)
    results = full.folder / "results.jsonl"
    kept = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()[:10]]
    for row in kept:  # as bench wrote them before results kept their sentence statistics
        for outcome in row["evaluators"]:
            outcome["details"].pop("corpus_stats")
    results.write_text("".join(json.dumps(row) + "\n" for row in kept), encoding="utf-8")

    resumed = run_suite(path, resume=full.folder.name)

    assert resumed.report.extra["aggregates"]["bleu"] == {
        "type": "bleu",
        "error": "ValueError: 10 stored results have no corpus statistics (recorded by an older bench): "
        "run the suite again without --resume for the corpus figures",
    }
