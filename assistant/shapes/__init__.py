"""Question shapes: the registry (`registry`), the facts shapes ask of a reading (`words`), the
defaults they fill in (`defaults`) and the shapes themselves, by concern: rankings, counts,
one named entity, and the fallbacks. `docs/reader.md` lists every shape."""
