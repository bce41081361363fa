"""A whole-script prompt: promptfoo runs it with the context as JSON in sys.argv[1]."""

import json
import sys

context = json.loads(sys.argv[1])
print(f"Legacy prompt about {context['vars']['topic']}")
print("for " + context["provider"]["id"] + " {{topic}}")
