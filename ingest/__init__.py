"""resultsqa: ingest."""
