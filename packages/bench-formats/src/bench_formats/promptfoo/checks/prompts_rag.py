# ruff: noqa: E501  (promptfoo's prompts, word for word: their lines are theirs)
"""promptfoo's G-Eval prompts (``src/prompts``) and its RAGAS prompts
(``src/external/prompts/ragas.ts``, from RAGAS, Apache-2.0), word for word as promptfoo 0.121.20
sends them. ``{{name}}`` fields are filled by ``grader.render``; the NLI prompt's
``{{statements|join("\\n")}}`` is ``{{statements}}`` here, joined before rendering."""

from __future__ import annotations

GEVAL_STEPS = (
    "\n"
    "Given evaluation criteria that outline how you should judge a piece of text, generate 3-4 concise evaluation steps applicable to any text based on the criteria below and designed to check whether the criteria are satisfied by the text.\n"
    "\n"
    "**EVALUATION CRITERIA**\n"
    "{{criteria}}\n"
    "\n"
    "**OUTPUT FORMAT**\n"
    "IMPORTANT:\n"
    "- Return output ONLY as a minified JSON object (no code fences).\n"
    '- The JSON object must contain a single key, "steps", whose value is a list of strings.\n'
    "- Each string must represent one evaluation step.\n"
    "- Do NOT include any explanations, commentary, extra text, or additional formatting.\n"
    "\n"
    "Format:\n"
    '{"steps": <list_of_strings>}\n'
    "\n"
    "Example:\n"
    '{"steps":["<Evaluation Step 1>","<Evaluation Step 2>","<Evaluation Step 3>","<Evaluation Step 4>"]}\n'
    "\n"
    "Here are the 3-4 concise evaluation steps, formatted as required in a minified JSON:\n"
    "JSON:\n"
)

GEVAL_EVALUATE = (
    "\n"
    "You will be given one Reply for a Prompt below. Your task is to rate the Reply on one metric.\n"
    "Please make sure you read and understand these instructions carefully. Please keep this document open while reviewing, and refer to it as needed.\n"
    "\n"
    "**Evaluation Criteria**\n"
    "{{criteria}}\n"
    "\n"
    "**Evaluation Steps**\n"
    "- {{steps}}\n"
    "Given the evaluation steps, return a JSON with two keys: \n"
    '  1) a "score" key that MUST be an integer from 0 to {{maxScore}}, where {{maxScore}} indicates that the condition described by the Evaluation Criteria is fully and clearly observed in the Reply according to the Evaluation Steps, and 0 indicates that it is not observed at all;\n'
    '  2) a "reason" key, a reason for the given score, but DO NOT QUOTE THE SCORE in your reason. Please mention specific information from Prompt and Reply in your reason, but be very concise with it!\n'
    "\n"
    "**Prompt**\n"
    "{{input}}\n"
    "\n"
    "**Reply**\n"
    "{{output}}\n"
    "\n"
    "**OUTPUT FORMAT**\n"
    "IMPORTANT: \n"
    "- Return output ONLY as a minified JSON object (no code fences).\n"
    '- The JSON object must contain exactly two keys: "score" and "reason".\n'
    "- No additional words, explanations, or formatting are needed.\n"
    "- Absolutely no additional text, explanations, line breaks, or formatting outside the JSON object are allowed.\n"
    "\n"
    "Example JSON:\n"
    '{"score":0,"reason":"The text of reply does not follow the evaluation criteria provided."}\n'
    "\n"
    "Here is the final evaluation in the required minified JSON format:\n"
    "JSON:\n"
)

ANSWER_RELEVANCY_GENERATE = (
    "Generate question for the given answer.\n"
    "Answer:\n"
    "The PSLV-C56 mission is scheduled to be launched on Sunday, 30 July 2023 at 06:30 IST / 01:00 UTC. It will be launched from the Satish Dhawan Space Centre, Sriharikota, Andhra Pradesh, India\n"
    "Question: When is the scheduled launch date and time for the PSLV-C56 mission, and where will it be launched from?\n"
    "\n"
    "Answer:{{answer}}\n"
    "Question:"
)

CONTEXT_FAITHFULNESS_LONGFORM = (
    "Given a question and answer, create one or more statements from each sentence in the given answer.\n"
    "question: Who was  Albert Einstein and what is he best known for?\n"
    "answer: He was a German-born theoretical physicist, widely acknowledged to be one of the greatest and most influential physicists of all time. He was best known for developing the theory of relativity, he also made important contributions to the development of the theory of quantum mechanics.\n"
    "statements:\n"
    "Albert Einstein was born in Germany.\n"
    "Albert Einstein was best known for his theory of relativity.\n"
    "question: Cadmium Chloride is slightly soluble in this chemical, it is also called what?\n"
    "answer: alcohol\n"
    "statements:\n"
    "Cadmium Chloride is slightly soluble in alcohol.\n"
    "question: Were Shahul and Jithin of the same nationality?\n"
    "answer: They were from different countries.\n"
    "statements:\n"
    "Shahul and Jithin were from different countries.\n"
    "question:{{question}}\n"
    "answer: {{answer}}\n"
    "statements:\n"
)

