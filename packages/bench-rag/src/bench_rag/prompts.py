"""The judge prompts of bench-rag: versioned templates (a user may replace any with ``prompt:``).

``VERSION`` is recorded in every result's details (``prompt_version``), so results judged with
different prompts are never mistaken for comparable ones.
"""

VERSION = "rag-1"

FAITHFULNESS = """List every factual claim the response makes. For each claim, decide whether the
retrieved context supports it: supported means the context states it or it follows directly from
the context; anything the context does not say is unsupported, even if it is true.

Context (numbered chunks):
{context}

Response:
{response}"""

RELEVANCY = """Score from 0 to 1 how well the response answers the question: 1 when it answers
exactly what was asked, lower for answers that are partial, evasive, or padded with material the
question did not ask for, 0 when it does not answer it at all. Give a one-sentence reason.

Question: {question}

Response:
{response}"""

PRECISION = """For each numbered chunk of retrieved context, in order, decide whether it is
relevant to answering the question: relevant means it contains information needed for the answer.
Return exactly one entry per chunk.

Question: {question}

Context (numbered chunks):
{context}"""

RECALL = """Split the reference answer into its individual statements. For each statement, decide
whether it can be attributed to the retrieved context (the context states it or it follows
directly from it).

Reference answer: {reference}

Context (numbered chunks):
{context}"""
