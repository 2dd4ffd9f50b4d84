"""The example questions on the first screen.

Each one must answer correctly with the offline backend on the default data (tests/ui check
that they answer), so a newcomer's first click always shows the product working. One is in
Swedish to show that the assistant understands it.
"""

from __future__ import annotations

EXAMPLES: list[str] = [
    "Which system had the best Llama 2 70B Offline result in v6.1?",
    "What was the top gpt-oss-120b result in v6.1 and how many GPUs did it use?",
    "How many submitters were there in v6.1?",
    "Which benchmarks are new in v6.1?",
    "Which system had the lowest latency on the agentic edge benchmark?",
    "Vilket system hade bäst resultat på Llama 2 70B Offline i v6.1?",
]
