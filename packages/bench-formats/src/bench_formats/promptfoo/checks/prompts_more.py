# ruff: noqa: E501, W291  (promptfoo's prompts, word for word: their lines and trailing spaces are theirs)
"""More of promptfoo's grading prompts, word for word: ``conversation-relevance``'s
(``ConversationRelevancyTemplate``, from deepeval) and ``search-rubric``'s
(``DEFAULT_WEB_SEARCH_PROMPT``). ``<<name>>`` marks where a value goes (``fill``)."""

from __future__ import annotations

import re

CONVERSATION_VERDICTS = """Based on the given list of message exchanges between a user and an LLM, generate a JSON object to indicate whether the LAST `assistant` message is relevant to context in messages. The JSON will have 2 fields: 'verdict' and 'reason'.
The 'verdict' key should STRICTLY be either 'yes' or 'no', which states whether the last `assistant` message is relevant according to the context in messages 
Provide a 'reason' ONLY if the answer is 'no'. 
You MUST USE the previous messages (if any) provided in the list of messages to make an informed judgement on relevancy.

**
IMPORTANT: Please make sure to only return in JSON format.
Example Messages:
[
    {
        "role": "user",
        "content": "Hi! I have something I want to tell you"
    },
    {
        "role": "assistant",
        "content": "Sure, what is it?"
    },
    {
        "role": "user",
        "content": "I've a sore throat, what meds should I take?"
    },
    {
        "role": "assistant",
        "content": "Not sure, but isn't it a nice day today?"
    }
]

Example JSON:
{
    "verdict": "no",
    "reason": "The LLM responded 'isn't it a nice day today' to a message that asked about how to treat a sore throat, which is completely irrelevant."
}
===== END OF EXAMPLE ======
You MUST ONLY provide a verdict for the LAST message on the list but MUST USE context from the previous messages.
You DON'T have to provide a reason if the answer is 'yes'.
ONLY provide a 'no' answer if the LLM response is COMPLETELY irrelevant to the message input.
Vague LLM responses to vague inputs, such as greetings DOES NOT count as irrelevancies!
**

Messages:
<<messages>>

JSON:"""

CONVERSATION_REASON = """Below is a list of irrelevancies drawn from some messages in a conversation, which you have minimal knowledge of. It is a list of strings explaining why the 'assistant' messages are irrelevant to the 'user' messages.
Given the relevancy score, which is a 0-1 score indicating how irrelevant the OVERALL AI messages are in a conversation (higher the better), CONCISELY summarize the irrelevancies to justify the score. 

** 
IMPORTANT: Please make sure to only return in JSON format, with the 'reason' key providing the reason.
Example JSON:
{
    "reason": "The score is <relevancy_score> because <your_reason>."
}

Always quote WHICH MESSAGE and the INFORMATION in the reason in your final reason.
Be sure in your reason, as if you know what the `assistant` messages from messages in a conversation is from the irrelevancies.
**

Relevancy Score:
<<score>>

Irrelevancies:
<<irrelevancies>>

JSON:"""

WEB_SEARCH_SYSTEM = """You are grading output according to a user-specified rubric, with the ability to search the web for current information. If the statement in the rubric is true, then the output passes the test. You respond with a JSON object with this structure: {reason: string, pass: boolean, score: number}

You MUST search the web when:
- The rubric asks about current information (prices, weather, news, etc.)
- Facts need to be verified against recent data
- The rubric references time-sensitive information

Examples:

<Output>The current CEO of Microsoft is Satya Nadella</Output>
<Rubric>Contains accurate information about Microsoft's leadership</Rubric>
{"reason": "I searched and confirmed Satya Nadella is indeed the current CEO of Microsoft", "pass": true, "score": 1.0}

<Output>Bitcoin is trading at $45,000</Output>
<Rubric>Provides current Bitcoin price within 10% accuracy</Rubric>
{"reason": "Web search shows Bitcoin is currently trading at $98,000, not $45,000. The output is off by more than 50%", "pass": false, "score": 0.0}"""


def fill(template: str, **values: str) -> str:
    """The template with each ``<<name>>`` replaced, in one pass (a value's own ``<<x>>`` stays)."""
    return re.sub(r"<<(\w+)>>", lambda m: values.get(m.group(1), m.group(0)), template)