CONTEXT_FAITHFULNESS_NLI_STATEMENTS = (
    "Prompt: Natural language inference\n"
    "Consider the given context and following statements, then determine whether they are supported by the information present in the context.Provide a brief explanation for each statement before arriving at the verdict (Yes/No). Provide a final verdict for each statement in order at the end in the given format. Do not deviate from the specified format.\n"
    "\n"
    "Context:\n"
    "John is a student at XYZ University. He is pursuing a degree in Computer Science. He is enrolled in several courses this semester, including Data Structures, Algorithms, and Database Management. John is a diligent student and spends a significant amount of time studying and completing assignments. He often stays late in the library to work on his projects.\n"
    "statements:\n"
    "1. John is majoring in Biology.\n"
    "2. John is taking a course on Artificial Intelligence.\n"
    "3. John is a dedicated student.\n"
    "4. John has a part-time job.\n"
    "5. John is interested in computer programming.\n"
    "\n"
    "Answer:\n"
    "1. John is majoring in Biology.\n"
    "Explanation: John's major is explicitly mentioned as Computer Science. There is no information suggesting he is majoring in Biology.  Verdict: No.\n"
    "2. John is taking a course on Artificial Intelligence.\n"
    "Explanation: The context mentions the courses John is currently enrolled in, and Artificial Intelligence is not mentioned. Therefore, it cannot be deduced that John is taking a course on AI. Verdict: No.\n"
    "3. John is a dedicated student.\n"
    "Explanation: The prompt states that he spends a significant amount of time studying and completing assignments. Additionally, it mentions that he often stays late in the library to work on his projects, which implies dedication. Verdict: Yes.\n"
    "4. John has a part-time job.\n"
    "Explanation: There is no information given in the context about John having a part-time job. Therefore, it cannot be deduced that John has a part-time job.  Verdict: No.\n"
    "5. John is interested in computer programming.\n"
    "Explanation: The context states that John is pursuing a degree in Computer Science, which implies an interest in computer programming. Verdict: Yes.\n"
    "Final verdict for each statement in order: No. No. Yes. No. Yes.\n"
    "context:\n"
    "{{context}}\n"
    "statements:\n"
    "{{statements}}\n"
    "Answer:\n"
)

CONTEXT_RECALL = (
    "Given a context, and an answer, analyze each sentence in the answer and classify if the sentence can be attributed to the given context or not.\n"
    "Think in steps and reason before coming to conclusion.\n"
    "\n"
    'context: Albert Einstein (14 March 1879 – 18 April 1955) was a German-born theoretical physicist,widely held to be one of the greatest and most influential scientists of all time. Best known for developing the theory of relativity, he also made important contributions to quantum mechanics, and was thus a central figure in the revolutionary reshaping of the scientific understanding of nature that modern physics accomplished in the first decades of the twentieth century. His mass–energy equivalence formula E = mc2, which arises from relativity theory, has been called "the world\'s most famous equation". He received the 1921 Nobel Prize in Physics "for his services to theoretical physics, and especially for his discovery of the law of the photoelectric effect", a pivotal step in the development of quantum theory. His work is also known for its influence on the philosophy of science. In a 1999 poll of 130 leading physicists worldwide by the British journal Physics World, Einstein was ranked the greatest physicist of all time. His intellectual achievements and originality have made Einstein synonymous with genius.\n'
    'answer: Albert Einstein born in 14 March 1879 was  German-born theoretical physicist, widely held to be one of the greatest and most influential scientists of all time. He received the 1921 Nobel Prize in Physics "for his services to theoretical physics. He published 4 papers in 1905.  Einstein moved to Switzerland in 1895\n'
    "classification\n"
    "1. Albert Einstein born in 14 March 1879 was  German-born theoretical physicist, widely held to be one of the greatest and most influential scientists of all time. The date of birth of Einstein is mentioned clearly in the context. So [Attributed]\n"
    '2. He received the 1921 Nobel Prize in Physics "for his services to theoretical physics. The exact sentence is present in the given context. So [Attributed]\n'
    "3. He published 4 papers in 1905. There is no mention about papers he wrote in given the context. So [Not Attributed]\n"
    "4. Einstein moved to Switzerland in 1895. There is not supporting evidence for this in the given the context. So [Not Attributed]\n"
    "\n"
    "context:{{context}}\n"
    "answer:{{groundTruth}}\n"
    "classification:\n"
)

CONTEXT_RELEVANCE = (
    'Please extract relevant sentences from the provided context that is absolutely required answer the following query. If no relevant sentences are found, or if you believe the query cannot be answered from the given context, return the phrase "Insufficient Information".  While extracting candidate sentences you\'re not allowed to make any changes to sentences from given context.\n'
    "\n"
    "query: {{query}}\n"
    "context: {{context}}\n"
    "candidate sentences:\n"
)
