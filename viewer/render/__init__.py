"""HTML rendering of a Transcript: one self-contained page (no network, no external assets)."""
