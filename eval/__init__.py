"""resultsqa: eval."""
