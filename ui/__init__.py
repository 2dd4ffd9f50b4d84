"""resultsqa: ui."""
