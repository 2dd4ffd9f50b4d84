"""resultsqa: assistant."""
